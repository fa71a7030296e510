"""The protocol benchmark's checks (bench/protocol_checks.py) on a real store: a campaign's k
(labels given through the campaign's rules reach k and no further; a label written around
the rules is counted over k), every confirmed save one row (a refused save is none), and no
judge call made twice (a call whose record was lost is made again, and counted)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bench.bench_judge import seed
from bench.protocol_checks import campaign_check, judge_check, saves_check
from bench.protocol_load import JUDGE, JUDGE_MODEL, KEY_ENV
from bench.streamlit_client import Save
from dashboard.campaigns import campaigns
from dashboard.campaigns.campaigns_sql import Assignment
from dashboard.judging import load_rubric, plan_run, run_plan
from dashboard.judging.panel import Judge, Panel
from dashboard.review import annotation
from dashboard.store import Store
from tests.support.judge_server import JudgeServer

CAMPAIGN = "k-check"


def _provenance(taken: Assignment) -> annotation.Provenance:
    return annotation.Provenance(taken.selection, taken.inclusion_probability, CAMPAIGN, True)


def _label(store: Store, person: str) -> str:
    """`person` takes the campaign's next answer and labels it, as the Annotate page does."""
    taken = campaigns.assign(store, CAMPAIGN, person)
    assert taken is not None
    annotation.rate(
        store,
        taken.response_id,
        annotator=person,
        rubric="likert-rag",
        rubric_version="1",
        value=3.0,
        scale=(1, 5),
        provenance=_provenance(taken),
    )
    return taken.response_id


def test_the_k_check_counts_answers_at_k_and_a_label_past_k(sample_store: Store) -> None:
    rubric = load_rubric("likert-rag")
    campaigns.create_campaign(
        sample_store, CAMPAIGN, rubric, dataset="eo-rag", rule="random", size=3, overlap=2
    )
    first = _label(sample_store, "bench-proto-001")
    assert _label(sample_store, "bench-proto-002") == first  # the front of the same order
    second = _label(sample_store, "bench-proto-003")
    assert second != first  # the first has its k = 2 labels
    address = sample_store.url
    assert campaign_check(address, CAMPAIGN, 2) == {
        "k": 2,
        "answers": 3,
        "labels": 3,
        "answers_labelled": 2,
        "answers_at_k": 1,
        "over_k": 0,
    }

    saves = {
        "bench-proto-001": [Save(first, 0.1)],
        "bench-proto-002": [Save(first, 0.1)],
        "bench-proto-003": [Save(second, 0.1), Save(first, 0.1, refused=True)],
    }
    checked = saves_check(address, saves, like="bench-proto-%", leave_out="nobody")
    assert checked == {
        "saves": 3,
        "refused": 1,
        "rows": 3,
        "lost": 0,
        "duplicated": 0,
        "unexpected": 0,
    }

    # the rules refuse a third label of the first answer; written around them, it is over k
    past = annotation.human_rating(
        first,
        annotator="bench-proto-003",
        rubric="likert-rag",
        rubric_version="1",
        value=4.0,
        scale=(1, 5),
        provenance=annotation.Provenance("random", None, CAMPAIGN, True),
    )
    sample_store.add_ratings([past])
    assert campaign_check(address, CAMPAIGN, 2)["over_k"] == 1
    checked = saves_check(address, saves, like="bench-proto-%", leave_out="nobody")
    assert checked["unexpected"] == 1


def test_the_judge_check_finds_a_call_made_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "bench-key")
    store = Store(tmp_path / "judged.duckdb", wait_s=20.0)
    seed(store, 6)
    with JudgeServer() as server:
        judge = Judge(name=JUDGE, model=JUDGE, api_base=server.url, api_key_env=KEY_ENV)
        panel, rubric = Panel("bench", (judge,)), load_rubric("likert-rag")
        summary = asyncio.run(run_plan(store, plan_run(store, panel, rubric, dataset="bench")))
        assert summary.calls_made == 6 and summary.failures == 0
        found = judge_check(store.url, JUDGE, server.url, JUDGE_MODEL)
        assert found == {"calls": 6, "ok": 6, "rows": 6, "requests": 6, "made_twice": 0}

        # the store forgets its calls: the next run makes each of them again
        with store.connection() as con:
            con.execute("DELETE FROM judge_calls")
        asyncio.run(run_plan(store, plan_run(store, panel, rubric, dataset="bench")))
        found = judge_check(store.url, JUDGE, server.url, JUDGE_MODEL)
        assert found == {"calls": 6, "ok": 6, "rows": 6, "requests": 12, "made_twice": 6}
    store.close()
