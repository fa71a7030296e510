"""The store: one DuckDB file shared by the dashboard and the CLI.

`Store` is the only database wrapper. Pages, the CLI, the judge panel and the report call its
methods, never SQL. All SQL lives in this package and binds every value; only
`connection.py` imports duckdb.

Sharing the file: see `connection.py` (open per unit of work, wait on the lock) and `journal.py`
(writes that must not wait are kept on disk and applied by whoever next holds the file).
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from dashboard.auth.roles import require_admin
from dashboard.auth.users import User
from dashboard.settings import is_server_url
from dashboard.store import applying, reads, server, writes
from dashboard.store.connection import Connection, Database, transaction
from dashboard.store.errors import (
    DiskFull,
    JournalUnusable,
    ReadOnlyDatabase,
    StoreBusy,
    StoreError,
    WriteConflict,
    fault_of,
    journal_reason,
)
from dashboard.store.journal import Batch, Spool
from dashboard.types import DatasetSummary, Item, JudgeCall, Preference, Rating, Response

log = logging.getLogger(__name__)

# A write on PostgreSQL that meets a concurrent change to the same rows runs this many times.
_SERVER_RETRIES = 8

__all__ = [
    "DiskFull",
    "JournalUnusable",
    "ReadOnlyDatabase",
    "Store",
    "StoreBusy",
    "StoreError",
    "WriteConflict",
    "WriteResult",
    "transaction",
]


@dataclass(frozen=True)
class WriteResult:
    """`added` rows reached the database now; `pending` is a spool file applied later."""

    added: int
    pending: Path | None = None


class Store:
    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        wait_s: float = 30.0,
        spool_wait_s: float | None = None,
        keep_warm_s: float = 0.0,
    ) -> None:
        """`wait_s`: how long a unit of work waits while another process holds the file.
        `spool_wait_s`: how long a write that may go to the journal waits before it does
        (default `wait_s`; the dashboard's is short, so that a save never makes anyone wait).
        `keep_warm_s`: how long the file stays open after a unit of work (the dashboard's;
        see `Database`)."""
        self.db: Database | server.ServerDatabase = (
            server.ServerDatabase(str(path), wait_s=wait_s)
            if is_server_url(path)
            else Database(path, wait_s=wait_s, keep_warm_s=keep_warm_s)
        )
        self.spool = Spool.beside(self.db.path)
        self.spool_wait_s = spool_wait_s
        # Threads of one process share the database instance: their writes take turns, so that
        # two never chain new rows to one current row at once (nor apply one spool file).
        self.write_lock = threading.RLock()
        # Files applied whose removal the journal folder refused: not applied again.
        self._applied_stuck: set[Path] = set()
        self._local = threading.local()  # a thread's `kept_open` connection

    @property
    def path(self) -> Path:
        """The database file (on a PostgreSQL store, a name for messages only)."""
        return self.db.path

    def close(self) -> None:
        """Let go of a PostgreSQL server's connections now (a file is closed after each use)."""
        if isinstance(self.db, server.ServerDatabase):
            self.db.close()

    @property
    def location(self) -> str:
        """Where the store is, for people: the file, or the PostgreSQL URL without password."""
        return self.db.location if isinstance(self.db, server.ServerDatabase) else str(self.db.path)

    @property
    def url(self) -> str:
        """What names the store to another process: the file, or the full PostgreSQL URL."""
        return self.db.url if isinstance(self.db, server.ServerDatabase) else str(self.db.path)

    @property
    def on_server(self) -> bool:
        """True on a PostgreSQL store."""
        return isinstance(self.db, server.ServerDatabase)

    @property
    def read_only(self) -> bool:
        """True once the file turned out to be read-only: reads work, writes are refused."""
        return self.db.read_only

    @contextmanager
    def connection(self, *, wait_s: float | None = None) -> Iterator[Connection]:
        """An open connection; pending writes are applied first, so every read sees them.
        When they cannot be applied now (a full disk, a read-only file), the read goes on
        without them and they stay in the journal."""
        if wait_s is None:
            wait_s = getattr(self._local, "wait_s", None)
        kept = self._keep_open(wait_s)
        with self._lent(kept) if kept is not None else self.db.connect(wait_s=wait_s) as con:
            try:
                self._apply_pending(con, live_journals=False)
            except StoreError as error:
                log.warning("pending writes stay in %s: %s", self.spool.directory, error)
            yield con

    @contextmanager
    def kept_open(self) -> Iterator[None]:
        """Within the block, this thread's units of work share one open connection: the first
        opens it (waiting like any other), the others take it as it is (no lock, no new
        connection to set up, DuckDB's buffers warm); one inside another, while it is in use,
        opens its own as outside the block. The block's end releases the file. For a unit of
        work of many short reads (a run of a page): while a judge run merges every 1.5 s, each
        would wait anew; and on PostgreSQL, setting up each read's connection was most of the
        CPU a page's run cost."""
        if getattr(self._local, "keeper", None) is not None:
            yield  # already inside
            return
        with ExitStack() as stack:
            self._local.keeper = stack
            self._local.opened = False
            self._local.lent = False
            try:
                yield
            finally:
                self._local.keeper = None
                self._local.kept = None

    @contextmanager
    def waiting(self, wait_s: float) -> Iterator[None]:
        """Within the block, this thread's connections that name no wait of their own wait
        at most `wait_s` for the file (a page that already knows another process holds it)."""
        before = getattr(self._local, "wait_s", None)
        self._local.wait_s = wait_s
        try:
            yield
        finally:
            self._local.wait_s = before

    def let_go(self) -> None:
        """Close this thread's `kept_open` connection now, before a long wait in the block (a
        page following a judge run); a later connection opens it again."""
        keeper: ExitStack | None = getattr(self._local, "keeper", None)
        if keeper is not None and self._local.opened and not self._local.lent:
            keeper.close()
            self._local.opened = False
            self._local.kept = None

    def _keep_open(self, wait_s: float | None) -> Connection | None:
        """The connection that `kept_open` keeps (opened on the first unit of work it wraps),
        when no unit of work of this thread is using it; else None."""
        keeper: ExitStack | None = getattr(self._local, "keeper", None)
        if keeper is None or self._local.lent:
            return None
        if not self._local.opened:
            self._local.kept = keeper.enter_context(self.db.connect(wait_s=wait_s))
            self._local.opened = True
        kept: Connection = self._local.kept
        return kept

    @contextmanager
    def _lent(self, kept: Connection) -> Iterator[Connection]:
        """The kept connection, for one unit of work at a time."""
        self._local.lent = True
        try:
            with self.db.sharing(kept) as con:
                yield con
        finally:
            self._local.lent = False

    def _apply_pending(self, con: Connection, *, live_journals: bool = True) -> int:
        if self.db.read_only or not self.spool.directory.is_dir():
            return 0
        added = 0
        with self.write_lock:
            for path in self.spool.ready_files(live_journals=live_journals):
                with self.spool.taken(path) as mine:  # not applied by two processes at once
                    if mine:
                        added += applying.apply_file(
                            con, path, db_path=self.path, stuck=self._applied_stuck
                        )
        return added

    def apply_pending(self, *, wait_s: float | None = None) -> int:
        """Apply every spooled write now; return how many rows were new. A full disk or a
        read-only file raises its `StoreError`; the writes stay in the journal."""
        if self.db.read_only:
            raise ReadOnlyDatabase(self.path)
        with self.db.connect(wait_s=wait_s) as con:
            return self._apply_pending(con)

    def write(
        self,
        batches: Sequence[Batch],
        *,
        wait_s: float | None = None,
        spool_if_busy: bool = True,
        check: Callable[[Connection], None] | None = None,
    ) -> WriteResult:
        """Write in one transaction; if the file stays busy, keep the batches in the spool.
        `wait_s` defaults to `spool_wait_s` when the write may be spooled, else `wait_s`.
        `check(con)` runs first in the same transaction and may refuse the write by raising;
        a checked write is never spooled, since its check must see the database as it is."""
        if check is not None or self.on_server:
            spool_if_busy = False  # a server has no journal: its writes wait or fail whole
        if self.on_server:
            return self._retried(lambda: self._write(batches, wait_s, spool_if_busy, check))
        return self._write(batches, wait_s, spool_if_busy, check)

    def _retried(self, work: Callable[[], WriteResult]) -> WriteResult:
        """On PostgreSQL, a write that met another on the same rows (`WriteConflict`) was rolled
        back whole: run it again, now seeing the other."""
        for attempt in range(_SERVER_RETRIES):
            try:
                return work()
            except WriteConflict:
                if attempt == _SERVER_RETRIES - 1:
                    raise
                time.sleep(0.01 * (attempt + 1) * (1 + random.random()))
        raise AssertionError("unreachable")

    def _write(
        self,
        batches: Sequence[Batch],
        wait_s: float | None,
        spool_if_busy: bool,
        check: Callable[[Connection], None] | None,
    ) -> WriteResult:
        if wait_s is None and spool_if_busy:
            wait_s = self.spool_wait_s
        try:
            with self.write_lock, self.connection(wait_s=wait_s) as con:
                if self.db.read_only:
                    raise ReadOnlyDatabase(self.path)
                with transaction(con):
                    if check is not None:
                        check(con)
                    return WriteResult(
                        sum(writes.insert_rows(con, b.table, list(b.rows)) for b in batches)
                    )
        except (StoreBusy, WriteConflict) as busy:
            # A conflict with another write of this process (an import superseding the same
            # label) is as passing as a held file: the journal applies it after that write.
            if not spool_if_busy:
                raise
            pending = self.spool_batches(batches, consequence="this change was not saved")
            log.warning("%s; %d batch(es) kept in %s", busy, len(batches), pending)
            return WriteResult(0, pending)

    def spool_batches(self, batches: Sequence[Batch], *, consequence: str) -> Path:
        """Keep batches in the journal; a journal that cannot be written raises
        `JournalUnusable` (or `DiskFull`) saying `consequence`: nothing is dropped silently."""
        try:
            return self.spool.write(batches)
        except OSError as error:
            directory = self.spool.directory
            if isinstance(fault_of(error, self.path), DiskFull) and directory.is_dir():
                raise DiskFull(self.path, kept=f" ({consequence})") from error
            raise JournalUnusable(directory, journal_reason(directory, error), consequence) from (
                error
            )

    def add_items(self, items: Sequence[Item], responses: Sequence[Response] = ()) -> int:
        """Add items and their responses in one transaction (code paths; files use import)."""
        with self.write_lock, self.connection() as con, transaction(con):
            return writes.add_items(con, items) + writes.add_responses(con, responses)

    def add_ratings(
        self,
        ratings: Sequence[Rating],
        *,
        wait_s: float | None = None,
        spool_if_busy: bool = True,
        check: Callable[[Connection], None] | None = None,
    ) -> WriteResult:
        """Add ratings; `check` as in `write` (a checked write waits for the file, unspooled)."""
        rows = tuple(map(writes.record_row, ratings))
        return self.write(
            [Batch("ratings", rows)], wait_s=wait_s, spool_if_busy=spool_if_busy, check=check
        )

    def add_preferences(
        self,
        preferences: Sequence[Preference],
        *,
        wait_s: float | None = None,
        spool_if_busy: bool = True,
        check: Callable[[Connection], None] | None = None,
    ) -> WriteResult:
        """Add preferences; `check` as in `write`."""
        rows = tuple(map(writes.record_row, preferences))
        return self.write(
            [Batch("preferences", rows)], wait_s=wait_s, spool_if_busy=spool_if_busy, check=check
        )

    def add_judge_calls(
        self, calls: Sequence[JudgeCall], *, wait_s: float | None = None, spool_if_busy: bool = True
    ) -> WriteResult:
        rows = tuple(map(writes.record_row, calls))
        return self.write([Batch("judge_calls", rows)], wait_s=wait_s, spool_if_busy=spool_if_busy)

    def list_datasets(self) -> list[DatasetSummary]:
        with self.connection() as con:
            return reads.list_datasets(con)

    def dataset_names(self) -> list[str]:
        with self.connection() as con:
            return reads.dataset_names(con)

    def dataset_systems(self, dataset: str | None = None) -> list[str]:
        """The systems that answered in the dataset (None: in any dataset), by name."""
        with self.connection() as con:
            return reads.dataset_systems(con, dataset=dataset)

    def fingerprint(self, *, wait_s: float | None = None) -> reads.Fingerprint:
        """Changes whenever the data does; the dashboard keys its cached reads on it."""
        with self.connection(wait_s=wait_s) as con:
            return server.fingerprint(con) if self.on_server else reads.fingerprint(con)

    def delete_dataset(self, name: str, *, actor: User | None = None) -> None:
        """Delete a dataset and everything of it. Spooled writes are applied first (by
        `connection`), so they go with it; a judge run still writing to the dataset leaves
        its late rows without their responses, and every metric (which joins responses)
        ignores them. An admin's (`actor`)."""
        require_admin(actor, "delete data")
        with self.write_lock, self.connection() as con, transaction(con):
            writes.delete_dataset(con, name)
