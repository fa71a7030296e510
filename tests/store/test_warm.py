"""The dashboard's store keeps the file open for a moment after each unit of work, and lets go
of it at once when another judgeboard process waits for it (`dashboard/store/waiters.py`).

Each check uses a real second process: one that opens the file once with plain DuckDB (a
program that knows nothing of the note), or `judgeboard datasets`, which waits for the file
and says so in the note.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dashboard.store import Store, waiters
from tests.paths import REPO_ROOT

# file_store: keeping the DuckDB file open and the waiting notes beside it; not run on PostgreSQL.
pytestmark = pytest.mark.file_store

ENTRY = "import sys; from dashboard.cli import main; sys.exit(main())"
OPEN_ONCE = "import sys, duckdb; duckdb.connect(sys.argv[1]).close()"


def _opens_once(db: Path) -> bool:
    """Whether another process, trying once with plain DuckDB, gets the file."""
    command = [sys.executable, "-c", OPEN_ONCE, str(db)]
    return subprocess.run(command, capture_output=True, check=False).returncode == 0


def _judgeboard_reads(db: Path, *, wait_s: float) -> int:
    """`judgeboard datasets` in another process, waiting up to `wait_s`: its status."""
    command = [sys.executable, "-c", ENTRY, "--db", str(db), "--wait", str(wait_s), "datasets"]
    return subprocess.run(command, cwd=REPO_ROOT, capture_output=True, check=False).returncode


def _released(db: Path, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if _opens_once(db):
            return True
        time.sleep(0.1)
    return False


def test_a_warm_store_holds_the_file_after_a_unit_of_work_then_lets_go(
    sample_store: Store,
) -> None:
    warm = Store(sample_store.path, keep_warm_s=2.0)
    assert warm.dataset_names()  # one unit of work, ended
    assert not _opens_once(warm.path)  # still held: the next unit joins the open file
    assert warm.dataset_names()  # a unit of work inside the window keeps it for 2 s more
    assert _released(warm.path, within_s=10.0)  # and once idle, the file is free again


def test_a_store_that_is_not_warm_lets_go_when_the_unit_ends(sample_store: Store) -> None:
    assert sample_store.dataset_names()
    assert _opens_once(sample_store.path)


def test_a_waiting_judgeboard_process_gets_the_file_from_a_warm_store(
    sample_store: Store,
) -> None:
    """The store would keep the file for 60 s; `judgeboard datasets`, finding it held, says
    that it waits (the note), and the store lets go at once."""
    warm = Store(sample_store.path, keep_warm_s=60.0)
    assert warm.dataset_names()
    assert not _opens_once(warm.path)
    assert _judgeboard_reads(warm.path, wait_s=20.0) == 0
    assert not waiters.note_path(warm.path).exists()  # the waiter took its note away
    assert warm.dataset_names()  # and the store works on, keeping the file warm again
    assert not _opens_once(warm.path)


def test_a_stale_note_does_not_keep_the_store_from_holding_the_file(
    sample_store: Store,
) -> None:
    note = waiters.note_path(sample_store.path)
    note.write_text("1", encoding="ascii")  # a waiter that was killed long ago
    old = time.time() - 10 * waiters.FRESH_S
    os.utime(note, (old, old))
    warm = Store(sample_store.path, keep_warm_s=30.0)
    assert warm.dataset_names()
    assert not _opens_once(warm.path)  # held: the note is not fresh


def test_a_fresh_note_of_another_process_is_a_waiter_and_this_process_own_is_not(
    tmp_path: Path,
) -> None:
    db = tmp_path / "x.duckdb"
    assert not waiters.waited_for(db)  # no note
    waiters.ask_for(db)
    assert waiters.note_path(db).read_text(encoding="ascii") == str(os.getpid())
    assert not waiters.waited_for(db)  # this process's own
    waiters.note_path(db).write_text("1", encoding="ascii")
    assert waiters.waited_for(db)  # another process's, fresh
    waiters.got_it(db)
    assert waiters.note_path(db).exists()  # another waiter's note is not ours to remove
    waiters.ask_for(db)
    waiters.got_it(db)
    assert not waiters.note_path(db).exists()


def test_a_note_that_cannot_be_written_only_means_nobody_makes_way(tmp_path: Path) -> None:
    db = tmp_path / "missing-folder" / "x.duckdb"
    waiters.ask_for(db)  # no error: the folder does not exist
    assert not waiters.waited_for(db)
    waiters.got_it(db)


def test_a_note_dated_in_the_future_is_stale(sample_store: Store) -> None:
    """A planted note with a future date held every unit of work back (0.04 s -> 1.19 s a
    unit) until someone deleted it; it is as stale as an old one."""
    note = waiters.note_path(sample_store.path)
    note.write_text("1", encoding="ascii")
    future = time.time() + 3600
    os.utime(note, (future, future))
    assert not waiters.waited_for(sample_store.path)
    warm = Store(sample_store.path, keep_warm_s=30.0)
    assert warm.dataset_names()
    assert not _opens_once(warm.path)  # held: the note does not make the store make way


def test_the_note_is_never_written_through_a_symbolic_link(tmp_path: Path) -> None:
    db = tmp_path / "x.duckdb"
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    waiters.note_path(db).symlink_to(target)
    waiters.ask_for(db)  # a planted link overwrote its target with a PID
    assert target.read_text() == "keep me\n"
    target.write_text("1")  # a link to another process's note-like file is not a note either
    os.utime(target)
    assert not waiters.waited_for(db)
    waiters.got_it(db)
    assert target.read_text() == "1"
