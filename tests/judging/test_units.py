"""Small pieces: backoff, error classification, key scrubbing, the loop, progress, stats."""

from __future__ import annotations

import ast
import asyncio
import random
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard.judging import (
    BackgroundLoop,
    Rubric,
    RubricError,
    RunProgress,
    load_panel,
    load_rubric,
    plan_run,
    run_judges,
    scrub_secrets,
)
from dashboard.judging.calls import backoff_s
from dashboard.judging.llm import CallError, classify
from dashboard.judging.panel import Judge
from dashboard.judging.records import Parsed, explanation_of, parse_output, result_row
from dashboard.judging.targets import Target
from dashboard.store import Store
from tests.judging.conftest import judge, panel, query, seed
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

    for status, retryable in (
        (429, True),
        (408, True),
        (409, True),
        (500, True),
        (503, True),
        (400, False),
        (401, False),
        (404, False),
        (422, False),
    ):
        assert classify(Status(status)).retryable is retryable, status
    assert classify(TimeoutError()).retryable
    assert not classify(ValueError("bug")).retryable
    error = CallError("x", retryable=True)
    assert classify(error) is error


def test_secrets_are_scrubbed_from_error_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_CUSTOM_VARIABLE", "custom-key-value")
    text = (
        "Incorrect API key provided: sk-proj-abcdef1234567890. Authorization: Bearer "
        "tok-999 api_key='plain-secret' custom-key-value"
    )
    clean = scrub_secrets(text, env_names=["JUDGE_CUSTOM_VARIABLE"])
    for secret in ("abcdef1234567890", "tok-999", "plain-secret", "custom-key-value"):
        assert secret not in clean
    assert "Incorrect API key provided" in clean
    # A variable named by nobody is not a secret unless its name says so.
    assert "custom-key-value" in scrub_secrets(text)


@pytest.mark.parametrize(
    "variable",
    [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "MISTRAL_API_KEY",
        "GROQ_API_KEY",
        "TOGETHERAI_API_KEY",
        "AZURE_API_KEY",
        "COHERE_API_KEY",
        "GEMINI_API_KEY",
        "HUGGINGFACE_API_KEY",
        "HF_TOKEN",
        "AZURE_CLIENT_SECRET",
        "WATSONX_APIKEY",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "SOME_SERVICE_PASSWORD",
    ],
)
def test_provider_default_keys_are_scrubbed_whatever_their_shape(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "plainvalue0123456789XYZ"  # no sk- prefix, no "api_key=": only its variable says
    monkeypatch.setenv(variable, key)
    clean = scrub_secrets(f"Incorrect API key provided: {key}. (at https://u:pw-{key}@host/v1)")
    assert key not in clean and clean.startswith("Incorrect API key provided: ***.")
    assert "https://u:***@host/v1" in clean
    monkeypatch.setenv("SHORT_TOKEN", "1")  # too short to be a key: ordinary digits stay
    assert scrub_secrets("retry 1 of 4") == "retry 1 of 4"


def test_explanations_leave_out_the_rating_line() -> None:
    assert explanation_of("Explanation: concise and right.\nRating: [[5]]") == "concise and right."
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
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    seed(store, n_items=3)
    server.script("progress", ModelScript())
    seen: list[tuple[int, int]] = []
    summary = run_judges(
        store,
        panel(judge("progress", server)),
        "likert-rag",
        dataset="demo",
        systems=["alpha"],
        on_progress=lambda d, t: seen.append((d, t)),
        loop=loop,
    )
    assert seen[0] == (0, 3) and seen[-1] == (3, 3) and len(seen) == 4
    assert summary.judge("progress").calls_made == 3
    with store.connection() as con:  # what is stored: the calls, their ratings, the run
        stats = con.execute("""
            SELECT judge, count(*) FILTER (WHERE status = 'ok'),
                   count(*) FILTER (WHERE status = 'failed'),
                   count(*) FILTER (WHERE status = 'ok' AND cost_usd IS NULL)
            FROM judge_calls WHERE rubric = 'likert-rag' GROUP BY judge""").fetchall()
        unscored = con.execute(
            "SELECT count(*) FROM current_ratings WHERE rater = 'progress' AND value IS NULL"
        ).fetchone()
    (run,) = query(store, "SELECT * FROM judge_runs")
    assert stats == [("progress", 3, 0, 3)]  # judge, ok, failed, cost unknown
    assert unscored == (0,) and run["parse_failures"] == 0 and run["cost_unknown_calls"] == 3
    assert (run["judge"], run["calls_made"], run["cache_hits"]) == ("progress", 3, 0)
    assert '"systems": ["alpha"]' in run["selection"]


def test_a_judge_without_its_key_fails_alone(
    store: Store, server: JudgeServer, loop: BackgroundLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(store, n_items=2)
    monkeypatch.delenv("MISSING_JUDGE_KEY", raising=False)
    server.script("has-key", ModelScript())
    summary = run_judges(
        store,
        panel(judge("has-key", server), judge("no-key", server, api_key_env="MISSING_JUDGE_KEY")),
        load_rubric("likert-rag"),
        loop=loop,
    )
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
    code = (
        "import sys, dashboard.judging, dashboard.cli.judge; "
        "dashboard.judging.load_panel('offline'); "
        "print('litellm' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT, check=True
    ).stdout
    assert out.strip() == "False"
    for sql in ("calls_sql.py", "targets_sql.py"):
        assert "duckdb" not in _imports(JUDGING / sql)
    assert load_panel("offline").judges[0].is_baseline


def test_a_responses_own_history_is_the_conversation_it_is_judged_in(tmp_path) -> None:
    # MT-Bench turn 2: the item holds the user's first turn; each model's own first answer is
    # in its response's metadata, and the judge must see that one.
    from dashboard.ingest import import_path
    from dashboard.judging.targets import rating_target
    from dashboard.judging.targets_sql import select_rating_targets
    from dashboard.store import Store
    from tests.paths import SHARED_DATA

    store = Store(tmp_path / "mt.duckdb")
    import_path(store, SHARED_DATA / "mt_bench" / "instructlab_granite-7b-lab__gpt-4_single.jsonl")
    with store.connection() as con:
        rows = select_rating_targets(con, task_types=["conversational_qa"])
    assert len(rows) == 80
    _, values = rating_target(rows[0])
    assert values["history"].startswith("User: ")
    assert "\nAssistant: " in values["history"]


def test_a_rating_rubric_without_a_scale_is_an_error_not_a_zero_scale(store: Store) -> None:
    rubric = Rubric(name="unscaled", version="1", kind="rating", template="{{answer}}")
    with pytest.raises(RubricError, match="'unscaled' v1 rates answers but has no scale"):
        parse_output(rubric, "Rating: [[3]]")
    with pytest.raises(RubricError, match="has no scale"):  # never stored as a 0-0 scale
        result_row(
            Target("rating", "i", response_id="r"),
            Parsed(value=3.0),
            rubric=rubric,
            rater="j",
            call_id="c",
            raw_output="Rating: [[3]]",
        )
    seed(store, n_items=1)
    with pytest.raises(RubricError, match="has no scale"):  # before any call is made
        plan_run(store, load_panel("offline"), rubric)


def test_judging_code_checks_with_exceptions_not_asserts() -> None:
    # `python -O` strips assert statements: a check that must hold in production raises.
    for path in JUDGING.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert not any(isinstance(node, ast.Assert) for node in ast.walk(tree)), path.name
