"""CPU seconds by group of processes (bench/proc_cpu.py), on real child processes."""

from __future__ import annotations

import subprocess
import sys
import time

from bench.proc_cpu import CpuByGroup

_BUSY = "import time\nend = time.process_time() + {s}\nwhile time.process_time() < end: pass"


def _busy(seconds: float) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", _BUSY.format(s=seconds)])


def test_a_named_child_and_an_unnamed_one_count_in_their_groups_after_they_exit() -> None:
    with CpuByGroup(rest="other", every_s=0.05) as cpu:
        named = _busy(0.6)
        cpu.group("worker", named.pid)
        other = _busy(0.3)
        named.wait()
        other.wait()
        time.sleep(0.1)  # a last reading would come after they exit: it keeps their figures
    used = cpu.seconds()
    # Each used at least its busy loop, less what one reading interval can miss (its start-up
    # adds to it).
    assert used["worker"] >= 0.6 - 0.05
    assert used["other"] >= 0.3 - 0.05
    assert used["worker"] > used["other"]


def test_what_was_used_before_the_block_does_not_count() -> None:
    before = _busy(0.4)
    before_pid = before.pid
    time.sleep(0.5)  # it has used about 0.4 s and is still busy or done
    with CpuByGroup(rest="other", every_s=0.05) as cpu:
        cpu.group("before", before_pid)
        time.sleep(0.1)
    before.wait()
    assert cpu.seconds().get("before", 0.0) < 0.3
