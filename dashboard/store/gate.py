"""One process at a time opens the database: a lock file beside it, `<db>.lock`.

DuckDB guards its file with a POSIX record lock (`fcntl`), taken when it opens the file. But it
reads the file's header before it takes that lock, and does not read it again after (seen with
strace: two unlocked reads, then the locked open). A process that opens the file while another
is writing its checkpoint at close can therefore start from the header before that checkpoint.
Its next checkpoint then overwrites the other's: the other's last commits are lost, and blocks
that the newer header still uses are given out again, so a table can end up pointing at a block
of zeros ("computed checksum ... does not match stored checksum 0"). Four processes committing
in a loop lost commits in 4 of 5 runs of 15 s with DuckDB 2.0.1 (docs/faults.md).

The gate closes that window: a process takes an exclusive `flock` on `<db>.lock` before DuckDB
opens the file and lets go of it only after its last connection has closed, so the header a
process reads is always the last one written. `flock` locks belong to an open file description,
not to the process, and this file is never the database itself, so nothing here can release
DuckDB's own lock (closing any descriptor of the database file in the holding process would).

Within one process, DuckDB shares one database instance between connections to a path. Opening
and closing a connection take turns (`hold`), so that no thread opens a new instance while
another closes the last connection of the old one (whose close writes the checkpoint).

A process forked while it holds the gate inherits DuckDB's open instance but not its lock: the
gate refuses to open the database there (`ForkedWhileOpen`); start workers with the `spawn`
method instead.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path

from dashboard.store.errors import StoreError, UnsafeFile

log = logging.getLogger(__name__)

_MAX_DELAY_S = 0.1


class ForkedWhileOpen(StoreError):
    """The store was used in a child process forked while its parent had the file open."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"This process was forked while its parent had the database {path} open, so it "
            "shares the parent's open file without its lock and must not use it. Start worker "
            "processes with multiprocessing's 'spawn' method (or close the store before forking)."
        )
        self.path = path


def lock_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".lock")


class Gate:
    """The lock file of one database, for this process; see the module's docstring."""

    def __init__(self, db_path: Path) -> None:
        self.path = lock_path(db_path)
        self.db_path = db_path
        self._turn = threading.RLock()  # opening and closing a connection take turns
        self._count = 0  # this process's open connections
        self._fd: int | None = None
        self._forked = False

    def _check_fork(self) -> None:
        if self._forked:
            raise ForkedWhileOpen(self.db_path)

    @contextlib.contextmanager
    def hold(self, deadline: float | None) -> Iterator[None]:
        """Take this process's turn to open or close a connection (waits until `deadline`,
        then raises TimeoutError; None: as long as it takes)."""
        timeout = -1.0 if deadline is None else max(0.0, deadline - time.monotonic())
        if not self._turn.acquire(timeout=timeout):
            raise TimeoutError
        try:
            self._check_fork()
            yield
        finally:
            self._turn.release()

    def enter(
        self, deadline: float, *, shared: bool = False, waiting: Callable[[], None] | None = None
    ) -> None:
        """Count one more connection of this process; the first takes the lock file, trying
        until `deadline` (then raises TimeoutError), calling `waiting` while another process
        holds it. Call inside `hold`."""
        if self._count == 0:
            self._fd = self._lock(deadline, shared=shared, waiting=waiting)
        self._count += 1

    def leave(self) -> None:
        """One connection fewer; the last one's close has written the checkpoint, so the
        lock file is let go. Call inside `hold`, after the connection has closed."""
        self._count = max(0, self._count - 1)
        if self._count == 0 and self._fd is not None:
            fd, self._fd = self._fd, None
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            with contextlib.suppress(OSError):
                os.close(fd)

    @property
    def open_here(self) -> bool:
        return self._count > 0

    def _lock(
        self, deadline: float, *, shared: bool, waiting: Callable[[], None] | None
    ) -> int | None:
        fd = self._open_file()
        if fd is None:
            return None
        operation = (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB
        delay_s = 0.005
        while True:
            try:
                fcntl.flock(fd, operation)
                if not shared:
                    _note_pid(fd)
                return fd
            except BlockingIOError:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    os.close(fd)
                    raise TimeoutError from None
                if waiting is not None:
                    waiting()
                time.sleep(min(delay_s, remaining))
                delay_s = min(delay_s * 2, _MAX_DELAY_S)
            except OSError:
                os.close(fd)
                raise

    def _open_file(self) -> int | None:
        """The lock file, created when missing; never through a symbolic link. None when it
        cannot exist here (a read-only folder without one): then nobody can write the
        database either, and a reader goes on without it."""
        flags = os.O_CLOEXEC | os.O_NOFOLLOW
        try:
            return os.open(self.path, flags | os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise UnsafeFile(self.path, "is a symbolic link") from error
            if error.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
                raise
        try:
            return os.open(self.path, flags | os.O_RDONLY)
        except FileNotFoundError:
            log.info("no lock file %s and its folder is read-only: opening without it", self.path)
            return None
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise UnsafeFile(self.path, "is a symbolic link") from error
            raise

    def _after_fork_in_child(self) -> None:
        self._turn = threading.RLock()
        if self._count:
            self._forked = True
            # The descriptor is the parent's open file description: closing our copy keeps the
            # parent's lock (an unlock here would release it).
            if self._fd is not None:
                with contextlib.suppress(OSError):
                    os.close(self._fd)
            self._fd = None


def _note_pid(fd: int) -> None:
    """Write this process's PID into the lock file it now holds, for "in use by process N"."""
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)


def holder_pid(db_path: Path) -> int | None:
    """The PID written by the process that last took the lock file (None: unknown)."""
    try:
        fd = os.open(lock_path(db_path), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        text = os.read(fd, 32).decode("ascii", "replace").strip()
    except OSError:
        return None
    finally:
        os.close(fd)
    return int(text) if text.isdigit() else None


_GATES: weakref.WeakValueDictionary[str, Gate] = weakref.WeakValueDictionary()
# The gates of this process, one per database path, so that every store object of a process
# shares its count of open connections. A process-wide resource like DuckDB's own instance
# cache, which it mirrors.
_GATES_LOCK = threading.Lock()


def gate_for(db_path: Path) -> Gate:
    """This process's gate of the database at `db_path` (one per absolute path, as DuckDB keeps
    one instance per absolute path)."""
    key = os.path.abspath(db_path)
    with _GATES_LOCK:
        gate = _GATES.get(key)
        if gate is None:
            gate = Gate(Path(key))
            _GATES[key] = gate
        return gate


def _after_fork_in_child() -> None:
    global _GATES_LOCK
    _GATES_LOCK = threading.Lock()
    for gate in list(_GATES.values()):
        gate._after_fork_in_child()


os.register_at_fork(after_in_child=_after_fork_in_child)
