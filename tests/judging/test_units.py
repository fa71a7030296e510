"""Small pieces: backoff, error classification, key scrubbing, the loop, progress, stats."""

from __future__ import annotations

import ast
import asyncio
import random
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard.judging import BackgroundLoop, RunProgress, load_panel, load_rubric, run_judges
from dashboard.judging.calls import backoff_s
from dashboard.judging.llm import CallError, classify, scrub
from dashboard.judging.panel import Judge
from dashboard.judging.records import explanation_of
from dashboard.store import Store
from dashboard.store import judging as sql
from tests.judging.conftest import judge, panel, seed
from tests.paths import REPO_ROOT
from tests.support.judge_server import JudgeServer, ModelScript

JUDGING = REPO_ROOT / "dashboard" / "judging"


def test_backoff_doubles_with_jitter_and_honours_retry_after() -> None:
    j = Judge(name="j", model="m", retry_base_s=0.5, retry_max_s=4.0)
    rng = random.Random(0)
    for attempt, ceiling in ((1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (9, 4.0)):
        delays = [backoff_s(attempt, judge=j, retry_after_s=None, rng=rng) for _ in range(50)]
        assert all(ceiling / 2 <= d <= ceiling for d in delays)  # "equal jitter"
    assert backoff_s(1, judge=j, retry_after_s=3.0, rng=rng) == 3.0
    assert backoff_s(1, judge=j, retry_after_s=9.0, rng=rng) is None  # beyond retry_max_s


def test_classify_retries_transient_errors_only() -> None:
    class Status(Exception):
        def __init__(self, status: int) -> None:
            super().__init__(f"status {status}")
            self.status_code = status

    for status, retryable in ((429, True), (408, True), (409, True), (500, True), (503, True),
                              (400, False), (401, False), (404, False), (422, False)):
        assert classify(Status(status)).retryable is retryable, status
    assert classify(TimeoutError()).retryable
    assert not classify(ValueError("bug")).retryable
    error = CallError("x", retryable=True)
    assert classify(error) is error


def test_secrets_are_scrubbed_from_error_text() -> None:
    text = ("Incorrect API key provided: sk-proj-abcdef1234567890. Authorization: Bearer "
            "tok-999 api_key='plain-secret' custom-key-value")
    clean = scrub(text, ["custom-key-value"])
    for secret in ("abcdef1234567890", "tok-999", "plain-secret", "custom-key-value"):
        assert secret not in clean
    assert "Incorrect API key provided" in clean


def test_explanations_leave_out_the_rating_line() -> None:
    assert explanation_of("Explanation: concise and right.\nRating: [[5]]") == \
        "concise and right."
    assert explanation_of('"Rating": 4, "Explanation": "Mostly correct."') == "Mostly correct."
    assert explanation_of("A is better.\n[[A]]") == "A is better."
    assert explanation_of("") is None


def test_the_background_loop_runs_coroutines_from_any_thread() -> None:
    background = BackgroundLoop(name="unit")

    async def double(x: int) -> int:
        return 2 * x

    async def fail() -> None:
        raise KeyError("boom")

    assert background.run(double(21)) == 42
    with pytest.raises(KeyError):
        background.run(fail())
    progress = RunProgress()
    assert progress.fraction == 1.0
    background.run(asyncio.to_thread(progress, 3, 4))
    assert progress.counts == (3, 4) and progress.fraction == 0.75
    background.close()
    assert not background.running
    with pytest.raises(RuntimeError, match="closed"):
        background.submit(double(1))


def test_run_judges_reports_progress_and_feeds_the_stats(
        store: Store, server: JudgeServer, loop: BackgroundLoop) -> None:
    seed(store, n_items=3)
    server.script("progress", ModelScript())
    seen: list[tuple[int, int]] = []
    summary = run_judges(store, panel(judge("progress", server)), "likert-rag", dataset="demo",
                         systems=["alpha"], on_progress=lambda d, t: seen.append((d, t)),
                         loop=loop)
    assert seen[0] == (0, 3) and seen[-1] == (3, 3) and len(seen) == 4
    assert summary.judge("progress").calls_made == 3
    with store.connection() as con:
        (stats,) = sql.judge_call_stats(con, rubric="likert-rag")
        (run,) = sql.list_judge_runs(con)
    assert (stats["judge"], stats["ok_calls"], stats["failed_calls"]) == ("progress", 3, 0)
    assert stats["parse_failures"] == 0 and stats["cost_unknown_calls"] == 3
    assert (run["judge"], run["calls_made"], run["cache_hits"]) == ("progress", 3, 0)
    assert '"systems": ["alpha"]' in run["selection"]


def test_a_judge_without_its_key_fails_alone(store: Store, server: JudgeServer,
                                             loop: BackgroundLoop,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    seed(store, n_items=2)
    monkeypatch.delenv("MISSING_JUDGE_KEY", raising=False)
    server.script("has-key", ModelScript())
    summary = run_judges(store, panel(judge("has-key", server),
                                      judge("no-key", server, api_key_env="MISSING_JUDGE_KEY")),
                         load_rubric("likert-rag"), loop=loop)
    assert summary.judge("has-key").failures == 0
    assert summary.judge("no-key").failures == 4 and summary.judge("no-key").retries == 0
    assert "set the environment variable MISSING_JUDGE_KEY" in summary.judge("no-key").last_error


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_litellm_lives_in_one_module_and_loads_lazily() -> None:
    importers = [p.name for p in sorted(JUDGING.glob("*.py")) if "litellm" in _imports(p)]
    assert importers == ["llm.py"]
    code = ("import sys, dashboard.judging, dashboard.commands.judge; "
            "dashboard.judging.load_panel('offline'); "
            "print('litellm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO_ROOT, check=True).stdout
    assert out.strip() == "False"
    assert "duckdb" not in _imports(REPO_ROOT / "dashboard" / "store" / "judging.py")
    assert load_panel("offline").judges[0].is_baseline


def test_a_responses_own_history_is_the_conversation_it_is_judged_in(tmp_path) -> None:
    # MT-Bench turn 2: the item holds the user's first turn; each model's own first answer is
    # in its response's metadata, and the judge must see that one.
    from dashboard.ingest import import_path
    from dashboard.judging.targets import rating_target
    from dashboard.store import Store
    from dashboard.store.judging import select_rating_targets
    from tests.paths import SHARED_DATA

    store = Store(tmp_path / "mt.duckdb")
    import_path(store, SHARED_DATA / "mt_bench" / "instructlab_granite-7b-lab__gpt-4_single.jsonl")
    with store.connection() as con:
        rows = select_rating_targets(con, task_types=["conversational_qa"])
    assert len(rows) == 80
    _, values = rating_target(rows[0])
    assert values["history"].startswith("User: ")
    assert "\nAssistant: " in values["history"]
