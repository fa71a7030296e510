"""Judge-corrected estimates, named panels and paired comparisons on real DuckDB stores,
checked against ppi_py (the reference PPI implementation) and hand arithmetic."""

from __future__ import annotations

import dataclasses

import numpy as np
import ppi_py
import pytest

from dashboard.metrics import corrected, panels
from dashboard.metrics.corrected import compare
from dashboard.metrics.output import gates, metrics_json
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from tests.builders import item, preference, rating, response

N_ITEMS = 60


def _build(store: Store, *, seed: int = 1, labelled: int = 20, selection: str = "random"):
    """Items 0..N answered by "good" and "bad"; judge j1 rates every response (too kindly:
    +1 point), judge oneoff only some; the person ana rates the first `labelled` items of
    each system with the given selection, and ben rates items 20..29 targeted (worst first),
    which must never count."""
    rng = np.random.default_rng(seed)
    items = [item("toy", n) for n in range(N_ITEMS)]
    good = [response(it, "good", f"paris {n}") for n, it in enumerate(items)]
    bad = [response(it, "bad", f"london {n}") for n, it in enumerate(items)]
    store.add_items(items, good + bad)
    truth = {"good": rng.integers(3, 6, N_ITEMS), "bad": rng.integers(1, 4, N_ITEMS)}
    ratings = []
    for system, responses in (("good", good), ("bad", bad)):
        for n, resp in enumerate(responses):
            human = int(truth[system][n])
            ratings.append(rating(resp, "j1", min(5, human + int(rng.integers(0, 2)))))
            if n % 3 == 0:
                ratings.append(rating(resp, "oneoff", 1))
            if n < labelled:
                ratings.append(rating(resp, "ana", human, kind="human", selection=selection))
            elif n < 30:
                ratings.append(rating(resp, "ben", 1, kind="human", selection="targeted"))
    store.add_ratings(ratings)
    return truth


def _arrays(store: Store, system: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The labelled (y, f) and the unlabelled f of a system, read back with plain SQL."""
    with store.connection() as con:
        rows = con.execute(
            """
            SELECT r.response_id,
                   avg((g.value - 1) / 4) FILTER (WHERE g.rater = 'j1') AS f,
                   avg((g.value - 1) / 4) FILTER (WHERE g.rater = 'ana') AS y
            FROM responses r JOIN current_ratings g USING (response_id)
            WHERE r.system = ? GROUP BY r.response_id ORDER BY r.response_id""",
            [system],
        ).fetchall()
    lab = [(f, y) for _, f, y in rows if y is not None]
    rest = np.array([f for _, f, y in rows if y is None])
    return np.array([y for _, y in lab]), np.array([f for f, _ in lab]), rest


PANEL_J1 = Selection("toy", panel="j1")


def test_the_corrected_score_is_ppi_py_on_the_valid_labels(store: Store) -> None:
    _build(store)
    found = {s.system: s for s in corrected.corrected(store, PANEL_J1).systems}
    for system in ("good", "bad"):
        y, f, rest = _arrays(store, system)
        low, high = (float(np.ravel(v)[0]) for v in ppi_py.ppi_mean_ci(y, f, rest, alpha=0.05))
        point = float(np.ravel(ppi_py.ppi_mean_pointestimate(y, f, rest))[0])
        got = found[system].score.corrected
        assert got is not None
        assert (got.value, got.low, got.high) == pytest.approx((point, low, high), abs=1e-9)
        assert got.n == N_ITEMS
        human = found[system].score.human_only
        assert human is not None and human.value == pytest.approx(y.mean())  # ben's never count
        judge = found[system].score.judge_only
        assert judge is not None
        assert judge.value == pytest.approx(np.concatenate([f, rest]).mean())
        assert found[system].n_valid_labels == 20


def test_pass_rates_are_ppi_py_on_the_pass_indicators(store: Store) -> None:
    _build(store)
    got = {s.system: s for s in corrected.corrected(store, PANEL_J1).systems}["bad"]
    y, f, rest = _arrays(store, "bad")
    yp, fp, restp = ((v >= 0.5).astype(float) for v in (y, f, rest))
    low, high = (float(np.ravel(v)[0]) for v in ppi_py.ppi_mean_ci(yp, fp, restp, alpha=0.05))
    assert got.pass_rate.corrected is not None
    assert (got.pass_rate.corrected.low, got.pass_rate.corrected.high) == pytest.approx(
        (low, high), abs=1e-9
    )
    assert got.pass_rate.human_only is not None
    assert got.pass_rate.human_only.value == pytest.approx(yp.mean())


def test_inclusion_probabilities_weight_the_labels(store: Store) -> None:
    _build(store, labelled=0)
    with store.connection() as con:
        ids = [
            r[0]
            for r in con.execute(
                "SELECT response_id FROM responses WHERE system = 'good' ORDER BY response_id"
            ).fetchall()
        ]
        values = dict(
            con.execute("SELECT response_id, value FROM ratings WHERE rater = 'j1'").fetchall()
        )
    chosen = ids[:24]
    probability = [0.2 if i % 2 else 0.6 for i in range(len(chosen))]
    store.add_ratings(
        [
            dataclasses.replace(
                rating(response_of(store, rid), "ana", min(5, values[rid]), kind="human"),
                selection="random",
                inclusion_probability=p,
            )
            for rid, p in zip(chosen, probability)
        ]
    )
    y = np.array([(min(5, values[r]) - 1) / 4 for r in chosen])
    f = np.array([(values[r] - 1) / 4 for r in chosen])
    rest = np.array([(values[r] - 1) / 4 for r in ids[24:]])
    w = 1 / np.array(probability)
    low, high = (float(np.ravel(v)[0]) for v in ppi_py.ppi_mean_ci(y, f, rest, alpha=0.05, w=w))
    got = {s.system: s for s in corrected.corrected(store, PANEL_J1).systems}["good"]
    assert got.score.corrected is not None
    assert (got.score.corrected.low, got.score.corrected.high) == pytest.approx((low, high))
    assert got.score.human_only is not None
    assert got.score.human_only.value == pytest.approx(np.average(y, weights=w))


def response_of(store: Store, response_id: str):
    from dashboard.types import Response

    with store.connection() as con:
        row = con.execute(
            "SELECT item_id, dataset, system, answer FROM responses WHERE response_id = ?",
            [response_id],
        ).fetchone()
    assert row is not None
    return Response(response_id, row[0], row[1], row[2], row[3])


@pytest.mark.parametrize("selection", ["targeted", "unknown", None])
def test_targeted_and_unknown_labels_give_no_corrected_score_and_say_so(
    store: Store, selection: str | None
) -> None:
    _build(store, selection=selection)  # type: ignore[arg-type]  # None: not recorded
    found = corrected.corrected(store, PANEL_J1)
    assert all(s.score.corrected is None and s.score.human_only is None for s in found.systems)
    assert any("No valid human sample" in n for n in found.notes)
    data = metrics_json.compute(store, PANEL_J1)[2]
    assert "systems.good.corrected" not in data["metrics"]
    assert "systems.good.judge_only" in data["metrics"]
    assert any("No valid human sample" in n for n in data["notes"]["corrected"])


def test_census_labels_count_with_weight_one(store: Store) -> None:
    _build(store, labelled=N_ITEMS, selection="census")
    got = {s.system: s for s in corrected.corrected(store, PANEL_J1).systems}["good"]
    y, _, rest = _arrays(store, "good")
    assert rest.size == 0
    assert got.score.corrected is not None
    # Every response labelled: the corrected score is the labels' mean (lambda 0), with the
    # classical interval mean +- 1.96 * sd / sqrt(n) (sd with ddof 0, as ppi_py).
    half = 1.959963984540054 * y.std() / np.sqrt(y.size)
    assert (got.score.corrected.value, got.score.corrected.high) == pytest.approx(
        (y.mean(), y.mean() + half)
    )


def test_a_one_off_judge_outside_the_panel_changes_no_panel_number(store: Store) -> None:
    _build(store)
    with_oneoff = metrics_json.compute(store, Selection("toy", panel="all-judges"))[2]
    only_j1 = metrics_json.compute(store, PANEL_J1)[2]
    numbers = only_j1["metrics"]
    # The one-off judge keeps its own column ...
    assert "systems.good.judge.oneoff" in numbers
    # ... and the panel's numbers are j1's alone: the panel is j1's mean.
    assert numbers["systems.good.panel"]["value"] == pytest.approx(
        numbers["systems.good.judge.j1"]["value"]
    )
    assert with_oneoff["metrics"]["systems.good.panel"]["value"] != pytest.approx(
        numbers["systems.good.panel"]["value"]
    )
    assert only_j1["selection"]["panel"] == "j1"
    assert only_j1["selection"]["panel_judges"] == ["j1"]
    assert only_j1["selection"]["panel_version"] == "1"
    assert with_oneoff["selection"]["panel"] == "all-judges"
    panel_kappa = numbers.get("calibration.panel.exact")
    j1_kappa = numbers.get("calibration.j1.exact")
    assert panel_kappa is not None and j1_kappa is not None
    assert panel_kappa["value"] == pytest.approx(j1_kappa["value"])


def test_the_default_panel_is_the_panel_file_whose_judges_rated_most(sample_store: Store) -> None:
    chosen = panels.with_panel(sample_store, Selection("eo-rag"))
    assert (chosen.panel, chosen.panel_judges, chosen.panel_is_default) == (
        "offline",
        ("baseline",),
        True,
    )


def test_with_no_panel_file_judge_the_default_is_every_judge(store: Store) -> None:
    _build(store)
    chosen = panels.with_panel(store, Selection("toy"))
    assert (chosen.panel, chosen.panel_judges) == (panels.ALL_JUDGES, None)


def test_an_unknown_panel_is_an_error_naming_the_panels(store: Store) -> None:
    _build(store)
    with pytest.raises(ValueError, match="offline"):
        panels.require_panel(store, "nobody")
    panels.require_panel(store, "j1,nobody")  # one judge rated: fine


def test_labels_needed_reach_the_target(store: Store) -> None:
    _build(store)
    found = corrected.labels_needed(store, PANEL_J1, target_half_width=0.05)
    by_system = {f.system: f for f in found}
    good = by_system["good"]
    assert good.n_valid_labels == 20 and good.half_width > 0.05
    assert good.labels_needed is not None and good.labels_needed > 0
    wide = corrected.labels_needed(store, PANEL_J1, target_half_width=0.5)
    assert all(f.labels_needed == 0 for f in wide)


def _diffs(store: Store) -> np.ndarray:
    with store.connection() as con:
        rows = con.execute(
            """
            SELECT r.item_id, r.system, avg((g.value - 1) / 4) AS f
            FROM responses r JOIN current_ratings g USING (response_id)
            WHERE g.rater = 'j1' GROUP BY ALL ORDER BY ALL"""
        ).fetchall()
    by_item: dict[str, dict[str, float]] = {}
    for it, system, f in rows:
        by_item.setdefault(it, {})[system] = f
    return np.array([v["good"] - v["bad"] for v in by_item.values()])


def test_paired_comparison_of_the_panel(store: Store) -> None:
    _build(store)
    found = compare.comparisons(store, PANEL_J1)
    panel = next(d for d in found.differences if d.kind == "panel")
    # "bad" sorts before "good": the difference is good minus bad.
    assert (panel.system_a, panel.system_b) == ("bad", "good")
    diffs = _diffs(store)
    assert panel.estimate.value == pytest.approx(diffs.mean())
    assert panel.estimate.n == N_ITEMS
    assert panel.estimate.low < diffs.mean() < panel.estimate.high
    # The paired bootstrap's interval is about the normal one of the differences.
    se = diffs.std() / np.sqrt(diffs.size)
    assert panel.estimate.high - panel.estimate.low == pytest.approx(2 * 1.96 * se, rel=0.15)
    assert panel.p_value == pytest.approx(1 / 1001)  # far from 0: no replicate is as far
    assert not found.holm  # two systems
    kinds = {d.kind for d in found.differences}
    assert kinds == {"panel", "human", "corrected"}


def test_gates_read_the_new_names(store: Store) -> None:
    _build(store)
    numbers = metrics_json.compute(store, PANEL_J1)[2]["metrics"]
    ok = [
        gates.parse_gate("compare.bad.good.corrected.low=0"),
        gates.parse_gate("systems.good.corrected.low=0.3"),
        gates.parse_gate("systems.good.pass_rate.corrected=0.5"),
        gates.parse_gate("compare.bad.good.panel.n=60"),
        gates.parse_gate("systems.good.labels_needed=1000", direction=gates.OVER),
    ]
    assert gates.failures(numbers, ok) == []
    failing = gates.parse_gate("compare.bad.good.corrected.high=5")
    assert gates.failures(numbers, [failing]) == [
        f"compare.bad.good.corrected.high = {numbers['compare.bad.good.corrected']['high']:.4g} "
        "is under the threshold 5"
    ]


def test_holm_with_three_systems_says_which_differences_survive(store: Store) -> None:
    _build(store)
    items = [item("toy", n) for n in range(N_ITEMS)]
    twin = [response(it, "twin", f"paris twin {n}") for n, it in enumerate(items)]
    store.add_items(items, twin)
    with store.connection() as con:
        good = dict(
            con.execute(
                "SELECT r.item_id, g.value FROM responses r JOIN ratings g USING (response_id) "
                "WHERE r.system = 'good' AND g.rater = 'j1'"
            ).fetchall()
        )
    store.add_ratings([rating(t, "j1", good[t.item_id]) for t in twin])
    found = compare.comparisons(store, PANEL_J1)
    assert found.holm
    panel = {(d.system_a, d.system_b): d for d in found.differences if d.kind == "panel"}
    assert panel[("good", "twin")].estimate.value == pytest.approx(0.0)
    assert not panel[("good", "twin")].survives
    assert panel[("bad", "good")].survives and panel[("bad", "twin")].survives
    from statsmodels.stats.multitest import multipletests

    raw = [d.p_value for d in panel.values()]
    expected = multipletests(raw, alpha=0.05, method="holm")[1]
    assert [d.p_holm for d in panel.values()] == pytest.approx(list(expected))
    notes = metrics_json.compute(store, PANEL_J1)[2]["notes"]["compare"]
    assert "compare.good.twin.panel" not in notes["survive_holm"]
    assert "compare.bad.good.panel" in notes["survive_holm"]


def test_cluster_bootstrap_resamples_whole_clusters(store: Store) -> None:
    rng = np.random.default_rng(5)
    items = [item("toy", n, metadata={"doc": f"d{n // 10}"}) for n in range(N_ITEMS)]
    a = [response(it, "a", f"x {n}") for n, it in enumerate(items)]
    b = [response(it, "b", f"y {n}") for n, it in enumerate(items)]
    store.add_items(items, a + b)
    # Every document shifts b's ratings together: the items of one document are alike.
    shift = {f"d{k}": int(rng.integers(0, 3)) for k in range(6)}
    store.add_ratings(
        [rating(r, "j1", 2) for r in a]
        + [rating(r, "j1", 2 + shift[f"d{n // 10}"]) for n, r in enumerate(b)]
    )
    flat = compare.comparisons(store, PANEL_J1).differences[0].estimate
    clustered = compare.comparisons(store, PANEL_J1, cluster="doc").differences[0].estimate
    assert flat.value == pytest.approx(clustered.value)
    # Six clusters of ten identical items: the cluster interval is far wider.
    assert clustered.high - clustered.low > 2 * (flat.high - flat.low)


def test_corrected_win_rates_are_ppi_py_on_people_s_verdicts(store: Store) -> None:
    items = [item("duel", n) for n in range(40)]
    a = [response(it, "alpha", f"x {n}") for n, it in enumerate(items)]
    b = [response(it, "beta", f"y {n}") for n, it in enumerate(items)]
    store.add_items(items, a + b)
    rng = np.random.default_rng(2)
    judge = rng.choice(["A", "B", "tie"], size=40, p=[0.6, 0.3, 0.1])
    people = np.where(rng.random(40) < 0.7, judge, "B")
    prefs = [preference(it, x, y, "j1", v) for it, x, y, v in zip(items, a, b, judge)]
    labelled = range(0, 40, 3)
    prefs += [
        dataclasses.replace(
            preference(items[n], a[n], b[n], "ana", str(people[n]), kind="human"),
            selection="random",
        )
        for n in labelled
    ]
    store.add_preferences(prefs)
    score = {"A": 1.0, "tie": 0.5, "B": 0.0}
    f = np.array([score[v] for v in judge])
    y = np.array([score[people[n]] for n in labelled])
    mask = np.zeros(40, dtype=bool)
    mask[list(labelled)] = True
    low, high = (
        float(np.ravel(v)[0]) for v in ppi_py.ppi_mean_ci(y, f[mask], f[~mask], alpha=0.05)
    )
    found = corrected.corrected(store, Selection("duel", panel="j1")).head_to_head
    assert [(h.system_a, h.system_b) for h in found] == [("alpha", "beta")]
    win = found[0].win_rate
    assert win.corrected is not None and win.judge_only is not None and win.human_only
    assert (win.corrected.low, win.corrected.high) == pytest.approx((low, high), abs=1e-9)
    assert win.judge_only.value == pytest.approx(f.mean())
    assert win.human_only.value == pytest.approx(y.mean())
    numbers = metrics_json.compute(store, Selection("duel", panel="j1"))[2]["metrics"]
    assert numbers["pairwise.alpha.beta.win_rate.corrected"]["low"] == pytest.approx(low)
