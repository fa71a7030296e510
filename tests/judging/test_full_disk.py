"""A `judgeboard judge` on a disk that fills up mid-run keeps every call it paid for, and the
rerun does not pay for them again; a journal that cannot be written stops a run before its
first call. Real LiteLLM against the loopback server, whose delivered requests are counted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard.store import Store
from dashboard.store.errors import DISK_FULL_STATUS, JOURNAL_STATUS
from dashboard.store.journal import read_batches
from tests.judging.conftest import KEY_ENV, SECRET_KEY, seed
from tests.judging.test_sigkill import JUDGES, write_panel
from tests.paths import REPO_ROOT
from tests.support.filesystems import fill, small_disk
from tests.support.judge_server import JudgeServer, ModelScript

# file_store: the DuckDB file's disk and journal (PostgreSQL has none); not run on PostgreSQL.
pytestmark = pytest.mark.file_store

N_ITEMS = 10  # 20 responses x 2 judges = 40 calls


def _judge(db: Path, panel: Path) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "dashboard.cli", "--db", str(db), "--wait", "10", "judge"]
    command += ["--panel", str(panel), "--rubric", "likert-rag", "--no-progress"]
    command += ["--flush-every", "600"]  # results stay in the journal until the run ends
    env = {**os.environ, KEY_ENV: SECRET_KEY, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        command, env=env, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _journaled_ok_calls(store: Store) -> int:
    """Ok calls in every journal file of `<db>.pending/`, open or closed."""
    folder = store.spool.directory
    paths = [*folder.glob("*.open"), *folder.glob("*.jsonl")] if folder.is_dir() else []
    return sum(
        1
        for path in paths
        for batch in read_batches(path)
        if batch.table == "judge_calls"
        for row in batch.rows
        if row["status"] == "ok"
    )


def _stored_ok_calls(store: Store) -> int:
    with store.connection() as con:
        row = con.execute("SELECT count(*) FROM judge_calls WHERE status = 'ok'").fetchone()
    return int(row[0]) if row else -1


def test_a_run_on_a_full_disk_keeps_its_paid_calls_and_the_rerun_pays_nothing_twice(
    server: JudgeServer, tmp_path: Path
) -> None:
    server.reset_stats()
    panel = write_panel(tmp_path / "panel.toml", server)
    with small_disk(tmp_path / "disk", size_kb=16384) as disk:
        store = Store(disk / "judge.duckdb", wait_s=20)
        seed(store, n_items=N_ITEMS)
        for name in JUDGES:  # 6 calls each, then every request waits
            server.script(name, ModelScript(latency_ms=5, hang_from=7))
        process = _judge(store.path, panel)
        try:
            assert server.wait_for(
                lambda: (
                    all(server.stats(j).hanging == 2 for j in JUDGES)
                    and _journaled_ok_calls(store) == 12
                ),
                timeout_s=90,
            ), f"journaled {_journaled_ok_calls(store)}"
            filler = fill(disk)
            for name in JUDGES:
                server.script(name, ModelScript(latency_ms=5))
            server.release_hangs()
            _, err = process.communicate(timeout=120)
        finally:
            if process.poll() is None:
                process.kill()
        delivered = sum(server.stats(j).completed for j in JUDGES)
        assert 12 < delivered < 40  # the run stopped once the disk was full
        assert process.returncode == DISK_FULL_STATUS, err
        assert err.splitlines() == [
            f"judgeboard judge: error: The disk holding {store.path} is full, so nothing more "
            f"could be written (the judge run stopped after {delivered} paid calls, all kept: "
            f"in the database, or in the journal {store.spool.directory} until there is space; "
            "a rerun does not pay for them again). Free some space on it, then run the command "
            "again."
        ]
        assert _journaled_ok_calls(store) + _stored_ok_calls_without_applying(store) == delivered

        filler.unlink()
        rerun = _judge(store.path, panel)
        out, err = rerun.communicate(timeout=120)
        assert rerun.returncode == 0, err
        for name in JUDGES:
            stats = server.stats(name)
            assert stats.completed == 2 * N_ITEMS  # both runs together: each response once
            assert max(stats.completed_prompts.values()) == 1
        assert _stored_ok_calls(store) == 4 * N_ITEMS
        assert _journaled_ok_calls(store) == 0


def _stored_ok_calls_without_applying(store: Store) -> int:
    """Ok calls already in the database, read without applying the journal first."""
    with store.db.connect() as con:
        row = con.execute("SELECT count(*) FROM judge_calls WHERE status = 'ok'").fetchone()
    return int(row[0]) if row else -1


def test_a_journal_that_is_a_file_stops_the_run_before_it_pays(
    store: Store, server: JudgeServer, tmp_path: Path
) -> None:
    server.reset_stats()
    seed(store, n_items=2)
    store.spool.directory.write_text("not a folder\n", encoding="utf-8")
    for name in JUDGES:
        server.script(name, ModelScript(latency_ms=1))
    process = _judge(store.path, write_panel(tmp_path / "panel.toml", server))
    _, err = process.communicate(timeout=120)
    assert process.returncode == JOURNAL_STATUS, err
    assert err.splitlines() == [
        f"judgeboard judge: error: The journal folder {store.spool.directory} is not a folder "
        "(a file has its name), so the judge run did not start (it keeps every paid call "
        "there). It keeps the writes that cannot reach the database at once: make it a "
        "writable folder (move a file of that name away, or chmod u+w it) and try again."
    ]
    assert sum(server.stats(j).completed + server.stats(j).hanging for j in JUDGES) == 0
