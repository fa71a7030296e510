"""Judge QA probes against the loopback server, through real LiteLLM and the runner's cache:
a padded copy's shift is the padding bias, a probe run twice costs no call, the order probe
reuses the pairwise run's calls, and no probe enters a system's numbers."""

from __future__ import annotations

from dashboard.judging import BackgroundLoop, load_rubric, plan_run, run_plan
from dashboard.judging.plan import RunPlan
from dashboard.judging.probes import PADDING_SENTENCE, plan_probe
from dashboard.metrics import overview
from dashboard.metrics.judge_qa import judge_bias as bias_module
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from tests.judging.conftest import judge, panel, query, seed
from tests.support.judge_server import MARKER, JudgeServer, ModelScript, always


def _padding_minded(prompt: str) -> str:
    """Rates by the marker, one point higher when the answer carries the padding sentence."""
    rating = float(MARKER.findall(prompt)[0]) + (1 if PADDING_SENTENCE in prompt else 0)
    return f"Explanation: scripted.\nRating: [[{rating:g}]]"


def _run(store: Store, loop: BackgroundLoop, plan: RunPlan) -> None:
    loop.run(run_plan(store, plan, flush_every_s=0.2))


def test_padding_probe_measures_the_shift_and_is_cached(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    seed(store, n_items=10, low=1, high=4)  # ratings 1-4 on the 1-5 rubric: +1 stays on it
    server.script("pad-judge", ModelScript(reply=_padding_minded))
    the_panel = panel(judge("pad-judge", server))
    rubric = load_rubric("likert-rag")
    _run(store, loop, plan_run(store, the_panel, rubric, dataset="demo"))
    before = overview.overview(store, Selection("demo", "likert-rag"))
    n_ratings = query(store, "SELECT count(*) AS n FROM ratings")[0]["n"]
    requests = server.stats("pad-judge").requests

    plan = plan_probe(store, the_panel, rubric, kind="padding", dataset="demo", sample_size=8)
    assert plan.calls_needed == 8 and plan.probe == "padding"
    _run(store, loop, plan)
    assert server.stats("pad-judge").requests == requests + 8
    again = plan_probe(store, the_panel, rubric, kind="padding", dataset="demo", sample_size=8)
    assert again.calls_needed == 0 and again.calls_cached == 8
    _run(store, loop, again)
    assert server.stats("pad-judge").requests == requests + 8  # the second run cost no call

    probes = query(store, "SELECT * FROM probes")
    assert len(probes) == 8 and {p["kind"] for p in probes} == {"padding"}
    found = bias_module.bias(store, Selection("demo", "likert-rag"))
    padding = found.judges[0].padding
    assert padding is not None and (padding.value, padding.n) == (1.0, 8)
    # Perturbed copies stay apart: ratings and every system number are as before.
    assert query(store, "SELECT count(*) AS n FROM ratings")[0]["n"] == n_ratings
    assert overview.overview(store, Selection("demo", "likert-rag")) == before
    versions = {c["model_version"] for c in query(store, "SELECT model_version FROM judge_calls")}
    assert versions == {"pad-judge"}  # what the server reported in the response's `model`


def test_order_probe_reuses_the_pairwise_calls(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    seed(store, n_items=6)
    server.script("first-judge", ModelScript(reply=always("Verdict: [[A]]")))
    the_panel = panel(judge("first-judge", server))
    rubric = load_rubric("pairwise")
    _run(store, loop, plan_run(store, the_panel, rubric, pairwise=("alpha", "beta")))
    requests = server.stats("first-judge").requests
    plan = plan_probe(
        store, the_panel, rubric, kind="order", pairwise=("alpha", "beta"), sample_size=4
    )
    assert plan.calls_needed == 0 and plan.n_targets == 8  # 4 pairs in both orders
    _run(store, loop, plan)
    assert server.stats("first-judge").requests == requests
    assert len(query(store, "SELECT * FROM probes WHERE kind = 'order'")) == 8
    position = bias_module.bias(store, Selection("demo")).judges[0].position
    assert position is not None and (position.value, position.n) == (1.0, 12)  # 6 pairs x 2
