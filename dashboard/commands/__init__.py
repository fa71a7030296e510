"""One module per `judgeboard` subcommand: `register(subparsers)` adds its parser and handler."""

from __future__ import annotations

import argparse

from dashboard.settings import resolve_db_path
from dashboard.store import Store, StoreBusy


def open_store(args: argparse.Namespace) -> Store:
    """The store named by --db / JUDGEBOARD_DB, waiting --wait seconds on a busy file."""
    return Store(resolve_db_path(args.db), wait_s=args.wait)


__all__ = ["open_store", "StoreBusy"]
