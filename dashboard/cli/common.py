"""What every `judgeboard` subcommand shares: the error it reports as one line, the store named
by --db, and the check that a --dataset exists."""

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


def require_dataset(store: Store, name: str | None) -> None:
    """A misspelt --dataset is an error, not an empty result that passes every gate."""
    if name is None:
        return
    known = [d.name for d in store.list_datasets()]
    if name not in known:
        raise CommandError(f"no dataset named {name!r} (datasets: {', '.join(known) or 'none'})")


__all__ = ["CommandError", "StoreBusy", "open_store", "require_dataset"]
