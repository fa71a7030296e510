"""Where a benchmark's CPU goes: the CPU seconds of this process's descendants, by group.

A thread reads `/proc/<pid>/stat` of every descendant of this process every `every_s`
seconds and keeps each one's last user + system time, so a process that has exited still
counts with what it had used at its last reading (at most `every_s` of it is missed). A
descendant belongs to the group of the nearest ancestor named in `groups` (the dashboard's
server, the import), else to `rest` (here: the browser and the driver that runs it). Linux
only; elsewhere the figures are empty.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent PID, CPU seconds of user + system) of a process, None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()  # the name, in parentheses, may hold spaces
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICK


def process_cpu_s(pid: int) -> float:
    """CPU seconds (user + system, all threads) a live process has used; 0.0 once it is
    gone or off Linux."""
    seen = _stat(pid)
    return seen[1] if seen is not None else 0.0


class CpuByGroup:
    """`with CpuByGroup(rest="browser") as cpu: ...; cpu.group("server", pid)`; then
    `cpu.seconds()`: CPU seconds per group while the block ran."""

    def __init__(self, *, rest: str, every_s: float = 0.5) -> None:
        self.rest = rest
        self.every_s = every_s
        self._groups: dict[int, str] = {}
        self._parents: dict[int, int] = {}
        self._used: dict[int, float] = {}
        self._before: dict[int, float] = {}  # what the processes alive at the start had used
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="cpu-by-group", daemon=True)

    def group(self, name: str, pid: int) -> None:
        """`pid` and its descendants count as `name`."""
        self._groups[pid] = name

    def __enter__(self) -> CpuByGroup:
        self._sample()
        self._before = dict(self._used)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self._sample()

    def _sample(self) -> None:
        if not Path("/proc").is_dir():
            return
        me = os.getpid()
        found: dict[int, tuple[int, float]] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit() and (seen := _stat(int(entry))) is not None:
                found[int(entry)] = seen
        for pid, (parent, _) in found.items():
            self._parents[pid] = parent
        for pid, (_, used) in found.items():
            if self._descends(pid, me):
                self._used[pid] = used

    def _descends(self, pid: int, root: int) -> bool:
        seen = 0
        while pid not in (0, 1) and seen < 64:
            pid = self._parents.get(pid, 0)
            if pid == root:
                return True
            seen += 1
        return False

    def _group_of(self, pid: int) -> str:
        while pid not in (0, 1):
            if pid in self._groups:
                return self._groups[pid]
            pid = self._parents.get(pid, 0)
        return self.rest

    def seconds(self) -> Mapping[str, float]:
        """CPU seconds per group (this process's own not included), largest first."""
        totals: dict[str, float] = {}
        for pid, used in self._used.items():
            name = self._group_of(pid)
            totals[name] = totals.get(name, 0.0) + used - self._before.get(pid, 0.0)
        return dict(sorted(totals.items(), key=lambda kv: -kv[1]))


def tree_cpu_s(root: int) -> float:
    """CPU seconds of a process tree that is not ours (e.g. PostgreSQL's, which daemonizes):
    user + system time of `root` and its live descendants, plus what each of them has reaped
    of its ended children (a backend that has ended counts in its parent's reaped time)."""
    if not Path("/proc").is_dir():
        return 0.0
    parents: dict[int, int] = {}
    used: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = text.rsplit(")", 1)[1].split()
        parents[int(entry)] = int(fields[1])
        used[int(entry)] = sum(int(f) for f in fields[11:15]) / _TICK
    total = 0.0
    for pid, seconds in used.items():
        walk, steps = pid, 0
        while walk not in (0, 1) and walk != root and steps < 64:
            walk, steps = parents.get(walk, 0), steps + 1
        if walk == root:
            total += seconds
    return total
