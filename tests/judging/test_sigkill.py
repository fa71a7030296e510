"""A `judgeboard judge` killed with SIGKILL midway resumes, and nothing is paid for twice."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard.judging import BackgroundLoop, load_panel, load_rubric, plan_run, run_plan
from dashboard.store import Store
from dashboard.store.journal import read_batches
from tests.judging.conftest import KEY_ENV, SECRET_KEY, seed
from tests.paths import REPO_ROOT
from tests.support.judge_server import JudgeServer, ModelScript

# file_store: the killed run resumes from the DuckDB file's journal (`<db>.pending/`).
pytestmark = pytest.mark.file_store

JUDGES = ("kill-a", "kill-b")


def write_panel(path: Path, server: JudgeServer) -> Path:
    judges = "".join(
        f"""
[[judges]]
name = "{name}"
model = "openai/{name}"
"""
        for name in JUDGES
    )
    path.write_text(
        f"""
name = "killable"
[defaults]
api_base = "{server.url}"
api_key_env = "{KEY_ENV}"
concurrency = 2
timeout_s = 30
retry_base_s = 0.01
{judges}""",
        encoding="utf-8",
    )
    return path


def journaled(store: Store) -> dict[str, int]:
    """Rows per table (and ok calls per judge) in the open journals of `<db>.pending/`."""
    counts: dict[str, int] = {}
    for path in (store.path.parent / (store.path.name + ".pending")).glob("*.open"):
        for batch in read_batches(path):  # a line still being written is skipped
            counts[batch.table] = counts.get(batch.table, 0) + len(batch.rows)
            for row in batch.rows if batch.table == "judge_calls" else ():
                if row["status"] == "ok":
                    counts[row["judge"]] = counts.get(row["judge"], 0) + 1
    return counts


def everything_delivered_is_journaled(store: Store, server: JudgeServer) -> bool:
    """Both judges hang on their next requests, and every completion the server delivered is
    an ok call in the journal, with its rating (appended right after its call)."""
    if not all(server.stats(j).hanging == 2 for j in JUDGES):
        return False
    delivered = {j: server.stats(j).completed for j in JUDGES}
    counts = journaled(store)
    return all(counts.get(j, 0) == n for j, n in delivered.items()) and counts.get(
        "ratings", 0
    ) == sum(delivered.values())


def test_a_killed_run_resumes_and_pays_for_nothing_twice(
    store: Store, server: JudgeServer, loop: BackgroundLoop, tmp_path: Path
) -> None:
    data = seed(store, n_items=10)  # 20 responses x 2 judges = 40 calls
    panel_path = write_panel(tmp_path / "panel.toml", server)
    server.script("kill-a", ModelScript(latency_ms=5, hang_from=9))  # 8 complete, then hang
    server.script("kill-b", ModelScript(latency_ms=5, hang_from=5))  # 4 complete, then hang
    # A long merge interval keeps the run's journal open, so the kill leaves it half-written
    # (the journal is appended at once on every completion; the merge into DuckDB is later).
    command = [
        sys.executable,
        "-m",
        "dashboard.cli",
        "--db",
        store.url,
        "judge",
        "--panel",
        str(panel_path),
        "--rubric",
        "likert-rag",
        "--no-progress",
        "--flush-every",
        "600",
    ]
    env = {**os.environ, KEY_ENV: SECRET_KEY, "PYTHONPATH": str(REPO_ROOT)}
    process = subprocess.Popen(
        command, env=env, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        ready = server.wait_for(
            lambda: everything_delivered_is_journaled(store, server), timeout_s=90
        )
        assert ready, (
            process.stderr.read()
            if process.poll() is not None
            else f"not journaled: {journaled(store)}"
        )
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)  # reaped: its journal now belongs to a dead process
    first_run = {j: server.stats(j).completed for j in JUDGES}
    assert first_run == {"kill-a": 8, "kill-b": 4}
    assert list((store.path.parent / (store.path.name + ".pending")).glob("*.open"))

    for name in JUDGES:
        server.script(name, ModelScript(latency_ms=1))
    server.release_hangs()
    plan = plan_run(store, load_panel(panel_path), load_rubric("likert-rag"))
    assert {j.judge: j.calls_cached for j in plan.judges} == first_run
    summary = loop.run(run_plan(store, plan))
    assert summary.failures == 0

    for name in JUDGES:
        stats = server.stats(name)
        assert stats.completed == 20  # both runs together: responses x 1, per judge
        assert max(stats.completed_prompts.values()) == 1
    with store.connection() as con:
        rows = con.execute(
            "SELECT response_id, rater, count(*), max(value) FROM current_ratings GROUP BY ALL"
        ).fetchall()
        ok_calls = con.execute("SELECT count(*) FROM judge_calls WHERE status = 'ok'").fetchone()
    assert len(rows) == 40 and all(n == 1 for _, _, n, _ in rows)
    assert all(value == data.expected[response] for response, _, _, value in rows)
    assert ok_calls == (40,)
