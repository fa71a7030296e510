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
from dashboard.store.errors import (
    CannotCreateDatabase,
    CannotOpenDatabase,
    NewerSchema,
    NotADatabase,
    OlderSchemaReadOnly,
    StoreBusy,
    StoreError,
    fault_of,
)
from dashboard.store.transactions import transaction

log = logging.getLogger(__name__)

# Every extension beyond the built-in json, parquet and icu would try to download at first use;
# with autoinstall off such a failure is immediate and clear instead of a network stall.
_CONFIG: dict[str, str | bool | int | float | list[str]] = {"autoinstall_known_extensions": False}
_LOCK_PATTERN = re.compile(r"Could not set lock on file|Conflicting lock", re.IGNORECASE)
_PID_PATTERN = re.compile(r"\(PID (\d+)\)")
# Opening the file for writing was refused: it, or its folder, is read-only for us.
_CANNOT_WRITE = re.compile(r"Read-only file system|Permission denied", re.IGNORECASE)

__all__ = [
    "Connection",
    "Database",
    "DatabaseError",
    "StoreBusy",
    "StoreError",
    "scratch",
    "transaction",
]

DatabaseError = duckdb.Error
Connection = duckdb.DuckDBPyConnection

# DuckDB keeps one database instance per file and process. While another process holds the
# file, threads that retry `duckdb.connect` at the same moment can race on that cache and get
# a connection without Python's replacement scans (`register` then fails). Connecting one
# thread at a time removes the race; a connect takes milliseconds.
_CONNECT_LOCK = threading.Lock()


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
        self.read_only = False  # set once the file turns out to be read-only for us
        self._migrated = False
        self._migrate_lock = threading.Lock()

    def _open(self, wait_s: float) -> Connection:
        deadline = time.monotonic() + wait_s
        delay_s = 0.02
        while True:
            try:
                with _CONNECT_LOCK:
                    return self._connect()
            except duckdb.Error as error:
                if not is_lock_error(error):
                    raise fault_of(error, self.path) or CannotOpenDatabase(
                        self.path, _plain(str(error))
                    ) from error
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise StoreBusy(self.path, wait_s, _lock_holder(error)) from error
                time.sleep(min(delay_s, remaining))
                delay_s = min(delay_s * 2, 0.5)

    def _connect(self) -> Connection:
        """Open for writing; a file we may only read is opened read-only from then on (DuckDB
        keeps one instance per file and process, so the mode cannot change in between)."""
        if not self.read_only:
            try:
                return duckdb.connect(str(self.path), config=_CONFIG)
            except duckdb.IOException as error:
                if is_lock_error(error) or not _CANNOT_WRITE.search(str(error)):
                    raise
                if not self.path.exists():
                    reason = "its folder is read-only" if "Read-only" in str(error) else str(error)
                    raise CannotCreateDatabase(self.path, _plain(reason)) from error
                log.warning("%s cannot be written; opening it read-only", self.path)
                self.read_only = True
        return duckdb.connect(str(self.path), config=_CONFIG, read_only=True)

    def _migrate(self, con: Connection) -> None:
        """Bring the schema up to date, refusing a file that is not ours or is newer."""
        state = migrations.schema_state(con)
        if state.foreign_tables:
            tables = ", ".join(state.foreign_tables[:5])
            raise NotADatabase(
                self.path,
                f"is a DuckDB database but not judgeboard's (it holds the tables {tables} "
                "and no _migrations), so judgeboard leaves it alone",
            )
        if state.unknown:
            raise NewerSchema(self.path, found=max(state.unknown), known=len(migrations.MIGRATIONS))
        if state.pending and self.read_only:
            raise OlderSchemaReadOnly(
                self.path, found=state.version, known=len(migrations.MIGRATIONS)
            )
        if state.pending:
            migrations.migrate(con)

    @contextmanager
    def connect(self, *, wait_s: float | None = None) -> Iterator[Connection]:
        """A connection for one unit of work; the file is released when the block ends. An
        environment fault inside the block (a full disk, a read-only or damaged file) leaves
        it as its `StoreError`."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise CannotCreateDatabase(self.path, _plain(str(error))) from error
        con = self._open(self.wait_s if wait_s is None else wait_s)
        try:
            con.execute("SET memory_limit = ?", [self.memory_limit])
            if not self._migrated:
                with self._migrate_lock:  # two sessions may open the file at the same moment
                    if not self._migrated:
                        self._migrate(con)
                        self._migrated = True
            yield con
        except Exception as error:
            fault = fault_of(error, self.path)
            if fault is None or fault is error:
                raise
            raise fault from error
        finally:
            _close(con, self.path)


def _close(con: Connection, path: Path) -> None:
    """Close; DuckDB writes its checkpoint here, which a full disk can refuse."""
    try:
        con.close()
    except duckdb.Error as error:
        fault = fault_of(error, path)
        if fault is None:
            raise
        raise fault from error


def _plain(reason: str) -> str:
    """An OS reason without DuckDB's prefix ("IO Error: Cannot open file ...: ")."""
    return reason.rsplit(": ", 1)[-1].strip().rstrip(".") or reason
