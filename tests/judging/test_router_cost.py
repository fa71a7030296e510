"""Router model lists (several deployments, fallbacks) and cost accounting."""

from __future__ import annotations

from typing import Any

import pytest

from dashboard.judging import BackgroundLoop, load_rubric, plan_run, run_plan
from dashboard.judging.panel import Judge
from dashboard.store import Store
from tests.judging.conftest import KEY_ENV, judge, panel, seed
from tests.support.judge_server import JudgeServer, ModelScript


def deployment(group: str, name: str, server: JudgeServer) -> dict[str, Any]:
    return {
        "model_name": group,
        "litellm_params": {
            "model": f"openai/{name}",
            "api_base": server.url,
            "api_key": f"os.environ/{KEY_ENV}",
        },
    }


def ratings_of(store: Store, rater: str) -> dict[str, float | None]:
    with store.connection() as con:
        rows = con.execute(
            "SELECT response_id, value FROM current_ratings WHERE rater = ?", [rater]
        ).fetchall()
    return dict(rows)


def test_a_router_spreads_one_judge_over_deployments(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    data = seed(store, n_items=15)
    for name in ("replica-1", "replica-2"):
        server.script(name, ModelScript(latency_ms=2))
    pool = Judge(
        name="pool",
        model="pool",
        model_list=(
            deployment("pool", "replica-1", server),
            deployment("pool", "replica-2", server),
        ),
        concurrency=4,
        retry_base_s=0.01,
    )
    plan = plan_run(store, panel(pool), load_rubric("likert-rag"))
    summary = loop.run(run_plan(store, plan))
    first, second = server.stats("replica-1").completed, server.stats("replica-2").completed
    assert first + second == 30 and first > 0 and second > 0
    assert summary.judge("pool").failures == 0
    assert ratings_of(store, "pool") == data.expected


def test_a_router_falls_back_when_its_deployments_fail(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    data = seed(store, n_items=4)
    server.script("down", ModelScript(fault_rate=1.0, fault_kinds=("500",)))
    server.script("standby", ModelScript())
    pool = Judge(
        name="with-fallback",
        model="primary",
        fallbacks=("backup",),
        model_list=(deployment("primary", "down", server), deployment("backup", "standby", server)),
        concurrency=2,
        retry_base_s=0.01,
    )
    plan = plan_run(store, panel(pool), load_rubric("likert-rag"))
    summary = loop.run(run_plan(store, plan))
    assert summary.judge("with-fallback").failures == 0
    assert server.stats("standby").completed == 8 and server.stats("down").requests >= 1
    assert ratings_of(store, "with-fallback") == data.expected


def test_router_caches_ignore_which_replica_answered(server: JudgeServer) -> None:
    one = Judge(name="p", model="p", model_list=(deployment("p", "m", server),))
    two = Judge(
        name="p",
        model="p",
        model_list=(
            deployment("p", "m", server),
            {
                **deployment("p", "m", server),
                "litellm_params": {"model": "openai/m", "api_base": "http://127.0.0.1:1/v1"},
            },
        ),
    )
    assert one.cache_identity() == two.cache_identity()


def test_panel_prices_give_exact_costs_and_unknown_models_unknown(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    seed(store, n_items=3)
    server.script("priced", ModelScript())
    server.script("unpriced", ModelScript())
    priced = judge("priced", server, input_cost_per_token=1e-6, output_cost_per_token=2e-6)
    plan = plan_run(store, panel(priced, judge("unpriced", server)), load_rubric("likert-rag"))
    assert plan.judges[0].estimated_cost_usd > 0 and plan.judges[1].estimated_cost_usd is None
    assert plan.estimated_cost_usd is None  # one unknown judge makes the total unknown
    summary = loop.run(run_plan(store, plan))
    with store.connection() as con:
        rows = con.execute(
            "SELECT judge, prompt_tokens, completion_tokens, cost_usd FROM judge_calls"
        ).fetchall()
    for name, prompt_tokens, completion_tokens, cost in rows:
        if name == "priced":
            assert cost == pytest.approx(prompt_tokens * 1e-6 + completion_tokens * 2e-6)
        else:
            assert cost is None
    assert summary.judge("priced").cost_usd == pytest.approx(
        sum(r[3] for r in rows if r[0] == "priced")
    )
    assert summary.judge("unpriced").cost_usd is None
    assert summary.judge("unpriced").cost_unknown_calls == 6


def test_litellm_prices_a_model_it_knows(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    seed(store, n_items=1, systems=("only",))
    server.script("gpt-4o-mini", ModelScript())
    known = judge("gpt-4o-mini", server)  # openai/gpt-4o-mini is in LiteLLM's price map
    plan = plan_run(store, panel(known), load_rubric("likert-rag"))
    assert plan.estimated_cost_usd is not None and plan.estimated_cost_usd > 0
    summary = loop.run(run_plan(store, plan))
    assert summary.judge("gpt-4o-mini").cost_usd > 0


def test_cost_comes_from_token_counts_at_litellms_prices(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    """Priced once per model from LiteLLM's map, then tokens x price for every call."""
    from dashboard.judging.llm import litellm_module

    litellm = litellm_module()
    seed(store, n_items=2, systems=("only",))
    server.script("gpt-4o", ModelScript())
    loop.run(
        run_plan(store, plan_run(store, panel(judge("gpt-4o", server)), load_rubric("likert-rag")))
    )
    with store.connection() as con:
        rows = con.execute(
            "SELECT prompt_tokens, completion_tokens, cost_usd FROM judge_calls "
            "WHERE judge = 'gpt-4o'"
        ).fetchall()
    assert len(rows) == 2
    for prompt_tokens, completion_tokens, cost in rows:
        expected = sum(
            litellm.cost_per_token(
                model="openai/gpt-4o",
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
            )
        )
        assert cost == pytest.approx(expected) and cost > 0
