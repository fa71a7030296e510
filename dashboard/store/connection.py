"""The one place that opens DuckDB.

DuckDB lets a single process hold a database file. The dashboard and the CLI share one file, so
nobody keeps it open: every unit of work opens the file, does its work in a transaction and
closes it again (about 25 ms on a 1 GB file). When another process holds the file, `connect`
waits with exponential backoff and, after `wait_s`, raises `StoreBusy` naming the holder's PID.
Within one process DuckDB shares a single database instance between connections to the same
path, so threads (Streamlit sessions) never lock each other out.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from dashboard.store import migrations
from dashboard.store.transactions import transaction

log = logging.getLogger(__name__)

# Every extension beyond the built-in json, parquet and icu would try to download at first use;
# with autoinstall off such a failure is immediate and clear instead of a network stall.
_CONFIG: dict[str, str | bool | int | float | list[str]] = {"autoinstall_known_extensions": False}
_LOCK_PATTERN = re.compile(r"Could not set lock on file|Conflicting lock", re.IGNORECASE)
_PID_PATTERN = re.compile(r"\(PID (\d+)\)")

__all__ = ["Connection", "Database", "DatabaseError", "StoreBusy", "scratch", "transaction"]

DatabaseError = duckdb.Error
Connection = duckdb.DuckDBPyConnection

# DuckDB keeps one database instance per file and process. While another process holds the
# file, threads that retry `duckdb.connect` at the same moment can race on that cache and get
# a connection without Python's replacement scans (`register` then fails). Connecting one
# thread at a time removes the race; a connect takes milliseconds.
_CONNECT_LOCK = threading.Lock()


class StoreBusy(RuntimeError):
    """Another process held the database file for longer than we were willing to wait."""

    def __init__(self, path: Path, waited_s: float, holder_pid: int | None) -> None:
        holder = f"process {holder_pid}" if holder_pid else "another process"
        super().__init__(
            f"The database {path} is in use by {holder}; waited {waited_s:.1f} s. "
            "Let that command finish, or pass a longer wait (--wait SECONDS)."
        )
        self.path = path
        self.holder_pid = holder_pid


def _lock_holder(error: BaseException) -> int | None:
    match = _PID_PATTERN.search(str(error))
    return int(match.group(1)) if match else None


def is_lock_error(error: BaseException) -> bool:
    return isinstance(error, duckdb.IOException) and bool(_LOCK_PATTERN.search(str(error)))


@contextmanager
def scratch() -> Iterator[Connection]:
    """An in-memory DuckDB for work that touches no database file (reading an input file to
    preview it or to see whether every record reads)."""
    con = duckdb.connect(":memory:", config=_CONFIG)
    try:
        yield con
    finally:
        con.close()


class Database:
    """Opens the file on demand, migrating it on first use in this process."""

    def __init__(
        self, path: str | os.PathLike[str], *, wait_s: float = 30.0, memory_limit: str | None = None
    ) -> None:
        self.path = Path(path)
        self.wait_s = wait_s
        self.memory_limit = memory_limit or os.environ.get("JUDGEBOARD_MEMORY_LIMIT", "3GB")
        self._migrated = False
        self._migrate_lock = threading.Lock()

    def _open(self, wait_s: float) -> Connection:
        deadline = time.monotonic() + wait_s
        delay_s = 0.02
        while True:
            try:
                with _CONNECT_LOCK:
                    return duckdb.connect(str(self.path), config=_CONFIG)
            except duckdb.IOException as error:
                if not is_lock_error(error):
                    raise
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise StoreBusy(self.path, wait_s, _lock_holder(error)) from error
                time.sleep(min(delay_s, remaining))
                delay_s = min(delay_s * 2, 0.5)

    @contextmanager
    def connect(self, *, wait_s: float | None = None) -> Iterator[Connection]:
        """A connection for one unit of work; the file is released when the block ends."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = self._open(self.wait_s if wait_s is None else wait_s)
        try:
            con.execute("SET memory_limit = ?", [self.memory_limit])
            if not self._migrated:
                with self._migrate_lock:  # two sessions may open the file at the same moment
                    if not self._migrated:
                        migrations.migrate(con)
                        self._migrated = True
            yield con
        finally:
            con.close()
