"""`judgeboard`: the command line. Each subcommand is one module of this package."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from dashboard.cli.common import CommandError
from dashboard.settings import DB_ENV
from dashboard.store import StoreError
from dashboard.store.errors import os_fault

__all__ = ["CommandError", "main"]

# Subcommand modules, each with `register(subparsers)`; imported lazily so that `judgeboard
# import` never pays for LiteLLM's 3-second import.
COMMANDS: dict[str, str] = {
    "serve": "dashboard.cli.serve",
    "import": "dashboard.cli.import_cmd",
    "datasets": "dashboard.cli.datasets",
    "judge": "dashboard.cli.judge",
    "reparse": "dashboard.cli.reparse",
    "report": "dashboard.cli.report",
    "export": "dashboard.cli.export",
    "metrics": "dashboard.cli.metrics",
    "score": "dashboard.cli.score",
    "users": "dashboard.cli.users",
    "align": "dashboard.cli.align",
    "copy": "dashboard.cli.copy",
}


def build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="judgeboard", description="Rate LLM and RAG answers with LLM judge panels and people."
    )
    parser.add_argument("--db", help=f"database file (default: ${DB_ENV} or ./judgeboard.duckdb)")
    parser.add_argument(
        "--wait",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="how long to wait while another process holds the database",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # Only the chosen command's module is imported; `--help` lists them all.
    chosen = next((a for a in argv if a in COMMANDS), None)
    for name, module in COMMANDS.items():
        if chosen is None or name == chosen:
            importlib.import_module(module).register(subparsers)
        else:
            subparsers.add_parser(name)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(argv).parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args.handler(args) or 0)
    except CommandError as error:
        print(f"judgeboard {args.command}: error: {error}", file=sys.stderr)
        return error.status
    except StoreError as error:  # the disk, the database file or its journal (store/errors.py)
        print(f"judgeboard {args.command}: error: {error}", file=sys.stderr)
        return error.status
    except OSError as error:  # a file the command itself writes, e.g. --out
        fault = os_fault(error)
        print(f"judgeboard {args.command}: error: {fault}", file=sys.stderr)
        return fault.status
    except KeyboardInterrupt:
        print(f"judgeboard {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
