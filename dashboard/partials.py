"""Files written whole or not at all: a partial file beside the target, renamed over it.

A writer writes `<name>.<pid>.partial` and renames it to `<name>` when done, so that a reader
never sees half a file. A writer killed midway (SIGKILL, a power cut) leaves its partial
behind; the next writer of the same target removes every partial whose process is gone
before it writes, so none outlives the next run. Two writers at once never touch each
other's partials: each has its own pid in the name.
"""

from __future__ import annotations

import contextlib
import glob
import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)

SUFFIX = ".partial"


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid runs (one of another user's counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def partial_path(target: Path) -> Path:
    """Where this process writes `target` before renaming it into place."""
    return target.with_name(f"{target.name}.{os.getpid()}{SUFFIX}")


def clear_stale(target: Path) -> list[Path]:
    """Remove the partials of `target` left by writers that are gone; return them."""
    removed = []
    pattern = glob.escape(target.name) + ".*" + SUFFIX
    for path in target.parent.glob(pattern):
        pid = path.name[len(target.name) + 1 : -len(SUFFIX)]
        if pid.isdigit() and (int(pid) == os.getpid() or pid_alive(int(pid))):
            continue
        with contextlib.suppress(OSError):
            path.unlink()
            removed.append(path)
    legacy = target.with_name(target.name + SUFFIX)  # the name before pids were added
    if legacy.exists():
        with contextlib.suppress(OSError):
            legacy.unlink()
            removed.append(legacy)
    if removed:
        log.info("removed %d partial file(s) left by a killed writer of %s", len(removed), target)
    return removed
