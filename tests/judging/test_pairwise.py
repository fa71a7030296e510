"""Pairwise judging: both orders, verdicts mapped back to the canonical pair, flip rates."""

from __future__ import annotations

from dashboard.judging import BackgroundLoop, load_rubric, plan_run, run_plan
from dashboard.store import Store
from scoring.pairwise import reconcile_swap
from tests.judging.conftest import judge, panel, seed
from tests.support.judge_server import JudgeServer, ModelScript, always


def test_both_orders_are_judged_and_flips_recorded(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    data = seed(store, n_items=6, systems=("alpha", "beta"))
    server.script("fair", ModelScript())
    server.script("biased", ModelScript(reply=always("Explanation: first is best.\n[[A]]")))
    plan = plan_run(
        store,
        panel(judge("fair", server), judge("biased", server)),
        load_rubric("pairwise"),
        pairwise=("alpha", "beta"),
    )
    assert plan.n_targets == 12 and plan.calls_needed == 24
    summary = loop.run(run_plan(store, plan, flush_every_s=0.2))
    assert server.stats("fair").requests == 12 and server.stats("biased").requests == 12

    with store.connection() as con:
        rows = con.execute(
            "SELECT rater, item_id, response_a, response_b, shown_first, verdict "
            "FROM current_preferences ORDER BY rater, item_id, shown_first"
        ).fetchall()
        # judge -> (flip rate, pairs judged in both orders), from the stored preferences
        flips = {
            rater: (float(rate), n)
            for rater, rate, n in con.execute("""
            WITH v AS (
                SELECT rater, item_id, response_a, response_b,
                       max(verdict) FILTER (WHERE shown_first = 'A') AS first_a,
                       max(verdict) FILTER (WHERE shown_first = 'B') AS first_b
                FROM current_preferences WHERE rubric = 'pairwise' GROUP BY ALL)
            SELECT rater, avg(CASE WHEN first_a <> first_b THEN 1.0 ELSE 0.0 END), count(*)
            FROM v GROUP BY rater""").fetchall()
        }
        runs = {
            j: (rate, n)
            for _, j, rate, n in con.execute(
                "SELECT run_id, judge, flip_rate, n_pairs FROM judge_runs"
            ).fetchall()
        }
    alpha = {r.item_id: r for r in data.system("alpha")}
    by_pair: dict[tuple[str, str], dict[str, str]] = {}
    for rater, item_id, a, _b, shown_first, verdict in rows:
        assert a == alpha[item_id].response_id  # canonical: alpha is response_a
        by_pair.setdefault((rater, item_id), {})[shown_first] = verdict
    assert len(by_pair) == 12 and all(set(v) == {"A", "B"} for v in by_pair.values())
    for item_id, response in alpha.items():
        beta = next(r for r in data.system("beta") if r.item_id == item_id)
        better = (
            "A" if data.expected[response.response_id] > data.expected[beta.response_id] else "B"
        )
        assert by_pair[("fair", item_id)] == {"A": better, "B": better}
        # Always "[[A]]" means the first shown wins: canonical A, then canonical B.
        assert by_pair[("biased", item_id)] == {"A": "A", "B": "B"}
        assert reconcile_swap("A", "B") == "tie"
    assert summary.judge("fair").flip_rate == 0.0 and summary.judge("biased").flip_rate == 1.0
    assert summary.judge("biased").n_pairs == 6
    assert flips == {"biased": (1.0, 6), "fair": (0.0, 6)}
    assert runs == {"biased": (1.0, 6), "fair": (0.0, 6)}


def test_a_second_pairwise_run_is_cached_and_keeps_the_flip_rate(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    seed(store, n_items=3, systems=("alpha", "beta"))
    server.script("again", ModelScript(reply=always("[[A]]")))
    the_panel = panel(judge("again", server))
    plan = plan_run(store, the_panel, load_rubric("pairwise"), pairwise=("alpha", "beta"))
    loop.run(run_plan(store, plan))
    plan = plan_run(store, the_panel, load_rubric("pairwise"), pairwise=("alpha", "beta"))
    summary = loop.run(run_plan(store, plan))
    assert plan.calls_needed == 0 and server.stats("again").requests == 6
    assert summary.judge("again").flip_rate == 1.0 and summary.judge("again").cache_hits == 6


def test_a_runs_flip_rate_counts_only_pairs_scored_in_both_orders() -> None:
    from dashboard.judging.summary import Tally

    tally = Tally()
    tally.verdicts = {
        ("i0", "a", "b"): {"A": "A", "B": "A"},  # consistent
        ("i1", "a", "b"): {"A": "A", "B": "B"},  # a flip
        ("i2", "a", "b"): {"A": "A", "B": None},  # an unparsed order: left out
        ("i3", "a", "b"): {"A": "B"},  # one order so far: left out
    }
    assert tally.flips() == (0.5, 2)
