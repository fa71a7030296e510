"""One module per `judgeboard` subcommand: `register(subparsers)` adds its parser and handler."""

from __future__ import annotations

import argparse

from dashboard.settings import resolve_db_path
from dashboard.store import Store, StoreBusy


class CommandError(Exception):
    """A failure to report to the user as one clear line, with exit status `status`."""

    def __init__(self, message: str, *, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def open_store(args: argparse.Namespace) -> Store:
    """The store named by --db / JUDGEBOARD_DB, waiting --wait seconds on a busy file."""
    return Store(resolve_db_path(args.db), wait_s=args.wait)


__all__ = ["CommandError", "StoreBusy", "open_store"]
