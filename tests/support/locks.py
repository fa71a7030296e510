"""Another process holding the DuckDB file, as a long `judgeboard import` or a dashboard would."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.paths import REPO_ROOT

HOLDER = """
import sys
from dashboard.store import Store
store = Store(sys.argv[1])
with store.connection():
    print("holding", flush=True)
    sys.stdin.readline()
"""


@contextmanager
def database_held(path: Path) -> Iterator[subprocess.Popen[str]]:
    """The file is held by a child process until the block ends, or until the test lets go
    early with `release(process)`; a `Store` of this process meanwhile waits, then spools
    its writes or gives up with StoreBusy."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        cwd=REPO_ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "holding"
        yield process
    finally:
        if process.poll() is None:
            process.communicate("\n", timeout=60)
    assert process.returncode == 0


def release(process: subprocess.Popen[str]) -> None:
    """Let go of the file before the block ends."""
    process.communicate("\n", timeout=60)
    assert process.returncode == 0
