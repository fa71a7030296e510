"""A run reports each failure as it happens (one readable line), can be cancelled between
calls, and can retry only what failed; against the loopback server, through real LiteLLM."""

from __future__ import annotations

import threading

import pytest

from dashboard.judging import BackgroundLoop, RunProgress, load_rubric, plan_run, run_plan
from dashboard.judging.errors import error_line
from dashboard.judging.retry import retry_plan
from dashboard.store import Store
from tests.judging.conftest import judge, panel, seed
from tests.support.judge_server import JudgeServer, ModelScript


def test_failures_are_reported_as_they_happen_and_only_they_are_retried(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    data = seed(store, n_items=5)  # 10 responses
    # One worker and one attempt a call: the first two requests fail, the rest succeed.
    server.script("retry-flaky", ModelScript(sequence=("500", "500")))
    server.script("retry-steady", ModelScript())
    the_panel = panel(
        judge("retry-flaky", server, concurrency=1, max_attempts=1),
        judge("retry-steady", server, concurrency=2),
    )
    plan = plan_run(store, the_panel, load_rubric("likert-rag"))
    progress = RunProgress()
    seen_while_running: list[int] = []

    def on_progress(done: int, total: int) -> None:
        progress(done, total)
        seen_while_running.append(len(progress.failures))

    summary = loop.run(
        run_plan(
            store, plan, on_progress=on_progress, on_failure=progress.failed, flush_every_s=0.2
        )
    )
    assert summary.judge("retry-flaky").failures == 2 and summary.failures == 2
    assert progress.failures == [("retry-flaky", "the server failed (HTTP 5xx)")] * 2
    assert 0 < seen_while_running.index(2) < len(seen_while_running) - 1  # before the end
    assert len(summary.failed_keys) == 2

    again = retry_plan(store, plan, summary)
    assert again is not None
    assert [j.judge for j in again.judges] == ["retry-flaky"]  # the steady judge is left out
    assert again.calls_needed == 2 and again.n_targets == 2
    before = server.stats("retry-flaky").requests
    retried = loop.run(run_plan(store, again, flush_every_s=0.2))
    assert retried.failures == 0 and retried.calls_made == 2
    assert server.stats("retry-flaky").requests == before + 2
    # Everything is now rated, and a full plan has nothing left to call.
    assert plan_run(store, the_panel, load_rubric("likert-rag")).calls_needed == 0
    with store.connection() as con:
        rated = con.execute(
            "SELECT count(*) FROM current_ratings WHERE rater = 'retry-flaky'"
        ).fetchone()
    assert rated is not None and rated[0] == len(data.responses)
    assert retry_plan(store, again, retried) is None  # nothing failed: nothing to retry


def test_a_cancelled_run_starts_no_further_call_and_keeps_what_it_made(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    seed(store, n_items=10)  # 20 responses
    server.script("cancel-slow", ModelScript(latency_ms=60))
    the_panel = panel(judge("cancel-slow", server, concurrency=1))
    plan = plan_run(store, the_panel, load_rubric("likert-rag"))
    cancel = threading.Event()

    def on_progress(done: int, total: int) -> None:
        if done >= 3:
            cancel.set()

    summary = loop.run(run_plan(store, plan, on_progress=on_progress, cancel=cancel))
    made = summary.judge("cancel-slow").calls_made
    assert summary.cancelled and 3 <= made < 20
    assert server.stats("cancel-slow").requests == made  # no call started after the cancel
    # What was made is stored: the next plan needs exactly the rest.
    assert plan_run(store, the_panel, load_rubric("likert-rag")).calls_needed == 20 - made


@pytest.mark.parametrize(
    ("raw", "line"),
    [
        (
            "InternalServerError: litellm.InternalServerError: OpenAIException - Missing "
            "credentials. Please pass an `api_key` (gave up after 4 attempts)",
            "no API key: set the judge's key variable, or use hosted_vllm/ for a server that "
            "needs none (gave up after 4 attempts)",
        ),
        (
            "AuthenticationError: litellm.AuthenticationError: Incorrect API key provided: ***",
            "the provider refused the key (HTTP 401): check the judge's key variable",
        ),
        (
            "Timeout: litellm.Timeout: Connection timed out",
            "no answer within the judge's timeout_s",
        ),
        (
            "RateLimitError: 429 (Retry-After 90 s is longer than retry_max_s 30 s; re-run later)",
            "rate limited by the provider (HTTP 429) (Retry-After 90 s is longer than "
            "retry_max_s 30 s; re-run later)",
        ),
        ("WeirdError: litellm.WeirdError: something odd\nTraceback...", "something odd"),
        (None, "failed (no error text)"),
    ],
)
def test_an_error_is_one_readable_line(raw: str | None, line: str) -> None:
    assert error_line(raw) == line
    assert "\n" not in error_line(raw)
