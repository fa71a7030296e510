"""Drift on anchor items against the loopback server, through real LiteLLM: a judge whose
model version changes is re-judged on the anchors; its shift there, with its interval, and
the part of each system's change that it accounts for."""

from __future__ import annotations

from dashboard.judging import BackgroundLoop, load_rubric, plan_run, run_plan
from dashboard.metrics.judge_qa import judge_drift as drift_module
from dashboard.store import Store
from tests.judging.conftest import judge, panel, seed
from tests.support.judge_server import MARKER, JudgeServer, ModelScript


def _harsher(prompt: str) -> str:
    """The new model version: one point lower than the marker on everything."""
    return f"Rating: [[{float(MARKER.findall(prompt)[0]) - 1:g}]]"


def test_anchor_shift_and_the_judges_share_of_a_systems_change(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    seed(store, n_items=10, low=2, high=5)  # ratings 2-5: one lower stays on the 1-5 scale
    assert drift_module.add_anchors(store, dataset="demo", sample_size=6, seed=1) == 6
    anchors = drift_module.anchor_ids(store, dataset="demo")
    assert len(anchors) == 6
    server.script("drift-v1", ModelScript())
    server.script("drift-v2", ModelScript(reply=_harsher))
    rubric = load_rubric("likert-rag")
    old = panel(judge("drifty", server, model="openai/drift-v1"))
    new = panel(judge("drifty", server, model="openai/drift-v2"))
    loop.run(run_plan(store, plan_run(store, old, rubric, dataset="demo"), flush_every_s=0.2))
    # The model version changed: the anchors are re-judged first, then everything.
    plan = plan_run(store, new, rubric, dataset="demo", response_ids=anchors)
    assert plan.n_targets == 6 and plan.calls_needed == 6
    loop.run(run_plan(store, plan, flush_every_s=0.2))
    again = plan_run(store, new, rubric, dataset="demo", response_ids=anchors)
    assert again.calls_needed == 0  # re-judging the same anchors again costs no call
    found = drift_module.drift(store, rubric="likert-rag", dataset="demo")
    assert found.n_anchors == 6
    (drifty,) = found.judges
    assert drifty.old_version.endswith("drift-v1") and drifty.new_version.endswith("drift-v2")
    assert drifty.anchor_shift is not None
    assert (drifty.anchor_shift.value, drifty.anchor_shift.n) == (-1.0, 6)
    loop.run(run_plan(store, plan_run(store, new, rubric, dataset="demo"), flush_every_s=0.2))
    found = drift_module.drift(store, rubric="likert-rag", dataset="demo")
    for change in found.judges[0].systems:  # each system "fell" by 1: all of it is the judge's
        assert change.change is not None and change.change.value == -1.0
        assert change.judge_share == 1.0
