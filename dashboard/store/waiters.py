"""Who is waiting for the database file: a small note beside it, `<file>.wanted`.

DuckDB lets one process hold a file at a time. A process that finds it held writes its PID
into the note while it tries (every 0.2 s), and removes the note once it has the file or
gives up. The dashboard, which keeps the file open for a moment after each unit of work
(`Database(keep_warm_s=...)`), lets go of it as soon as a note of another process is fresh,
and holds back its next openings for a moment, so that a CLI import or a judge run gets the
file between the labellers' saves instead of after them. A note older than `FRESH_S` (of a
waiter that was killed) is ignored: a stale note cannot make the dashboard give up the file
for good.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import time
from pathlib import Path

log = logging.getLogger(__name__)

# A waiter writes its note again every 0.2 s while it tries (`connection.py`).
FRESH_S = 1.0


def note_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".wanted")


def ask_for(db_path: Path) -> None:
    """Say (again) that this process waits for the file; best effort: a folder that cannot
    be written only means that nobody makes way sooner. The note is never written through a
    symbolic link (a planted link is left alone, and nobody makes way sooner either)."""
    path = note_path(db_path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as error:
        log.debug("cannot write %s: %s", path, error)
        return
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode("ascii"))
    except OSError as error:
        log.debug("cannot write %s: %s", path, error)
    finally:
        os.close(fd)


def _read(path: Path) -> tuple[float, str] | None:
    """The note's age in seconds and its text; None when there is none, or it is not a plain
    file of its own (a link is never followed)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        return time.time() - info.st_mtime, os.read(fd, 32).decode("ascii", "replace").strip()
    except OSError:
        return None
    finally:
        os.close(fd)


def got_it(db_path: Path) -> None:
    """This process has the file: remove its note (not another waiter's)."""
    path = note_path(db_path)
    found = _read(path)
    if found is not None and found[1] == str(os.getpid()):
        with contextlib.suppress(OSError):
            path.unlink()


def waited_for(db_path: Path) -> bool:
    """True while another process has said, within `FRESH_S`, that it waits for the file. A
    note dated in the future (a clock set back, or a planted file) is as stale as an old one:
    otherwise it would hold every unit of work back until someone deleted it."""
    found = _read(note_path(db_path))
    if found is None:
        return False
    age_s, pid = found
    return -0.1 <= age_s <= FRESH_S and pid != str(os.getpid())
