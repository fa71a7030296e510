"""`judgeboard copy SOURCE TARGET`: a whole store into an empty one, a DuckDB file to a
PostgreSQL database (postgresql://USER@HOST:PORT/DB) and back.

Example:
    createdb -h 127.0.0.1 judgeboard
    judgeboard copy judgeboard.duckdb postgresql://me@127.0.0.1:5432/judgeboard
"""

from __future__ import annotations

import argparse
from typing import Any

from dashboard.cli.common import CommandError
from dashboard.settings import resolve_db_path
from dashboard.store import Store


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "copy",
        help="copy a whole store into an empty one (a file to PostgreSQL and back)",
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("source", help="a database file or a postgresql:// URL")
    parser.add_argument("target", help="a new database file, or an empty PostgreSQL database")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from dashboard.store.copy import CopyError, copy_store

    source_at, target_at = resolve_db_path(args.source), resolve_db_path(args.target)
    if not isinstance(source_at, str) and not source_at.exists():
        raise CommandError(f"{source_at} does not exist: name the store to copy from")
    source = Store(source_at, wait_s=args.wait)
    target = Store(target_at, wait_s=args.wait)
    try:
        copied = copy_store(
            source, target, on_table=lambda t, n: print(f"  {t}: {n} rows", flush=True)
        )
    except CopyError as error:
        raise CommandError(str(error)) from None
    finally:
        source.close()
        target.close()
    print(f"copied {copied.rows} rows in {len(copied.tables)} tables into {target.location}")
    return 0
