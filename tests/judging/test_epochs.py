"""`judge --epochs N`: N calls per answer through real LiteLLM against the loopback server,
each cached on its own, the rating the reducer of the N, and the judge's self-consistency."""

from __future__ import annotations

import json
import statistics
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from dashboard.cli import main
from dashboard.judging import BackgroundLoop, load_rubric, plan_run, reparse, run_plan
from dashboard.judging.plan import PlanError
from dashboard.judging.retry import retry_plan
from dashboard.store import Store
from scoring.workbench import self_consistency
from tests.judging.conftest import KEY_ENV, judge, panel, query, seed
from tests.support.judge_server import MARKER, JudgeServer, ModelScript

OFFSETS = (0, 1, 1)  # the k-th ask of a prompt answers its marker + OFFSETS[k], capped at 5


def shifting() -> Callable[[str], str]:
    """A judge that answers the same prompt differently each time it is asked."""
    asked: Counter[str] = Counter()
    lock = threading.Lock()

    def reply(prompt: str) -> str:
        with lock:
            k = asked[prompt] % len(OFFSETS)
            asked[prompt] += 1
        rating = min(float(MARKER.findall(prompt)[0]) + OFFSETS[k], 5)
        return f"Explanation: ask {k}.\nRating: [[{rating:g}]]"

    return reply


def epochs_of(marker: float) -> list[float]:
    return [min(marker + o, 5) for o in OFFSETS]


def mode_low(values: list[float]) -> float:
    counts = Counter(values)
    top = max(counts.values())
    return min(v for v, c in counts.items() if c == top)


def current(store: Store, name: str) -> dict[str, float]:
    rows = query(
        store,
        "SELECT response_id, value FROM current_ratings WHERE rater = ? AND rater_kind = 'llm'",
        [name],
    )
    return {r["response_id"]: r["value"] for r in rows}


@pytest.mark.parametrize(
    ("how", "reducer"),
    [("mean", statistics.mean), ("median", statistics.median), ("mode", mode_low)],
)
def test_n_calls_per_answer_the_reducer_and_a_cached_rerun(
    store: Store, server: JudgeServer, loop: BackgroundLoop, how: str, reducer: Any
) -> None:
    data = seed(store, n_items=5)  # 10 responses
    name = f"epochs-{how}"
    server.script(name, ModelScript(reply=shifting()))
    the_panel = panel(judge(name, server, temperature=1.0, seed=7))
    rubric = load_rubric("likert-rag")
    plan = plan_run(store, the_panel, rubric, epochs=3, reduce=how)
    assert plan.calls_needed == 30
    summary = loop.run(run_plan(store, plan, flush_every_s=0.2))
    assert server.stats(name).requests == 30  # N calls per answer
    assert server.stats(name).seeds == {7: 10, 8: 10, 9: 10}  # seed + epoch on the wire
    want = {r: float(reducer(epochs_of(m))) for r, m in data.expected.items()}
    assert current(store, name) == pytest.approx(want)
    consistency = summary.judge(name).self_consistency
    reference = self_consistency([epochs_of(m) for m in data.expected.values()])
    assert consistency == reference
    assert consistency is not None and consistency.n_answers == 10
    rows = query(store, "SELECT epoch, count(*) AS n FROM judge_calls GROUP BY epoch ORDER BY 1")
    assert [(r["epoch"], r["n"]) for r in rows] == [(0, 10), (1, 10), (2, 10)]
    stored = query(store, "SELECT count(*) AS n FROM epoch_ratings WHERE judge = ?", [name])
    assert stored[0]["n"] == 30

    again = plan_run(store, the_panel, rubric, epochs=3, reduce=how)
    assert (again.calls_needed, again.calls_cached) == (0, 30)
    loop.run(run_plan(store, again, flush_every_s=0.2))
    assert server.stats(name).requests == 30  # the re-run made no call
    assert current(store, name) == pytest.approx(want)


def test_one_epoch_is_todays_run_and_its_calls_are_epoch_zero(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    data = seed(store, n_items=4)
    server.script("epochs-one", ModelScript(reply=shifting()))
    the_panel = panel(judge("epochs-one", server))
    rubric = load_rubric("likert-rag")
    today = plan_run(store, the_panel, rubric)
    assert today.epochs == 1
    assert [c.cache_key for c in plan_run(store, the_panel, rubric, epochs=1).calls] == [
        c.cache_key for c in today.calls
    ]
    summary = loop.run(run_plan(store, today, flush_every_s=0.2))
    assert server.stats("epochs-one").seeds == {None: 8}  # no seed set, none sent
    assert summary.judge("epochs-one").self_consistency is None
    assert current(store, "epochs-one") == data.expected  # the first ask: offset 0
    assert query(store, "SELECT count(*) AS n FROM epoch_ratings")[0]["n"] == 0
    # Three epochs reuse today's calls as epoch 0 and pay for two more per answer.
    more = plan_run(store, the_panel, rubric, epochs=3)
    assert (more.calls_cached, more.calls_needed) == (8, 16)


def test_a_seed_changes_the_cache_key_only_when_set(store: Store, server: JudgeServer) -> None:
    seed(store, n_items=2)
    rubric = load_rubric("likert-rag")
    plain = plan_run(store, panel(judge("k", server)), rubric)
    seeded = plan_run(store, panel(judge("k", server, seed=3)), rubric)
    assert {c.cache_key for c in plain.calls}.isdisjoint(c.cache_key for c in seeded.calls)
    with pytest.raises(PlanError, match="rating rubric"):
        plan_run(
            store,
            panel(judge("k", server)),
            load_rubric("pairwise"),
            epochs=2,
            pairwise=("alpha", "beta"),
        )
    with pytest.raises(PlanError, match="at least 1"):
        plan_run(store, panel(judge("k", server)), rubric, epochs=0)


def test_cli_epochs_reports_self_consistency(
    store: Store, server: JudgeServer, capsys: Any
) -> None:
    seed(store, n_items=3)
    server.script("cli-epochs", ModelScript(reply=shifting()))
    args = [
        "--db",
        store.url,
        "judge",
        "--api-base",
        server.url,
        "--api-key-env",
        KEY_ENV,
        "--no-progress",
        "--panel",
        "openai/cli-epochs",
        "--rubric",
        "likert-rag",
        "--epochs",
        "3",
        "--reduce",
        "median",
        "--temperature",
        "0.7",
        "--seed",
        "11",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "3 epochs per answer, rating = their median" in out
    assert "openai/cli-epochs: self-consistency over 3 epochs of 6 answers" in out
    assert "(95% intervals over the answers, n = 6)" in out
    assert server.stats("cli-epochs").requests == 18
    assert main(args) == 0
    assert server.stats("cli-epochs").requests == 18


def test_metrics_json_carries_the_self_consistency(
    store: Store, server: JudgeServer, loop: BackgroundLoop, capsys: Any
) -> None:
    data = seed(store, n_items=4)  # 8 responses
    server.script("json-epochs", ModelScript(reply=shifting()))
    plan = plan_run(store, panel(judge("json-epochs", server)), load_rubric("likert-rag"), epochs=3)
    loop.run(run_plan(store, plan, flush_every_s=0.2))
    assert main(["--db", store.url, "metrics", "--json", "--rubric", "likert-rag"]) == 0
    found = json.loads(capsys.readouterr().out)["metrics"]
    reference = self_consistency([epochs_of(m) for m in data.expected.values()])
    name = "judges.json-epochs.self_consistency"
    assert found[f"{name}.mean_sd"]["value"] == pytest.approx(reference.mean_sd)
    assert found[f"{name}.share_all_agree"]["value"] == pytest.approx(reference.share_all_agree)
    assert found[f"{name}.alpha"]["value"] == pytest.approx(reference.alpha)
    assert found[f"{name}.alpha"]["n"] == 8
    for key in ("mean_sd", "share_all_agree", "alpha"):  # each with its interval over answers
        ci = getattr(reference, f"{key}_ci")
        assert (found[f"{name}.{key}"]["low"], found[f"{name}.{key}"]["high"]) == pytest.approx(
            (ci.low, ci.high)
        )
        assert found[f"{name}.{key}"]["low"] <= found[f"{name}.{key}"]["value"]


def test_unparsed_epochs_are_skipped_and_none_parsed_is_unscored(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    data = seed(store, n_items=3)
    asked: Counter[str] = Counter()
    lock = threading.Lock()

    def second_is_vague(prompt: str) -> str:
        with lock:
            k = asked[prompt]
            asked[prompt] += 1
        marker = float(MARKER.findall(prompt)[0])
        return "Roughly fine." if k == 1 else f"Rating: [[{min(marker + k, 5):g}]]"

    server.script("epochs-vague", ModelScript(reply=second_is_vague))
    server.script("epochs-mute", ModelScript(reply=lambda prompt: "No idea."))
    the_panel = panel(judge("epochs-vague", server), judge("epochs-mute", server))
    plan = plan_run(store, the_panel, load_rubric("likert-rag"), epochs=3)
    summary = loop.run(run_plan(store, plan, flush_every_s=0.2))
    # epochs 0 and 2 parse: marker and marker + 2 (capped at 5)
    want = {r: (m + min(m + 2, 5)) / 2 for r, m in data.expected.items()}
    assert current(store, "epochs-vague") == pytest.approx(want)
    assert summary.judge("epochs-vague").parse_failures == 6
    mute = query(
        store,
        "SELECT value, unscored_reason FROM current_ratings WHERE rater = 'epochs-mute'",
    )
    assert len(mute) == 6 and all(r["value"] is None for r in mute)
    assert all(r["unscored_reason"].startswith("no epoch of 3 parsed") for r in mute)
    assert reparse(store, rubric="likert-rag").ratings_checked == 0  # one epoch is not the rating


def test_an_answer_with_a_failed_epoch_waits_for_its_retry(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    data = seed(store, n_items=2)  # 4 responses, 12 calls
    server.script("epochs-retry", ModelScript(reply=shifting(), sequence=("400",)))
    the_panel = panel(judge("epochs-retry", server, concurrency=1))
    plan = plan_run(store, the_panel, load_rubric("likert-rag"), epochs=3)
    summary = loop.run(run_plan(store, plan, flush_every_s=0.2))
    assert summary.failures == 1
    assert len(current(store, "epochs-retry")) == 3  # the answer missing an epoch has none
    again = retry_plan(store, plan, summary)
    assert again is not None and (again.calls_needed, again.calls_cached) == (1, 2)
    loop.run(run_plan(store, again, flush_every_s=0.2))
    assert set(current(store, "epochs-retry")) == set(data.expected)
    assert server.stats("epochs-retry").requests == 13


def test_epochs_over_two_workers_send_each_epochs_seed_and_reduce_the_same(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    """`--epochs` with `--workers`: each worker's call carries its epoch (seed + epoch on the
    wire), every ask is made once, and the reduced ratings are those of one process."""
    data = seed(store, n_items=5)  # 10 responses
    name = "epochs-workers"
    server.script(name, ModelScript(reply=shifting()))
    the_panel = panel(judge(name, server, temperature=1.0, seed=7))
    plan = plan_run(store, the_panel, load_rubric("likert-rag"), epochs=3, reduce="mean")
    summary = loop.run(run_plan(store, plan, flush_every_s=0.2, workers=2))
    assert summary.calls_made == 30 and summary.failures == 0
    assert server.stats(name).requests == 30
    assert server.stats(name).seeds == {7: 10, 8: 10, 9: 10}
    want = {r: float(statistics.mean(epochs_of(m))) for r, m in data.expected.items()}
    assert current(store, name) == pytest.approx(want)
    stored = query(store, "SELECT count(*) AS n FROM epoch_ratings WHERE judge = ?", [name])
    assert stored[0]["n"] == 30
