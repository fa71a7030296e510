"""Writes that could not reach the database yet, kept on disk until they can.

Two writers use it:
- a write that finds the database held by another process for longer than it will wait (a
  person's rating while an import runs) is saved as a closed batch file;
- the judge runner journals every finished call the moment it arrives, so a run killed with
  SIGKILL loses nothing it has paid for.

Files live in `<db>.pending/`. A closed file `*.jsonl` is complete: whichever process next holds
the database applies it and deletes it. A journal still being written is `*.<pid>.open`; it is
applied only after it is closed, or once the process that wrote it is gone. Each line is one
JSON object `{"table": ..., "rows": [...]}`; a torn last line (a write cut by a kill) is skipped.
Applying is idempotent: every row carries its id, and the store skips ids it already has.
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from dashboard.ids import utc_now

log = logging.getLogger(__name__)

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Batch:
    table: str
    rows: tuple[Row, ...]


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"cannot spool a value of type {type(value).__name__}")


def _encode(batch: Batch) -> str:
    return json.dumps({"table": batch.table, "rows": list(batch.rows)}, default=_default) + "\n"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Journal:
    """An append-only file of batches, flushed to the OS on every append."""

    def __init__(self, spool: Spool, stem: str) -> None:
        self._spool = spool
        self._stem = stem
        self._path = spool.directory / f"{stem}.{os.getpid()}.open"
        self._file: IO[str] | None = None

    def append(self, batch: Batch) -> None:
        if self._file is None:
            self._spool.directory.mkdir(parents=True, exist_ok=True)
            self._file = open(self._path, "a", encoding="utf-8")  # noqa: SIM115 (kept open)
        # One write call per batch: once it returns the data is in the OS, which keeps it
        # through a SIGKILL of this process.
        self._file.write(_encode(batch))
        self._file.flush()

    def close(self) -> Path | None:
        """Close the journal and hand it over as a closed file; None when nothing was written."""
        if self._file is None:
            return None
        self._file.close()
        self._file = None
        closed = self._spool.directory / f"{self._stem}-{uuid.uuid4().hex[:8]}.jsonl"
        os.replace(self._path, closed)
        return closed


class Spool:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @classmethod
    def beside(cls, db_path: Path) -> Spool:
        return cls(db_path.with_name(db_path.name + ".pending"))

    def write(self, batches: Iterable[Batch]) -> Path:
        """Save batches as one closed file, atomically (a reader never sees half of it)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        name = f"{utc_now():%Y%m%dT%H%M%S%f}-{uuid.uuid4().hex[:8]}"
        tmp = self.directory / f"{name}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.writelines(_encode(batch) for batch in batches)
            handle.flush()
            os.fsync(handle.fileno())
        final = self.directory / f"{name}.jsonl"
        os.replace(tmp, final)
        return final

    def journal(self, stem: str) -> Journal:
        return Journal(self, stem)

    def ready_files(self) -> list[Path]:
        """Files any process may apply now: closed files, and journals of dead processes."""
        if not self.directory.is_dir():
            return []
        ready = []
        for path in sorted(self.directory.iterdir()):
            if path.suffix == ".jsonl":
                ready.append(path)
            elif path.suffix == ".open":
                pid = path.stem.rsplit(".", 1)[-1]
                if pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
                    ready.append(path)
        return ready

    def has_ready(self) -> bool:
        return bool(self.ready_files())


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
