"""A rule-filled campaign grows after a judge run (`campaigns.rules.fill_after_run`): its
filter asks for a low judge score, which no answer has before the judges rate them; after a
run on the loopback server, through real LiteLLM, exactly the answers the judge scored low
join it, lowest first, and a second run adds none twice."""

from __future__ import annotations

from dashboard.campaigns import campaigns
from dashboard.campaigns.rules import CampaignFilter
from dashboard.judging import BackgroundLoop, load_rubric, plan_run, run_plan
from dashboard.store import Store
from tests.judging.conftest import judge, panel, seed
from tests.support.judge_server import JudgeServer, ModelScript


def _items(store: Store) -> list[str]:
    with store.connection() as con:
        rows = con.execute(
            "SELECT response_id FROM campaign_items WHERE campaign = 'low' ORDER BY position"
        ).fetchall()
    return [row[0] for row in rows]


def test_a_rule_filled_campaign_grows_after_a_judge_run(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    seeded = seed(store, n_items=10)  # ratings cycle 1-5 through the answers' markers
    rubric = load_rubric("likert-rag")
    made = campaigns.create_campaign(
        store,
        "low",
        rubric,
        dataset="demo",
        rule="worst",
        size=50,
        rule_filter=CampaignFilter(score_high=0.25),  # 1 or 2 on 1-5: (v - 1) / 4 <= 0.25
    )
    assert made.n_items == 0  # no judge score yet: nothing matches
    server.script("rule-fill", ModelScript())
    judges = panel(judge("filler", server, model="openai/rule-fill"))
    loop.run(run_plan(store, plan_run(store, judges, rubric, dataset="demo"), flush_every_s=0.2))
    low = {rid for rid, rating in seeded.expected.items() if rating <= 2}
    assert len(low) == 8  # 20 answers, ratings 1-5 in turn: four of each
    grown = _items(store)
    assert set(grown) == low and len(grown) == len(low)
    assert {seeded.expected[r] for r in grown[:4]} == {1.0}  # lowest judge score first
    loop.run(run_plan(store, plan_run(store, judges, rubric, dataset="demo"), flush_every_s=0.2))
    assert _items(store) == grown  # a run that changes nothing adds nothing
