"""`judge --workers N`: spawned workers share the plan without overlap; the parent keeps the
store (one writer), the cache and resume work as with one process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dashboard.judging import BackgroundLoop, load_panel, load_rubric, plan_run, run_plan
from dashboard.judging.pool import partition, spawn_safely
from dashboard.store import Store
from tests.judging.conftest import KEY_ENV, SECRET_KEY, judge, panel, query, seed
from tests.judging.test_sigkill import journaled
from tests.paths import REPO_ROOT
from tests.support.judge_server import JudgeServer, ModelScript


def ratings(store: Store) -> dict[tuple[str, str], float]:
    rows = query(store, "SELECT response_id, rater, value FROM current_ratings")
    return {(r["response_id"], r["rater"]): r["value"] for r in rows}


def test_partition_gives_every_call_to_one_worker() -> None:
    calls = [type("Spec", (), {"judge": j})() for j in "aabbbab"]
    shares = partition(calls, 2)  # type: ignore[arg-type]
    assert sorted(i for share in shares for i in share) == list(range(7))
    assert shares == [[0, 2, 4, 5], [1, 3, 6]]  # each judge's calls alternate


def test_two_workers_call_each_prompt_once_and_rate_as_one_process(
    tmp_path: Path, server: JudgeServer, loop: BackgroundLoop
) -> None:
    for name in ("wk-a", "wk-b"):
        server.script(name, ModelScript(latency_ms=2))
    rubric = load_rubric("likert-rag")
    judges = panel(judge("wk-a", server), judge("wk-b", server, concurrency=3))
    one = Store(tmp_path / "one.duckdb", wait_s=20.0)
    data = seed(one, n_items=30)
    loop.run(run_plan(one, plan_run(one, judges, rubric)))
    before = {n: server.stats(n).completed for n in ("wk-a", "wk-b")}
    assert before == {"wk-a": 60, "wk-b": 60}

    two = Store(tmp_path / "two.duckdb", wait_s=20.0)
    seed(two, n_items=30)
    seen: list[tuple[int, int]] = []
    plan = plan_run(two, judges, rubric)
    summary = loop.run(run_plan(two, plan, workers=2, on_progress=lambda d, t: seen.append((d, t))))
    assert summary.calls_made == 120 and summary.failures == 0
    for name in ("wk-a", "wk-b"):
        stats = server.stats(name)
        assert stats.completed - before[name] == 60
        assert max(stats.completed_prompts.values()) == 2  # once per store, never twice
    assert ratings(two) == ratings(one)
    assert all(ratings(two)[(r, "wk-a")] == v for r, v in data.expected.items())
    assert seen[-1] == (120, 120)
    ok = query(two, "SELECT count(*) AS n FROM judge_calls WHERE status = 'ok'")
    assert ok == [{"n": 120}]

    again = loop.run(run_plan(two, plan_run(two, judges, rubric), workers=2))
    assert again.calls_made == 0
    assert {n: server.stats(n).completed for n in ("wk-a", "wk-b")} == {"wk-a": 120, "wk-b": 120}


JUDGES = ("wkill-a", "wkill-b")  # not test_sigkill's: the server's counters are shared


def write_panel(path: Path, server: JudgeServer) -> Path:
    judges = "".join(f'\n[[judges]]\nname = "{n}"\nmodel = "openai/{n}"\n' for n in JUDGES)
    path.write_text(
        f'name = "killable"\n[defaults]\napi_base = "{server.url}"\n'
        f'api_key_env = "{KEY_ENV}"\nconcurrency = 2\ntimeout_s = 30\nretry_base_s = 0.01\n'
        + judges,
        encoding="utf-8",
    )
    return path


def everything_delivered_is_journaled(store: Store, server: JudgeServer) -> bool:
    """Both judges hang on their next requests (one per worker), and every completion the
    server delivered is an ok call in the journal, with its rating."""
    if not all(server.stats(j).hanging == 2 for j in JUDGES):
        return False
    delivered = {j: server.stats(j).completed for j in JUDGES}
    counts = journaled(store)
    return all(counts.get(j, 0) == n for j, n in delivered.items()) and counts.get(
        "ratings", 0
    ) == sum(delivered.values())


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def test_a_killed_run_over_workers_resumes_without_repeating_a_call(
    store: Store, server: JudgeServer, loop: BackgroundLoop, tmp_path: Path
) -> None:
    data = seed(store, n_items=10)  # 20 responses x 2 judges = 40 calls
    panel_path = write_panel(tmp_path / "panel.toml", server)  # concurrency 2: 1 per worker
    server.script("wkill-a", ModelScript(latency_ms=5, hang_from=9))
    server.script("wkill-b", ModelScript(latency_ms=5, hang_from=5))
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
        "--workers",
        "2",
        "--flush-every",
        "600",
    ]
    env = {**os.environ, KEY_ENV: SECRET_KEY, "PYTHONPATH": str(REPO_ROOT)}
    process = subprocess.Popen(
        command, env=env, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    workers: list[int] = []
    try:
        ready = server.wait_for(
            lambda: everything_delivered_is_journaled(store, server),
            timeout_s=90,
        )
        assert ready, process.stderr.read() if process.poll() is not None else "not journaled"
        workers = _children(process.pid)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert len(workers) >= 2  # the spawned workers (and multiprocessing's tracker)
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{w}").exists() for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(Path(f"/proc/{w}").exists() for w in workers), "workers outlived the run"
    first_run = {j: server.stats(j).completed for j in JUDGES}
    assert first_run == {"wkill-a": 8, "wkill-b": 4}

    for name in JUDGES:
        server.script(name, ModelScript(latency_ms=1))
    server.release_hangs()
    plan = plan_run(store, load_panel(panel_path), load_rubric("likert-rag"))
    assert {j.judge: j.calls_cached for j in plan.judges} == first_run
    summary = loop.run(run_plan(store, plan, workers=2))
    assert summary.failures == 0 and summary.calls_made == 28
    for name in JUDGES:
        stats = server.stats(name)
        assert stats.completed == 20 and max(stats.completed_prompts.values()) == 1
    rows = query(store, "SELECT response_id, rater, value FROM current_ratings")
    assert len(rows) == 40 and all(r["value"] == data.expected[r["response_id"]] for r in rows)


def test_workers_spawned_from_a_page_do_not_run_the_page_again(
    tmp_path: Path, server: JudgeServer, loop: BackgroundLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Streamlit makes the page script `__main__`; a spawned child would run it again."""
    marker = tmp_path / "page-ran"
    page = tmp_path / "page.py"
    page.write_text(f"open({str(marker)!r}, 'a').write('x')\n", encoding="utf-8")
    as_main = type(sys)("__main__")
    as_main.__file__ = str(page)
    monkeypatch.setitem(sys.modules, "__main__", as_main)
    server.script("wk-page", ModelScript(latency_ms=1))
    store = Store(tmp_path / "page.duckdb", wait_s=20.0)
    seed(store, n_items=4)
    plan = plan_run(store, panel(judge("wk-page", server)), load_rubric("likert-rag"))
    summary = loop.run(run_plan(store, plan, workers=2))
    assert summary.calls_made == 8 and summary.failures == 0
    assert not marker.exists()
    assert sys.modules["__main__"] is as_main
    with spawn_safely() as context:
        assert context.get_start_method() == "spawn"


def test_the_default_is_the_cores_at_most_one_worker_per_thousand_calls() -> None:
    from dashboard.cli.common import CommandError
    from dashboard.cli.judge import workers_for
    from dashboard.judging.pool import default_workers

    assert workers_for(500, None) == 1  # a worker's start costs more than it saves
    assert workers_for(10**6, None) == default_workers()
    assert workers_for(10, 3) == 3  # asked for: given
    with pytest.raises(CommandError, match="--workers"):
        workers_for(10, 0)
