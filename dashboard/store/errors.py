"""Faults of the environment: the disk, the database file, its schema and its journal.

Each is a `StoreError` whose text is the one line a person reads, saying what happened and
what to do, and whose `status` is the exit status of `judgeboard` (the CLI maps them once, in
`dashboard/cli/__init__.py`; the dashboard once, in `dashboard/app.py`). They are raised where
DuckDB's or the operating system's errors are caught (`connection.py`, the store, the journal):
`fault_of` reads an error, and every error it was raised from, for one of them, so that no
feature's own message (an import's "cannot read the file") ever stands in for a full disk.

    status  fault
    3       the database is held by another process for longer than the wait (`StoreBusy`)
    4       the disk is full (`DiskFull`)
    5       the database or its folder cannot be written (`ReadOnlyDatabase`)
    6       the schema is newer than this judgeboard, or older on a read-only file
    7       the file is not a judgeboard database, or it is damaged (`NotADatabase`)
    8       the journal beside the database cannot be written (`JournalUnusable`)
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterator
from pathlib import Path

BUSY_STATUS = 3
DISK_FULL_STATUS = 4
READ_ONLY_STATUS = 5
SCHEMA_STATUS = 6
NOT_A_DATABASE_STATUS = 7
JOURNAL_STATUS = 8


class StoreError(RuntimeError):
    """An environment fault, as the one line to show; `status` is the CLI's exit status."""

    status = 2


class StoreBusy(StoreError):
    """Another process held the database file for longer than we were willing to wait."""

    status = BUSY_STATUS

    def __init__(self, path: Path | str, waited_s: float, holder_pid: int | None) -> None:
        holder = f"process {holder_pid}" if holder_pid else "another process"
        super().__init__(
            f"The database {path} is in use by {holder}; waited {waited_s:.1f} s. "
            "Let that command finish, or pass a longer wait (--wait SECONDS)."
        )
        self.path = path
        self.holder_pid = holder_pid


class WriteConflict(StoreError):
    """Two writes of one process at once changed the same row (DuckDB lets the first win): a
    label superseded by an import and by a save, say. Nothing of the second was written."""

    status = BUSY_STATUS

    def __init__(self, path: Path | str) -> None:
        super().__init__(
            f"Another change to the same ratings or verdicts in {path} was being saved at the "
            "same moment, so nothing of this one was saved. Run it again."
        )
        self.path = path


class DiskFull(StoreError):
    status = DISK_FULL_STATUS

    def __init__(self, path: Path | str, *, kept: str = "") -> None:
        super().__init__(
            f"The disk holding {path} is full, so nothing more could be written{kept}. "
            "Free some space on it, then run the command again."
        )
        self.path = path


class ReadOnlyDatabase(StoreError):
    status = READ_ONLY_STATUS

    def __init__(self, path: Path | str) -> None:
        super().__init__(
            f"The database {path} is read-only (its file or its folder cannot be written), so "
            "this change was not saved. Browsing, metrics, the report and exports still work; "
            "to save changes, make the file and its folder writable (chmod u+w) or copy the "
            "file to a writable folder and open that copy."
        )
        self.path = path


class CannotCreateDatabase(StoreError):
    status = READ_ONLY_STATUS

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(
            f"Cannot create the database {path}: {reason}. Pass --db a file in a folder you can "
            "write to (or set JUDGEBOARD_DB)."
        )
        self.path = path


class CannotOpenDatabase(StoreError):
    status = NOT_A_DATABASE_STATUS

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(
            f"Cannot open the database {path}: {reason}. Check the path (--db or "
            "JUDGEBOARD_DB) and that the file is readable."
        )
        self.path = path


class ServerUnreachable(StoreError):
    """The PostgreSQL store's server cannot be reached or refused us."""

    status = BUSY_STATUS

    def __init__(self, location: str, reason: str) -> None:
        super().__init__(
            f"Cannot use the PostgreSQL database {location}: {reason}. Check that the server "
            "runs and the URL (--db or JUDGEBOARD_DB: postgresql://USER@HOST:PORT/DB)."
        )
        self.location = location


class NewerSchema(StoreError):
    status = SCHEMA_STATUS

    def __init__(self, path: Path | str, *, found: int, known: int) -> None:
        super().__init__(
            f"The database {path} was written by a newer judgeboard (schema version {found}; "
            f"this one knows versions up to {known}), so it is not opened. Upgrade judgeboard "
            "(pip install --upgrade judgeboard) to open it, or pass --db another file."
        )
        self.path = path


class OlderSchemaReadOnly(StoreError):
    status = SCHEMA_STATUS

    def __init__(self, path: Path | str, *, found: int, known: int) -> None:
        super().__init__(
            f"The database {path} is read-only and has an older schema (version {found}; this "
            f"judgeboard needs version {known}), which cannot be upgraded on a read-only file. "
            "Make it writable once (chmod u+w) and open it to upgrade it, or open a writable "
            "copy of it."
        )
        self.path = path


class NotADatabase(StoreError):
    status = NOT_A_DATABASE_STATUS

    def __init__(self, path: Path | str, what: str, todo: str = "") -> None:
        super().__init__(
            f"{path} {what}. {todo or 'Pass --db the judgeboard database you meant, or a new '}"
            + ("" if todo else "file name to start an empty one.")
        )
        self.path = path


# A DuckDB file names the version that wrote it in its first block (e.g. b"v2.0.1" at 52).
_WRITER = re.compile(rb"v(\d+\.\d+\.\d+)")


def duckdb_writer(path: Path) -> str | None:
    """The DuckDB version that wrote the file, from its header (None: not found). Read only
    after DuckDB refused the file: this process then holds no lock on it to lose."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(4096)
    except OSError:
        return None
    found = _WRITER.search(header[:256])
    return found.group(1).decode("ascii") if found else None


class WrittenByNewerDuckDB(NotADatabase):
    """A file of a newer DuckDB storage format (DuckDB 2.x), which DuckDB 1.5 cannot read."""

    def __init__(self, path: Path, writer: str | None, ours: str) -> None:
        new = path.with_name(f"{path.stem}-duckdb{ours}{path.suffix}")
        command = (
            'python -c "import duckdb; c = duckdb.connect(); '
            f"c.execute(\\\"ATTACH '{path}' AS old (READ_ONLY)\\\"); "
            f"c.execute(\\\"ATTACH '{new}' AS new (STORAGE_VERSION 'v{ours}')\\\"); "
            "c.execute('COPY FROM DATABASE old TO new')\""
        )
        super().__init__(
            path,
            f"was written by DuckDB {writer or 'of a newer version'}, whose file format this "
            f"judgeboard (DuckDB {ours}) cannot read",
            "Convert it once, with the DuckDB that wrote it (the judgeboard you used before, or "
            f"pip install 'duckdb>=2' in another environment): {command}; then pass --db {new} "
            "(docs/faults.md, 'A database written by DuckDB 2').",
        )


class JournalUnusable(StoreError):
    status = JOURNAL_STATUS

    def __init__(self, directory: Path, reason: str, consequence: str) -> None:
        super().__init__(
            f"The journal folder {directory} {reason}, so {consequence}. It keeps the writes "
            "that cannot reach the database at once: make it a writable folder (move a file of "
            "that name away, or chmod u+w it) and try again."
        )
        self.directory = directory


class UnsafeFile(StoreError):
    """A file judgeboard writes beside the database is a symbolic link (or otherwise not a
    plain file of ours): it is never followed or written through."""

    status = READ_ONLY_STATUS

    def __init__(self, path: Path | str, what: str) -> None:
        super().__init__(
            f"{path} {what}, so judgeboard does not write through it (a link there could make "
            "it overwrite another file). Remove it (rm) and run the command again."
        )
        self.path = path


class CannotWriteFile(StoreError):
    """A file a command writes (a report, an export) that the system refused."""

    status = READ_ONLY_STATUS

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(f"Cannot write {path}: {reason}. Choose a place you can write to.")
        self.path = path


class FileProblem(StoreError):
    """Any other refused file operation, with the operating system's reason."""

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(f"{path}: {reason}.")
        self.path = path


def os_fault(error: OSError) -> StoreError:
    """A refused file operation of a command (writing --out, say) as its one line."""
    path = Path(error.filename) if error.filename else Path(".")
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return DiskFull(path)
    reason = (os.strerror(error.errno) if error.errno else str(error)).lower()
    if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return CannotWriteFile(path, reason)
    return FileProblem(path, reason)


def journal_reason(directory: Path, error: OSError) -> str:
    """Why the journal folder cannot be used, in words."""
    if directory.is_symlink():
        return "is a symbolic link, which judgeboard does not write through"
    if directory.exists() and not directory.is_dir():
        return "is not a folder (a file has its name)"
    if error.errno == errno.ENOSPC:
        return "is on a full disk"
    reason = os.strerror(error.errno) if error.errno else str(error)
    return f"cannot be written ({reason.lower()})"


# DuckDB's messages, matched on their stable parts.
_NO_SPACE = re.compile(r"No space left on device|Disk quota exceeded", re.IGNORECASE)
_READ_ONLY = re.compile(
    r"attached in read-only mode|Read-only file system|database is read-only", re.IGNORECASE
)
_NOT_DUCKDB = re.compile(r"not a valid DuckDB database file", re.IGNORECASE)
_DAMAGED = re.compile(
    r"Corrupt database file|checksum|Could not read enough bytes|database file .*corrupt"
    r"|Failed to load metadata",
    re.IGNORECASE,
)
# DuckDB's words, and PostgreSQL's for two transactions that changed the same row at once.
_CONFLICT = re.compile(
    r"Conflict on update|could not serialize access|deadlock detected", re.IGNORECASE
)
_STORAGE_VERSION = re.compile(r"Trying to read a database file with version number", re.I)
DAMAGED = "is damaged: DuckDB cannot read it (part of the file is missing or overwritten)"
DAMAGED_TODO = (
    "Restore it from a backup, or rebuild it from an export (judgeboard import), and pass "
    "--db that file."
)
NOT_DUCKDB = "is not a judgeboard database (it is not a DuckDB file, or its header is damaged)"


def _chain(error: BaseException) -> Iterator[BaseException]:
    """The error, then each error it was raised from or while handling, oldest last."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _names_database(text: str, path: Path | str) -> bool:
    return str(path) in text or (isinstance(path, Path) and path.name in text)


def fault_of(error: BaseException, path: Path | str) -> StoreError | None:
    """The environment fault behind `error` (a database at `path`), or None when the error is
    the work's own (bad input, a bug). The whole chain is read: the oldest fault wins, since
    a follow-on error (a failed ROLLBACK after a failed COMMIT) must not hide it."""
    found: StoreError | None = None
    for cause in _chain(error):
        fault = _fault_of_one(cause, path)
        if fault is not None:
            found = fault
    return found


def _fault_of_one(error: BaseException, path: Path | str) -> StoreError | None:
    if isinstance(error, StoreError):
        return error
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return DiskFull(path)
    if type(error).__module__.lstrip("_").split(".")[0] != "duckdb":
        return None  # an OSError of our own files says what it is by its errno
    text = str(error)
    if _NO_SPACE.search(text):
        return DiskFull(path)
    if _READ_ONLY.search(text):
        return ReadOnlyDatabase(path)
    if _CONFLICT.search(text):
        return WriteConflict(path)
    if _STORAGE_VERSION.search(text):
        return NotADatabase(path, "is a DuckDB file of a storage version this DuckDB cannot read")
    if _NOT_DUCKDB.search(text) and _names_database(text, path):
        return NotADatabase(path, NOT_DUCKDB)
    if _DAMAGED.search(text) and (_names_database(text, path) or "Corrupt database" in text):
        return NotADatabase(path, DAMAGED, DAMAGED_TODO)
    return None
