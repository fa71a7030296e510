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

import logging
import os
import time
from pathlib import Path

log = logging.getLogger(__name__)

# A waiter writes its note again every 0.2 s while it tries (`connection.py`).
FRESH_S = 1.0


def note_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".wanted")


def ask_for(db_path: Path) -> None:
    """Say (again) that this process waits for the file; best effort: a folder that cannot
    be written only means that nobody makes way sooner."""
    try:
        note_path(db_path).write_text(str(os.getpid()), encoding="ascii")
    except OSError as error:
        log.debug("cannot write %s: %s", note_path(db_path), error)


def got_it(db_path: Path) -> None:
    """This process has the file: remove its note (not another waiter's)."""
    path = note_path(db_path)
    try:
        if path.read_text(encoding="ascii").strip() == str(os.getpid()):
            path.unlink()
    except (OSError, ValueError):
        pass


def waited_for(db_path: Path) -> bool:
    """True while another process has said, within `FRESH_S`, that it waits for the file."""
    path = note_path(db_path)
    try:
        age_s = time.time() - path.stat().st_mtime
        if age_s > FRESH_S:
            return False
        return path.read_text(encoding="ascii").strip() != str(os.getpid())
    except (OSError, ValueError):
        return False
