"""The lock file beside the database (`dashboard/store/gate.py`): judgeboard opens the file only
while it holds `<db>.lock`, from before DuckDB reads the file's header until after its last
connection has closed; a forked child of a process that has the file open refuses to use it;
the lock file is never a symbolic link."""

from __future__ import annotations

import fcntl
import multiprocessing as mp
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dashboard.store import Store, StoreBusy
from dashboard.store.errors import UnsafeFile
from dashboard.store.gate import ForkedWhileOpen, lock_path

# file_store: the lock file beside the DuckDB file; not run on PostgreSQL.
pytestmark = pytest.mark.file_store

# A process that takes the lock file as judgeboard does, writes its PID into it, says so, and
# keeps it until its stdin closes.
_HOLD_LOCK = """
import fcntl, os, sys

fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0); os.pwrite(fd, str(os.getpid()).encode(), 0)
print("held", flush=True)
sys.stdin.read()
"""


def _lock_is_free(path: Path) -> bool:
    fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def test_the_lock_file_is_held_exactly_while_a_connection_is_open(store: Store) -> None:
    store.list_datasets()  # created and migrated
    assert _lock_is_free(store.path)
    with store.connection():
        assert not _lock_is_free(store.path)
        with store.connection():  # a second connection of the process needs no second lock
            assert not _lock_is_free(store.path)
        assert not _lock_is_free(store.path)
    assert _lock_is_free(store.path)


def test_the_database_is_not_opened_while_another_process_holds_the_lock_file(
    store: Store,
) -> None:
    """The window DuckDB leaves open: a process between its last commit and the end of its
    close holds no DuckDB lock that another could see before reading the header, but it holds
    the lock file, and judgeboard waits for that. Before the gate, this opened at once."""
    store.list_datasets()
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_LOCK, str(lock_path(store.path))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(StoreBusy) as busy, store.connection(wait_s=0.3):
            pass
        assert f"process {holder.pid}" in str(busy.value)
        started = time.monotonic()
        assert holder.stdin is not None
        holder.stdin.close()  # the holder lets go; a waiting opener gets the file
        with store.connection(wait_s=10) as con:
            assert con.execute("SELECT count(*) FROM datasets").fetchone() == (0,)
        assert time.monotonic() - started < 10
    finally:
        holder.kill()
        holder.wait()


def test_a_symlinked_lock_file_is_refused_and_its_target_left_alone(
    store: Store, tmp_path: Path
) -> None:
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    lock_path(store.path).symlink_to(target)
    with pytest.raises(UnsafeFile, match="is a symbolic link"):
        store.list_datasets()
    assert target.read_text() == "keep me\n"
    assert not store.path.exists()  # nothing was opened or created


def _child_uses_the_store(path: str, out: mp.Queue) -> None:  # type: ignore[type-arg]
    try:
        Store(path, wait_s=1).list_datasets()
        out.put("opened")
    except ForkedWhileOpen as error:
        out.put(f"refused: {error}")
    except Exception as error:  # noqa: BLE001 (reported to the parent)
        out.put(f"other: {type(error).__name__}: {error}")


def test_a_child_forked_while_the_store_is_open_refuses_it(sample_store: Store) -> None:
    fork = mp.get_context("fork")
    out = fork.Queue()
    with sample_store.connection():
        child = fork.Process(target=_child_uses_the_store, args=(sample_store.url, out))
        child.start()
        answer = out.get(timeout=60)
        child.join(timeout=30)
    assert answer.startswith("refused: This process was forked while its parent had"), answer
    assert "'spawn'" in answer
    assert [d.name for d in sample_store.list_datasets()]  # the parent's file is intact


def test_a_spawned_child_uses_the_store_after_the_parent(sample_store: Store) -> None:
    spawn = mp.get_context("spawn")
    out = spawn.Queue()
    sample_store.list_datasets()
    child = spawn.Process(target=_child_uses_the_store, args=(sample_store.url, out))
    child.start()
    assert out.get(timeout=120) == "opened"
    child.join(timeout=30)


def test_a_child_forked_while_the_store_was_closed_may_use_it(sample_store: Store) -> None:
    fork = mp.get_context("fork")
    out = fork.Queue()
    sample_store.list_datasets()  # opened and closed again before the fork
    child = fork.Process(target=_child_uses_the_store, args=(sample_store.url, out))
    child.start()
    assert out.get(timeout=60) == "opened"
    child.join(timeout=30)
