"""Writes that could not reach the database yet, kept on disk until they can.

Two writers use it:
- a write that finds the database held by another process for longer than it will wait (a
  person's rating while an import runs) is saved as a closed batch file;
- the judge runner journals every finished call the moment it arrives, so a run killed with
  SIGKILL loses nothing it has paid for.

Files live in `<db>.pending/`. A closed file `*.jsonl` is complete: whichever process next holds
the database applies it and deletes it (a reader leaves a closed journal `*.<pid>.jsonl` to
its writer while that runs). A journal still being written is `*.<pid>.open`; it is applied
only after it is closed, or once the process that wrote it is gone. Each line is one
JSON object `{"table": ..., "rows": [...]}`; a torn last line (a write cut by a kill) is skipped.
Applying is idempotent: every row carries its id, and the store skips ids it already has.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from dashboard.ids import utc_now
from dashboard.partials import pid_alive

log = logging.getLogger(__name__)

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Batch:
    table: str
    rows: tuple[Row, ...]


# Files of the journal are never opened through a symbolic link: a planted link must not make
# judgeboard write its rows (or its disk reserve) into another file.
_NO_LINK = os.O_NOFOLLOW | os.O_CLOEXEC


def _open_text(path: Path, flags: int) -> IO[str]:
    """A journal file opened for writing (`flags`: O_APPEND, or O_TRUNC with O_EXCL), never
    through a link; a link raises OSError(ELOOP)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | flags | _NO_LINK, 0o644)
    return os.fdopen(fd, "a" if flags & os.O_APPEND else "w", encoding="utf-8")


def _real_folder(directory: Path) -> None:
    """Create the journal folder if needed; a symbolic link in its place is refused."""
    if directory.is_symlink():
        raise OSError(errno.ELOOP, "the journal folder is a symbolic link", str(directory))
    directory.mkdir(parents=True, exist_ok=True)


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"cannot spool a value of type {type(value).__name__}")


def _encode(batch: Batch) -> str:
    return json.dumps({"table": batch.table, "rows": list(batch.rows)}, default=_default) + "\n"


def _of_dead_process(path: Path) -> bool:
    """A journal file named for a process (`<stem>.<pid>.open`) that no longer runs."""
    pid = path.stem.rsplit(".", 1)[-1]
    return pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid))


def _of_live_process(path: Path) -> bool:
    """A closed journal (`<stem>-<hex>.<pid>.jsonl`) of another process that still runs."""
    pid = path.stem.rsplit(".", 1)[-1] if "." in path.stem else ""
    return pid.isdigit() and int(pid) != os.getpid() and pid_alive(int(pid))


class Journal:
    """An append-only file of batches, flushed to the OS on every append.

    `open()` also sets aside `reserve_bytes` of disk in a ballast file beside it. When the disk
    fills up, an append that fails frees the ballast and tries again, so that results already
    paid for (a judge run's calls in flight) still reach the journal, and sets `disk_full`, so
    that the writer stops making new ones; once the ballast is gone, the OSError is raised.
    """

    def __init__(self, spool: Spool, stem: str, *, reserve_bytes: int = 0) -> None:
        self._spool = spool
        self._stem = stem
        self._path = spool.directory / f"{stem}.{os.getpid()}.open"
        self._reserve = spool.directory / f"{stem}.{os.getpid()}.reserve"
        self._reserve_bytes = reserve_bytes
        self._file: IO[str] | None = None
        self.disk_full = False  # the ballast was used: stop adding work

    @property
    def path(self) -> Path:
        return self._path

    def open(self) -> None:
        """Create the folder and the file now (a writer checks it can keep its results before
        it starts paying for them); raises OSError when it cannot."""
        if self._file is not None:
            return
        _real_folder(self._spool.directory)
        self._file = _open_text(self._path, os.O_APPEND)
        if self._reserve_bytes and not self._reserve.exists():
            _reserve(self._reserve, self._reserve_bytes)

    def append(self, batch: Batch) -> None:
        self.open()
        assert self._file is not None
        line = _encode(batch)
        # One write call per batch: once it returns the data is in the OS, which keeps it
        # through a SIGKILL of this process.
        try:
            self._write(line)
        except OSError as error:
            if error.errno not in (errno.ENOSPC, errno.EDQUOT) or not self._release_reserve():
                raise
            self._write(line)

    def _write(self, line: str) -> None:
        assert self._file is not None
        start = self._file.tell()
        try:
            self._file.write(line)
            self._file.flush()
        except OSError:
            # A line cut short by the full disk must not glue itself to the next one.
            self._file = _reopen_at(self._path, self._file, start)
            raise

    def _release_reserve(self) -> bool:
        """Free the ballast for the appends still to come; False when none was left."""
        self.disk_full = True
        if not self._reserve.exists():
            return False
        self._reserve.unlink()
        log.info("the disk is full: journal %s uses its reserve", self._path)
        return True

    def close(self) -> Path | None:
        """Close the journal and hand it over as a closed file; None when nothing was written."""
        self._reserve.unlink(missing_ok=True)
        if self._file is None:
            return None
        written = self._file.tell() > 0
        self._file.close()
        self._file = None
        if not written:
            self._path.unlink(missing_ok=True)
            return None
        # The writer's pid stays in the name: while it runs, the file is its own to merge.
        closed = self._spool.directory / f"{self._stem}-{uuid.uuid4().hex[:8]}.{os.getpid()}.jsonl"
        os.replace(self._path, closed)
        return closed


def _reserve(path: Path, size: int) -> None:
    """A file of `size` bytes that holds real disk blocks (not a sparse file)."""
    with os.fdopen(
        os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_LINK, 0o644), "wb"
    ) as handle:
        try:
            os.posix_fallocate(handle.fileno(), 0, size)
        except OSError as error:
            if error.errno != errno.EOPNOTSUPP and error.errno != errno.EINVAL:
                raise
            handle.write(b"\0" * size)  # a file system without fallocate


def _reopen_at(path: Path, handle: IO[str], offset: int) -> IO[str]:
    """Drop what a failed write left in the buffer and cut the file back to `offset`."""
    with contextlib.suppress(OSError):
        handle.close()
    fd = os.open(path, os.O_WRONLY | _NO_LINK)
    try:
        os.ftruncate(fd, offset)
    finally:
        os.close(fd)
    return _open_text(path, os.O_APPEND)


class Spool:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @classmethod
    def beside(cls, db_path: Path) -> Spool:
        return cls(db_path.with_name(db_path.name + ".pending"))

    def write(self, batches: Iterable[Batch]) -> Path:
        """Save batches as one closed file, atomically (a reader never sees half of it)."""
        _real_folder(self.directory)
        name = f"{utc_now():%Y%m%dT%H%M%S%f}-{uuid.uuid4().hex[:8]}"
        tmp = self.directory / f"{name}.tmp"
        try:
            with _open_text(tmp, os.O_EXCL | os.O_TRUNC) as handle:
                handle.writelines(_encode(batch) for batch in batches)
                handle.flush()
                os.fsync(handle.fileno())
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        final = self.directory / f"{name}.jsonl"
        os.replace(tmp, final)
        return final

    def write_aside(self, path: Path, batches: Iterable[Batch]) -> None:
        """Rows set aside (never applied): a file of their own, never through a link."""
        with _open_text(path, os.O_APPEND) as handle:
            handle.writelines(_encode(batch) for batch in batches)

    def journal(self, stem: str, *, reserve_bytes: int = 0) -> Journal:
        return Journal(self, stem, reserve_bytes=reserve_bytes)

    def ready_files(self, *, live_journals: bool = True) -> list[Path]:
        """Files a process may apply now: closed files, and journals of dead processes.
        `live_journals=False` leaves out the closed journals of a writer that still runs (a
        judge run merges its own; a reader need not do that work for it)."""
        if not self.directory.is_dir():
            return []
        ready = []
        for path in sorted(self.directory.iterdir()):
            if path.suffix == ".jsonl":
                if live_journals or not _of_live_process(path):
                    ready.append(path)
            elif path.suffix in (".open", ".reserve") and _of_dead_process(path):
                if path.suffix == ".open":
                    ready.append(path)
                else:  # the disk reserve of a journal whose writer is gone
                    with contextlib.suppress(OSError):
                        path.unlink()
        return ready

    def has_ready(self) -> bool:
        return bool(self.ready_files())

    @contextlib.contextmanager
    def taken(self, path: Path) -> Iterator[bool]:
        """Whether this process applies the ready file `path` now: True while it holds the
        file's exclusive lock and the file is still there. On a PostgreSQL store no file lock
        orders the processes of one machine, and two merging one file at once would insert
        its rows twice: the one that takes it applies it, the other passes it over."""
        try:
            handle = open(path, "rb")  # noqa: SIM115 - the lock lives as long as the handle
        except FileNotFoundError:
            yield False
            return
        with handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            yield path.exists()  # gone: another process applied it before this one took it


def read_batches(path: Path) -> list[Batch]:
    """Every complete batch in a file; a torn final line is skipped with a warning."""
    batches = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = handle.readlines()
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):
                log.warning("%s: skipping a torn last line (a write cut short)", path)
                continue
            raise ValueError(f"{path}: line {number} is not valid JSON") from None
        batches.append(Batch(record["table"], tuple(record["rows"])))
    return batches


def group_rows(batches: Sequence[Batch]) -> dict[str, list[Row]]:
    grouped: dict[str, list[Row]] = {}
    for batch in batches:
        grouped.setdefault(batch.table, []).extend(batch.rows)
    return grouped
