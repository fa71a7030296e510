"""The runner against the loopback server, through real LiteLLM: ratings, faults, cache."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from dashboard.judging import BackgroundLoop, load_rubric, plan_run, run_plan, summary_lines
from dashboard.judging.panel import Judge
from dashboard.judging.plan import RunPlan
from dashboard.judging.summary import RunSummary
from dashboard.store import Store
from dashboard.types import JudgeCall, Response
from tests.judging.conftest import SECRET_KEY, judge, panel, query, seed, stored_text
from tests.support.judge_server import JudgeServer, ModelScript


def run(
    store: Store, loop: BackgroundLoop, the_panel: Any, rubric: str = "likert-rag", **selection: Any
) -> tuple[RunPlan, RunSummary]:
    plan = plan_run(store, the_panel, load_rubric(rubric), **selection)
    return plan, loop.run(run_plan(store, plan, flush_every_s=0.2))


def current_ratings(store: Store) -> dict[tuple[str, str], tuple[float | None, str | None]]:
    with store.connection() as con:
        rows = con.execute(
            "SELECT response_id, rater, value, unscored_reason "
            "FROM current_ratings WHERE rater_kind = 'llm'"
        ).fetchall()
    return {(r, j): (v, why) for r, j, v, why in rows}


def calls(store: Store, **where: str) -> list[dict[str, Any]]:
    clause = " AND ".join(f"{k} = ?" for k in where) or "TRUE"
    return query(store, f"SELECT * FROM judge_calls WHERE {clause}", list(where.values()))


def test_every_response_gets_its_correct_rating(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    data = seed(store, n_items=12)  # 24 responses
    for name in ("exact-a", "exact-b"):
        server.script(name, ModelScript(latency_ms=2))
    plan, summary = run(store, loop, panel(judge("exact-a", server), judge("exact-b", server)))
    assert plan.calls_needed == 48 and plan.calls_cached == 0
    ratings = current_ratings(store)
    for name in ("exact-a", "exact-b"):
        assert {r: ratings[(r, name)][0] for r in data.expected} == data.expected
        assert server.stats(name).requests == 24 and server.stats(name).completed == 24
        assert summary.judge(name).calls_made == 24 and summary.judge(name).failures == 0
    rows = calls(store, judge="exact-a")
    assert all(r["status"] == "ok" and r["attempts"] == 1 for r in rows)
    assert all(r["latency_ms"] > 0 and r["prompt_tokens"] > 0 for r in rows)
    assert all(r["rubric_version"] == "1" and len(r["prompt_hash"]) == 16 for r in rows)


def test_second_run_makes_no_request(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    seed(store, n_items=6)
    server.script("cache-a", ModelScript())
    the_panel = panel(judge("cache-a", server))
    run(store, loop, the_panel)
    before = server.stats("cache-a").requests
    plan, summary = run(store, loop, the_panel)
    assert server.stats("cache-a").requests == before == 12
    assert (plan.calls_needed, plan.calls_cached) == (0, 12)
    assert (summary.judge("cache-a").calls_made, summary.judge("cache-a").cache_hits) == (0, 12)


def test_twenty_percent_faults_end_in_a_rating_or_a_recorded_failure(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    data = seed(store, n_items=40)  # 80 responses
    faults = ("429", "500", "timeout", "drop", "garbage", "malformed_json")
    server.script(
        "faulty",
        ModelScript(
            fault_rate=0.2, fault_kinds=faults, seed=7, retry_after_s=0.02, timeout_sleep_s=1.0
        ),
    )
    the_judge = judge("faulty", server, timeout_s=0.5, max_attempts=3)
    _, summary = run(store, loop, panel(the_judge))
    ratings = current_ratings(store)
    failed = {r["response_id"] for r in calls(store, judge="faulty", status="failed")}
    for response_id, expected in data.expected.items():
        value, reason = ratings.get((response_id, "faulty"), (None, None))
        if response_id in failed:
            continue
        # Garbage text is a paid, successful call: unscored with its reason, never a grade.
        assert value == expected or (value is None and reason == "no rating marker found")
    assert set(data.expected) == {r for r, j in ratings if j == "faulty"} | failed
    stats = server.stats("faulty")
    rows = calls(store, judge="faulty")
    assert all(1 <= r["attempts"] <= 3 for r in rows)  # bounded
    # No attempt the runner does not count (no hidden retries). An attempt can time out before
    # its request reaches the server when the machine is loaded, so the server may see fewer.
    attempts = sum(r["attempts"] for r in rows)
    assert attempts - 3 <= stats.requests <= attempts
    assert summary.judge("faulty").retries > 0
    assert summary.judge("faulty").parse_failures == stats.faults["garbage"] > 0
    # Every completion the server delivered is one stored ok call: nothing paid for twice.
    assert stats.completed == len([r for r in rows if r["status"] == "ok"])
    assert max(stats.completed_prompts.values()) == 1


def test_failed_calls_are_retried_by_the_next_run_only(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    data = seed(store, n_items=5)
    server.script("flaky", ModelScript(sequence=["500"] * 2 + [None] * 8))
    run(store, loop, panel(judge("flaky", server, max_attempts=1)))
    assert len(calls(store, judge="flaky", status="failed")) == 2
    plan, summary = run(store, loop, panel(judge("flaky", server, max_attempts=1)))
    assert (plan.calls_needed, plan.calls_cached) == (2, 8)
    assert summary.judge("flaky").failures == 0
    assert server.stats("flaky").completed == 10
    values = {r: v for (r, j), (v, _) in current_ratings(store).items() if j == "flaky"}
    assert values == data.expected


def test_one_judges_failures_never_stop_the_others(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    data = seed(store, n_items=5)
    server.script("healthy", ModelScript())
    server.script("broken", ModelScript(fault_rate=1.0, fault_kinds=("500",)))
    _, summary = run(
        store, loop, panel(judge("healthy", server), judge("broken", server, max_attempts=2))
    )
    assert summary.judge("healthy").calls_made == 10 and summary.judge("healthy").failures == 0
    broken = summary.judge("broken")
    assert broken.failures == 10 and broken.attempts == 20
    assert "InternalServerError" in (broken.last_error or "")
    assert server.stats("broken").requests == 20
    assert {r for (r, j) in current_ratings(store) if j == "healthy"} == set(data.expected)


def test_retry_after_is_honoured_and_client_errors_are_not_retried(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    seed(store, n_items=1, systems=("only",))
    server.script("polite", ModelScript(sequence=["429"], retry_after_s=0.3))
    run(store, loop, panel(judge("polite", server, retry_base_s=0.001)))
    (row,) = calls(store, judge="polite")
    assert row["status"] == "ok" and row["attempts"] == 2
    first, second = server.stats("polite").arrivals
    assert second - first >= 0.3  # the retry waited out Retry-After, not the 1 ms backoff

    server.script("rejected", ModelScript(fault_rate=1.0, fault_kinds=("400",)))
    run(store, loop, panel(judge("rejected", server)))
    (row,) = calls(store, judge="rejected")
    assert row["status"] == "failed" and row["attempts"] == 1
    assert server.stats("rejected").requests == 1


def test_a_retry_after_beyond_the_limit_fails_at_once(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    seed(store, n_items=1, systems=("only",))
    server.script("too-slow", ModelScript(sequence=["429"], retry_after_s=120))
    run(store, loop, panel(judge("too-slow", server, retry_max_s=1.0)))
    (row,) = calls(store, judge="too-slow")
    assert row["status"] == "failed" and row["attempts"] == 1
    assert "Retry-After 120 s" in row["error"]


@pytest.mark.parametrize("source", ["api_key_env", "provider default", "router reference"])
def test_api_keys_are_never_stored_or_logged(
    store: Store,
    server: JudgeServer,
    loop: BackgroundLoop,
    caplog: Any,
    monkeypatch: pytest.MonkeyPatch,
    source: str,
) -> None:
    # The server echoes the key in its 401 body, as OpenAI does. The key has no sk- shape and
    # the variables holding it have names no rule would guess (but OPENAI_API_KEY, LiteLLM's
    # default): only the judge's own key variables, or the provider's, can mask it.
    caplog.set_level(logging.DEBUG)  # LiteLLM's Router logs the failed call at INFO
    seed(store, n_items=2, systems=("only",))
    server.script("keyed", ModelScript(fault_rate=1.0, fault_kinds=("401",)))
    variable = {
        "api_key_env": "JUDGE_PASSPHRASE_VAR",
        "provider default": "OPENAI_API_KEY",
        "router reference": "POOL_PASSPHRASE_VAR",
    }[source]
    monkeypatch.setenv(variable, SECRET_KEY)
    if source == "router reference":
        the_judge = Judge(
            name="keyed",
            model="keyed-pool",
            retry_base_s=0.01,
            model_list=(
                {
                    "model_name": "keyed-pool",
                    "litellm_params": {
                        "model": "openai/keyed",
                        "api_base": server.url,
                        "api_key": f"os.environ/{variable}",
                    },
                },
            ),
        )
    else:
        # "provider default": the provider's own variable, named; with an api_base no key is
        # sent unless named (the key rule, test_key_rule.py), so the default cannot leak here.
        the_judge = judge("keyed", server, api_key_env=variable)
    _, summary = run(store, loop, panel(the_judge))
    rows = calls(store, judge="keyed")
    assert len(rows) == 2 and all(r["attempts"] == 1 for r in rows)  # 401 is not retried
    # The key was sent and echoed, and masked where it stood.
    assert all("Incorrect API key provided: ***" in r["error"] for r in rows)
    dump = stored_text(store)
    assert SECRET_KEY not in dump and SECRET_KEY[8:] not in dump
    assert SECRET_KEY not in str(summary) and SECRET_KEY not in "\n".join(summary_lines(summary))
    assert SECRET_KEY not in caplog.text
    assert all(SECRET_KEY not in r.getMessage() for r in caplog.records)


def test_identical_prompts_share_one_call(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    data = seed(store, n_items=3, systems=("one",))
    twins = [
        Response(r.response_id + "-twin", r.item_id, r.dataset, "two", r.answer)
        for r in data.responses
    ]  # same answers, but no retrieved context
    store.add_items([], twins)
    server.script("sharing", ModelScript())
    plan, _ = run(store, loop, panel(judge("sharing", server)), rubric="eve-0-5")
    assert plan.n_targets == 6 and plan.calls_needed == 3  # eve-0-5 shows no context
    assert server.stats("sharing").requests == 3
    ratings = current_ratings(store)
    for twin in twins:
        assert ratings[(twin.response_id, "sharing")] == ratings[(twin.response_id[:-5], "sharing")]
    server.script("sharing-ctx", ModelScript())
    plan, _ = run(store, loop, panel(judge("sharing-ctx", server)), rubric="eve-0-5-context")
    assert plan.calls_needed == 6  # the retrieved contexts differ, so the prompts do


def test_a_stored_call_without_its_rating_is_rated_from_its_raw_output(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    """A kill between the call's journal line and its rating's loses only the rating."""
    data = seed(store, n_items=1, systems=("only",))
    the_panel = panel(judge("lost-rating", server))
    spec = plan_run(store, the_panel, load_rubric("likert-rag")).calls[0]
    store.add_judge_calls(
        [
            JudgeCall(
                call_id="paid-before",
                cache_key=spec.cache_key,
                run_id="killed",
                judge="lost-rating",
                model="openai/lost-rating",
                rubric="likert-rag",
                rubric_version="1",
                prompt_hash=spec.prompt_hash,
                target_kind="rating",
                status="ok",
                response_id=data.responses[0].response_id,
                raw_output="Explanation: ok.\nRating: [[3]]",
            )
        ]
    )
    plan, summary = run(store, loop, the_panel)
    assert (plan.calls_needed, plan.calls_cached) == (0, 1)
    assert server.stats("lost-rating").requests == 0
    assert current_ratings(store) == {(data.responses[0].response_id, "lost-rating"): (3.0, None)}
    assert summary.judge("lost-rating").cache_hits == 1
