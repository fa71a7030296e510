"""The one place that opens DuckDB.

DuckDB lets a single process hold a database file. The dashboard and the CLI share one file, so
nobody keeps it open for long: every unit of work opens the file, does its work in a
transaction and closes it again (about 25 ms on a 1 GB file). The dashboard keeps it open for
a moment more (`keep_warm_s`), so that its many small units of work (a save, then the page's
reads) join the open file instead of opening it each time, and lets go of it at once when
another process says that it waits for it (`waiters`). When another process holds the file,
`connect` says so in that note, waits with backoff and, after `wait_s`, raises `StoreBusy`
naming the holder's PID. Within one process DuckDB shares a single database instance between
connections to the same path, so threads (Streamlit sessions) never lock each other out.
"""

from __future__ import annotations

import logging
import math
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from dashboard.store import gate, migrations, waiters
from dashboard.store.errors import (
    DAMAGED,
    CannotCreateDatabase,
    CannotOpenDatabase,
    NewerSchema,
    NotADatabase,
    OlderSchemaReadOnly,
    StoreBusy,
    StoreError,
    WrittenByNewerDuckDB,
    duckdb_writer,
    fault_of,
)
from dashboard.store.transactions import transaction

log = logging.getLogger(__name__)

# Every extension beyond the built-in json, parquet and icu would try to download at first use;
# with autoinstall off such a failure is immediate and clear instead of a network stall.
_CONFIG: dict[str, str | bool | int | float | list[str]] = {"autoinstall_known_extensions": False}
# DuckDB's words for a file of a storage format it cannot read (written by a newer DuckDB).
_STORAGE_VERSION = re.compile(r"Trying to read a database file with version number", re.I)
# A damaged-looking header at open is read again this many times (0.1 s, 0.2 s, 0.3 s apart).
_DAMAGED_RETRIES = 3
_LOCK_PATTERN = re.compile(r"Could not set lock on file|Conflicting lock", re.IGNORECASE)
_PID_PATTERN = re.compile(r"\(PID (\d+)\)")
# Opening the file for writing was refused: it, or its folder, is read-only for us (its mode, a
# read-only mount, or an immutable attribute: `chattr +i` gives "Operation not permitted").
_CANNOT_WRITE = re.compile(
    r"Read-only file system|Permission denied|Operation not permitted", re.IGNORECASE
)

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
# A waiter tries again at least this often, so that its note (`waiters`) stays fresh and it
# takes the file soon after a dashboard lets go of it.
_MAX_DELAY_S = 0.1
# How long a dashboard holds back a new unit of work while another process waits for the
# file (it takes the file as soon as this process's units of work have ended).
_MAKE_WAY_S = 0.5
# How often a waiting process writes its note again (its threads wait together).
_NOTE_EVERY_S = 0.2


def _lock_holder(error: BaseException) -> int | None:
    match = _PID_PATTERN.search(str(error))
    return int(match.group(1)) if match else None


def is_lock_error(error: BaseException) -> bool:
    return isinstance(error, duckdb.IOException) and bool(_LOCK_PATTERN.search(str(error)))


def cursor_of(con: Connection) -> Connection:
    """Another connection to the same database (a stream that holds its own), naming tables
    as `con` does (a PostgreSQL store's search path: `server.py`)."""
    row = con.execute("SELECT current_setting('search_path')").fetchone()
    cursor = con.cursor()
    if row and row[0]:
        cursor.execute("SET search_path = " + "'" + str(row[0]).replace("'", "''") + "'")
    return cursor


def _quiet(con: Connection) -> Connection:
    """No progress bar: DuckDB draws one on stdout for a query over 2 s, which would corrupt
    a command's output (`metrics --json`)."""
    con.execute("SET enable_progress_bar = false")
    return con


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
        self,
        path: str | os.PathLike[str],
        *,
        wait_s: float = 30.0,
        memory_limit: str | None = None,
        keep_warm_s: float = 0.0,
    ) -> None:
        """`keep_warm_s`: keep the file open this long after each unit of work, unless
        another process waits for it (`waiters`): the dashboard's many small units of work
        then skip most of the cost of opening and closing it."""
        self.path = Path(path)
        self._gate = gate.gate_for(self.path)
        self.wait_s = wait_s
        self._warm = _Warm(self, keep_warm_s) if keep_warm_s > 0 else None
        self._thread = threading.local()  # `depth`: this thread's open connections
        self._noted_s = -math.inf  # when this process last wrote that it waits (`waiters`)
        self.memory_limit = memory_limit or os.environ.get("JUDGEBOARD_MEMORY_LIMIT", "3GB")
        self.read_only = False  # set once the file turns out to be read-only for us
        self._migrated = False
        self._migrate_lock = threading.Lock()

    def _open(self, wait_s: float) -> Connection:
        deadline = time.monotonic() + wait_s
        if self._warm is not None and not getattr(self._thread, "depth", 0):
            # not inside another unit of work of this thread (which holds the file already)
            self._warm.make_way(deadline)
        delay_s = 0.02
        asked = False
        damaged_reads = 0

        def waiting() -> None:  # another process holds the file: say that we wait for it
            nonlocal asked
            if time.monotonic() - self._noted_s > _NOTE_EVERY_S:
                waiters.ask_for(self.path)  # a dashboard keeping the file warm makes way
                self._noted_s = time.monotonic()
            asked = True

        while True:
            try:
                con = self._enter(deadline, waiting)
                if asked:
                    waiters.got_it(self.path)
                return con
            except TimeoutError:
                if asked:
                    waiters.got_it(self.path)  # gave up: no longer waiting
                raise StoreBusy(self.path, wait_s, gate.holder_pid(self.path)) from None
            except duckdb.Error as error:
                # Another program (not judgeboard, which takes the gate first) holds the file.
                if not is_lock_error(error):
                    if damaged_reads < _DAMAGED_RETRIES and _looks_damaged(error, self.path):
                        # Another program was writing the file as DuckDB read its header
                        # (before DuckDB's own lock): read again before calling it damaged.
                        damaged_reads += 1
                        time.sleep(0.1 * damaged_reads)
                        continue
                    raise self._open_fault(error) from error
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    if asked:
                        waiters.got_it(self.path)
                    raise StoreBusy(self.path, wait_s, _lock_holder(error)) from error
                waiting()
                time.sleep(min(delay_s, remaining))
                delay_s = min(delay_s * 2, _MAX_DELAY_S)

    def _open_fault(self, error: duckdb.Error) -> StoreError:
        """Why the file cannot be opened, as its one line."""
        if _STORAGE_VERSION.search(str(error)):
            return WrittenByNewerDuckDB(self.path, duckdb_writer(self.path), duckdb.__version__)
        return fault_of(error, self.path) or CannotOpenDatabase(self.path, _plain(str(error)))

    def _enter(self, deadline: float, waiting: Callable[[], None] | None = None) -> Connection:
        """A new connection, taking the gate first when this process holds no other one."""
        with self._gate.hold(deadline):
            self._gate.enter(deadline, waiting=waiting)
            try:
                with _CONNECT_LOCK:
                    return self._connect()
            except BaseException:
                self._gate.leave()
                raise

    def _release(self, con: Connection) -> None:
        """Close a connection and count it out of the gate, in this process's turn: no other
        thread opens the file while the last connection writes its checkpoint."""
        with self._gate.hold(None):
            try:
                _close(con, self.path)
            finally:
                self._gate.leave()

    def _connect(self) -> Connection:
        """Open for writing; a file we may only read is opened read-only from then on (DuckDB
        keeps one instance per file and process, so the mode cannot change in between)."""
        if not self.read_only:
            try:
                return _quiet(duckdb.connect(str(self.path), config=_CONFIG))
            except duckdb.IOException as error:
                if is_lock_error(error) or not _CANNOT_WRITE.search(str(error)):
                    raise
                if not self.path.exists():
                    reason = "its folder is read-only" if "Read-only" in str(error) else str(error)
                    raise CannotCreateDatabase(self.path, _plain(reason)) from error
                log.warning("%s cannot be written; opening it read-only", self.path)
                self.read_only = True
        return _quiet(duckdb.connect(str(self.path), config=_CONFIG, read_only=True))

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
        self._thread.depth = getattr(self._thread, "depth", 0) + 1
        try:
            with self._faults():
                con.execute("SET memory_limit = ?", [self.memory_limit])
                if not self._migrated:
                    with self._migrate_lock:  # two sessions may open the file at once
                        if not self._migrated:
                            self._migrate(con)
                            self._migrated = True
                if self._warm is not None:
                    self._warm.used()
                yield con
        finally:
            self._thread.depth -= 1
            try:
                self._release(con)
            finally:
                if self._warm is not None:
                    self._warm.touch()

    @contextmanager
    def sharing(self, con: Connection) -> Iterator[Connection]:
        """`con`, a connection this thread holds open (`Store.kept_open`), for another unit
        of work: nothing is opened or closed; a fault inside the block as `connect` gives it."""
        with self._faults():
            yield con

    @contextmanager
    def _faults(self) -> Iterator[None]:
        """An environment fault inside the block (a full disk, a read-only or damaged file)
        leaves it as its `StoreError`."""
        try:
            yield
        except Exception as error:
            fault = fault_of(error, self.path)
            if fault is None or fault is error:
                raise
            raise fault from error


class _Warm:
    """One more connection of this process, kept open for `keep_s` after the last unit of
    work: while it is open, a unit of work joins the open instance (about 1 ms) instead of
    opening and closing the file (25-35 ms, more on a large file). It is closed by a watcher
    thread once the file has been idle that long, or at once when another process waits
    for the file (`waiters`)."""

    CHECK_S = 0.05

    def __init__(self, db: Database, keep_s: float) -> None:
        self.db, self.keep_s = db, keep_s
        self._lock = threading.Lock()
        self._con: Connection | None = None
        self._last_use_s = 0.0

    def touch(self) -> None:
        """A unit of work ended: the file stays open `keep_s` from now."""
        with self._lock:
            self._last_use_s = time.monotonic()

    def used(self) -> None:
        """A unit of work has just opened the file: keep it open from now on for `keep_s`
        (joining the instance that the unit's connection holds open)."""
        with self._lock:
            self._last_use_s = time.monotonic()
            if self._con is not None or waiters.waited_for(self.db.path):
                return
            try:
                self._con = self.db._enter(time.monotonic() + 1.0)
            except (duckdb.Error, TimeoutError) as error:  # the unit's connection closed meanwhile
                log.debug("not keeping %s open: %s", self.db.path, error)
                return
        threading.Thread(target=self._watch, name="judgeboard-warm", daemon=True).start()

    def _watch(self) -> None:
        while True:
            time.sleep(self.CHECK_S)
            with self._lock:
                idle_s = time.monotonic() - self._last_use_s
                if idle_s < self.keep_s and not waiters.waited_for(self.db.path):
                    continue
                con, self._con = self._con, None
            if con is not None:
                try:
                    self.db._release(con)
                except (StoreError, duckdb.Error) as error:  # its checkpoint (a full disk):
                    log.warning("closing %s: %s", self.db.path, error)  # the next unit meets it
            return

    def make_way(self, deadline: float) -> None:
        """While another process waits for the file, hold back this new unit of work for a
        moment (at most `_MAKE_WAY_S`, never past `deadline`), so that it gets the file
        once this process's units of work have ended."""
        until = min(time.monotonic() + _MAKE_WAY_S, deadline)
        while waiters.waited_for(self.db.path) and time.monotonic() < until:
            time.sleep(0.02)


def _close(con: Connection, path: Path) -> None:
    """Close; DuckDB writes its checkpoint here, which a full disk can refuse."""
    try:
        con.close()
    except duckdb.Error as error:
        fault = fault_of(error, path)
        if fault is None:
            raise
        raise fault from error


def _looks_damaged(error: BaseException, path: Path) -> bool:
    fault = fault_of(error, path)
    return isinstance(fault, NotADatabase) and DAMAGED in str(fault)


def _plain(reason: str) -> str:
    """An OS reason without DuckDB's prefix ("IO Error: Cannot open file ...: ")."""
    return reason.rsplit(": ", 1)[-1].strip().rstrip(".") or reason
