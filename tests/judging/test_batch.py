"""`judge --batch` through real LiteLLM's files and batches calls against the loopback server's
batch API: the same ratings as online, failed lines, an expired batch, a failed batch, a run
killed while its batch is in progress that resumes by polling it (zero resubmission), and a run
killed after the provider created its batch and before the id was recorded, whose resume finds
that batch by its intent in the provider's list (created once)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from dashboard.cli.common import CommandError
from dashboard.judging import (
    BackgroundLoop,
    load_rubric,
    plan_lines,
    plan_run,
    run_plan as run_plan_async,
)
from dashboard.judging.panel import Judge, Panel
from dashboard.judging.summary import RunSummary
from dashboard.store import Store
from tests.judging.conftest import KEY_ENV, SECRET_KEY, judge, panel, query, seed
from tests.paths import REPO_ROOT
from tests.support.judge_server import BatchScript, JudgeServer, ModelScript

PRICES = {"input_cost_per_token": 2e-6, "output_cost_per_token": 8e-6}


@pytest.fixture
def batch_server() -> Iterator[JudgeServer]:
    """A server of this test's own: its batch counters start at zero."""
    with JudgeServer() as running:
        yield running


def run(store: Store, loop: BackgroundLoop, judges: Panel, *, batch: bool = True) -> RunSummary:
    plan = plan_run(store, judges, load_rubric("likert-rag"))
    notes: list[str] = []
    return loop.run(
        run_plan_async(store, plan, batch=batch, poll_every_s=0.02, on_note=notes.append)
    )


def ratings(store: Store) -> dict[str, float]:
    rows = query(store, "SELECT response_id, value FROM current_ratings WHERE rater_kind = 'llm'")
    return {r["response_id"]: r["value"] for r in rows}


def batch_judge(server: JudgeServer, name: str = "batch-a") -> Judge:
    return judge(name, server, **PRICES)


def test_batch_gives_the_online_ratings_at_half_the_price(
    tmp_path: Path, batch_server: JudgeServer, loop: BackgroundLoop
) -> None:
    online, batched = Store(tmp_path / "online.duckdb"), Store(tmp_path / "batch.duckdb")
    data = seed(online, n_items=10)
    seed(batched, n_items=10)
    judges = panel(batch_judge(batch_server))
    first = run(online, loop, judges, batch=False)
    second = run(batched, loop, judges)
    assert first.failures == second.failures == 0
    assert ratings(batched) == ratings(online) == data.expected  # 20 responses
    assert batch_server.batch_stats().creates == 1
    assert batch_server.batch_stats().lines_run == 20
    # The same tokens, half the price (the panel's online price halved: no batch price given).
    assert second.calls_made == 20
    cost_online, cost_batch = first.judges[0].cost_usd, second.judges[0].cost_usd
    assert cost_online and cost_batch
    assert cost_batch == pytest.approx(cost_online / 2)
    events = query(batched, "SELECT event, n_requests, status FROM judge_batches ORDER BY event")
    assert [(e["event"], e["status"]) for e in events] == [
        ("finished", "completed"),
        ("submitted", None),
    ]
    assert events[1]["n_requests"] == 20
    # Cached as online calls are: nothing to submit again.
    again = plan_run(batched, judges, load_rubric("likert-rag"))
    assert again.calls_needed == 0 and again.calls_cached == 20


def test_the_plan_shows_both_prices_and_the_wait(store: Store, batch_server: JudgeServer) -> None:
    seed(store, n_items=3)
    plan = plan_run(store, panel(batch_judge(batch_server)), load_rubric("likert-rag"))
    [line] = [line for line in plan_lines(plan) if "--batch" in line]
    judge_plan = plan.judges[0]
    assert judge_plan.estimated_cost_usd and judge_plan.estimated_batch_cost_usd
    assert judge_plan.estimated_batch_cost_usd == pytest.approx(judge_plan.estimated_cost_usd / 2)
    assert "half the panel's online price" in line and "up to 24 h" in line
    assert f"${judge_plan.estimated_batch_cost_usd:.4f}" in line
    assert f"online ${judge_plan.estimated_cost_usd:.4f}" in line


def test_failed_lines_are_recorded_and_garbage_stays_unscored(
    store: Store, batch_server: JudgeServer, loop: BackgroundLoop
) -> None:
    data = seed(store, n_items=5)  # 10 lines
    batch_server.script("batch-a", ModelScript(sequence=("500", "garbage", "429")))
    summary = run(store, loop, panel(batch_judge(batch_server)))
    j = summary.judges[0]
    assert (j.calls_made, j.failures, j.parse_failures) == (10, 2, 1)
    failed = query(store, "SELECT error FROM judge_calls WHERE status = 'failed' ORDER BY error")
    assert [f["error"] for f in failed] == [
        "batch line failed (HTTP 429): 429: rate limited",
        "batch line failed (HTTP 500): 500: internal error",
    ]
    unscored = query(store, "SELECT count(*) AS n FROM ratings WHERE value IS NULL")
    assert unscored == [{"n": 1}]
    # The next run submits the two failed calls only; the garbage one is cached (as online).
    summary = run(store, loop, panel(batch_judge(batch_server)))
    assert (summary.calls_made, summary.failures) == (2, 0)
    assert batch_server.batch_stats().creates == 2
    got = ratings(store)
    assert sum(v is None for v in got.values()) == 1
    assert all(got[r] == v for r, v in data.expected.items() if got[r] is not None)


def test_an_expired_batch_records_what_ran_and_the_rest_goes_back_to_the_plan(
    store: Store, batch_server: JudgeServer, loop: BackgroundLoop
) -> None:
    data = seed(store, n_items=10)  # 20 lines
    batch_server.script_batches(BatchScript(expire_after=6))
    summary = run(store, loop, panel(batch_judge(batch_server)))
    assert (summary.calls_made, summary.failures) == (20, 14)
    [never] = query(store, "SELECT DISTINCT error FROM judge_calls WHERE status = 'failed'")
    assert (
        never["error"].startswith("not run: the batch batch-") and "ended expired" in never["error"]
    )
    assert len(ratings(store)) == 6
    assert query(store, "SELECT status FROM judge_batches WHERE event = 'finished'") == [
        {"status": "expired"}
    ]
    batch_server.script_batches(BatchScript())
    plan = plan_run(store, panel(batch_judge(batch_server)), load_rubric("likert-rag"))
    assert plan.calls_needed == 14
    assert run(store, loop, panel(batch_judge(batch_server))).failures == 0
    assert ratings(store) == data.expected
    assert batch_server.batch_stats().lines_run == 20  # 6 + 14: none ran twice


def test_a_failed_batch_fails_its_calls_with_the_reason(
    store: Store, batch_server: JudgeServer, loop: BackgroundLoop
) -> None:
    seed(store, n_items=2)
    batch_server.script_batches(BatchScript(fail_validation="line 1: model not found"))
    summary = run(store, loop, panel(batch_judge(batch_server)))
    assert summary.failures == 4
    errors = {r["error"] for r in query(store, "SELECT error FROM judge_calls")}
    assert errors == {"not run: the batch batch-000002 ended failed (line 1: model not found)"}


def test_batch_refuses_the_offline_baseline(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    from dashboard.cli import main

    seed(store, n_items=1)
    args = ["--db", store.url, "judge", "--panel", "offline", "--rubric", "likert-rag"]
    assert main([*args, "--batch"]) == CommandError("").status
    assert "--batch: judge baseline is the offline baseline, which has no batch API" in (
        capsys.readouterr().err
    )
    assert query(store, "SELECT count(*) AS n FROM judge_calls") == [{"n": 0}]


def _panel_file(path: Path, server: JudgeServer) -> Path:
    path.write_text(
        f"""
name = "batched"
[[judges]]
name = "kill-batch"
model = "openai/kill-batch"
api_base = "{server.url}"
api_key_env = "{KEY_ENV}"
input_cost_per_token = 2e-6
output_cost_per_token = 8e-6
""",
        encoding="utf-8",
    )
    return path


def test_a_killed_batch_run_resumes_by_polling_never_resubmitting(
    store: Store, batch_server: JudgeServer, tmp_path: Path
) -> None:
    data = seed(store, n_items=10)
    panel_path = _panel_file(tmp_path / "panel.toml", batch_server)
    batch_server.script_batches(BatchScript(hold=True))  # in progress until released
    command = [
        sys.executable, "-m", "dashboard.cli", "--db", store.url, "judge",
        "--panel", str(panel_path), "--rubric", "likert-rag", "--batch", "--no-progress",
        "--poll-every", "0.05",
    ]  # fmt: skip
    env = {**os.environ, KEY_ENV: SECRET_KEY, "PYTHONPATH": str(REPO_ROOT)}
    process = subprocess.Popen(
        command, env=env, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    lines: list[str] = []
    submitted = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if "submitted batch" in line:
                submitted.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert submitted.wait(timeout=120), "".join(lines)
        # Polled at least once more after submitting: the run is waiting on the provider.
        polls = batch_server.batch_stats().retrieves
        assert batch_server.wait_for(lambda: batch_server.batch_stats().retrieves > polls + 1)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    assert batch_server.batch_stats().creates == 1 and batch_server.batch_stats().lines_run == 0
    assert ratings(store) == {}

    batch_server.release_batches()
    resumed = subprocess.run(
        command, env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=180
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming batch batch-000002 (20 requests)" in resumed.stdout
    assert "submitted batch" not in resumed.stdout
    stats = batch_server.batch_stats()
    assert (stats.uploads, stats.creates, stats.lines_run) == (1, 1, 20)  # zero resubmission
    assert max(batch_server.stats("kill-batch").completed_prompts.values()) == 1
    assert ratings(store) == data.expected
    assert query(store, "SELECT count(*) AS n FROM judge_calls") == [{"n": 20}]


def test_a_run_killed_between_creating_a_batch_and_recording_it_finds_it_at_the_provider(
    store: Store, batch_server: JudgeServer, tmp_path: Path
) -> None:
    data = seed(store, n_items=10)
    panel_path = _panel_file(tmp_path / "panel.toml", batch_server)
    # The create request makes the batch, and its response waits: the process is killed after
    # the provider has the batch and before the process could record its id.
    batch_server.script_batches(BatchScript(hold=True, hold_create=True))
    command = [
        sys.executable, "-m", "dashboard.cli", "--db", str(store.path), "judge",
        "--panel", str(panel_path), "--rubric", "likert-rag", "--batch", "--no-progress",
        "--poll-every", "0.05",
    ]  # fmt: skip
    env = {**os.environ, KEY_ENV: SECRET_KEY, "PYTHONPATH": str(REPO_ROOT)}
    process = subprocess.Popen(
        command, env=env, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        held = batch_server.wait_for(
            lambda: batch_server.batch_stats().held_creates == 1 or process.poll() is not None,
            timeout_s=120,
        )
        assert held and process.poll() is None, process.stderr and process.stderr.read()
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    assert batch_server.batch_stats().creates == 1
    # The batch is at the provider, its id nowhere in the store: only the intent is.
    assert query(store, "SELECT count(*) AS n FROM judge_batches") == [{"n": 0}]
    [intent] = query(store, "SELECT intent_id, event, n_requests FROM judge_batch_intents")
    assert (intent["event"], intent["n_requests"]) == ("intended", 20)
    created = batch_server.batch("batch-000002")
    assert created["metadata"] == {"judgeboard_intent": intent["intent_id"]}

    batch_server.script_batches(BatchScript())  # a resubmission would run, and be counted
    batch_server.release_creates()
    batch_server.release_batches()
    resumed = subprocess.run(
        command, env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=180
    )
    assert resumed.returncode == 0, resumed.stderr
    assert (
        f"resuming batch batch-000002 (20 requests), found at the provider by its intent "
        f"{intent['intent_id']}" in resumed.stdout
    )
    assert "submitted batch" not in resumed.stdout
    stats = batch_server.batch_stats()
    assert (stats.uploads, stats.creates, stats.lines_run) == (1, 1, 20)  # paid once
    assert stats.lists >= 1
    assert max(batch_server.stats("kill-batch").completed_prompts.values()) == 1
    assert ratings(store) == data.expected
    assert query(store, "SELECT count(*) AS n FROM judge_calls") == [{"n": 20}]
    assert query(store, "SELECT count(*) AS n FROM ratings WHERE rater_kind = 'llm'") == [{"n": 20}]
    events = query(store, "SELECT event, batch_id FROM judge_batch_intents ORDER BY created_utc")
    assert events == [
        {"event": "intended", "batch_id": None},
        {"event": "created", "batch_id": "batch-000002"},
    ]
    assert query(store, "SELECT event FROM judge_batches ORDER BY created_utc") == [
        {"event": "submitted"},
        {"event": "finished"},
    ]


def test_an_intent_the_provider_never_created_is_submitted_once(
    store: Store, batch_server: JudgeServer, loop: BackgroundLoop
) -> None:
    from dashboard.judging import batches_sql

    data = seed(store, n_items=3)  # 6 lines
    judges = panel(batch_judge(batch_server))
    plan = plan_run(store, judges, load_rubric("likert-rag"))
    # A run stopped after recording its intent, before its create request reached the provider.
    with store.connection() as con:
        batches_sql.add_intent(
            con,
            intent_id="lost-intent",
            judge="batch-a",
            model=judges.judges[0].model,
            run_id="stopped-run",
            cache_keys=[spec.cache_key for spec in plan.calls],
        )
    summary = run(store, loop, judges)
    assert (summary.calls_made, summary.failures) == (6, 0)
    stats = batch_server.batch_stats()
    assert (stats.lists, stats.creates, stats.lines_run) == (1, 1, 6)
    assert ratings(store) == data.expected
    events = query(
        store, "SELECT intent_id, event FROM judge_batch_intents WHERE intent_id = 'lost-intent'"
    )
    assert sorted(e["event"] for e in events) == ["absent", "intended"]
    again = run(store, loop, judges)  # nothing left open: no lookup, no batch
    assert again.calls_made == 0
    assert batch_server.batch_stats().lists == 1


def test_an_intent_that_cannot_be_looked_up_creates_nothing_until_it_can(
    store: Store, batch_server: JudgeServer, loop: BackgroundLoop
) -> None:
    from dashboard.judging import batches_sql

    data = seed(store, n_items=2)  # 4 lines
    judges = panel(batch_judge(batch_server))
    plan = plan_run(store, judges, load_rubric("likert-rag"))
    with store.connection() as con:
        batches_sql.add_intent(
            con,
            intent_id="unknown-intent",
            judge="batch-a",
            model=judges.judges[0].model,
            run_id="stopped-run",
            cache_keys=[spec.cache_key for spec in plan.calls],
        )
    batch_server.script_batches(BatchScript(fail_list=True))
    summary = run(store, loop, judges)
    assert summary.failures == 4
    assert batch_server.batch_stats().creates == 0  # the batch may exist: none is created
    [error] = query(store, "SELECT DISTINCT error FROM judge_calls WHERE status = 'failed'")
    assert error["error"].startswith("looking up batch intent unknown-intent failed: ")
    open_ = query(store, "SELECT event FROM judge_batch_intents")
    assert open_ == [{"event": "intended"}]
    # Once the provider answers (and has no such batch), the calls go in one new batch.
    batch_server.script_batches(BatchScript())
    assert run(store, loop, judges).failures == 0
    assert batch_server.batch_stats().creates == 1
    assert ratings(store) == data.expected
