"""The Overview's numbers on a hand-built dataset, against hand arithmetic and `scoring`."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard.metrics import calibration, reference
from dashboard.metrics.overview import systems as overview
from dashboard.metrics.selection import Selection
from scoring import agreement, judge, pairwise, qa
from tests import builders


@pytest.fixture
def toy(store):
    return builders.two_systems(store)


def _row(overview, system):
    return next(r for r in overview.systems if r.system == system)


def test_judge_panel_human_and_effective_scores(store, toy):
    view = overview.overview(store, Selection(dataset="toy", rubric="likert-rag"))
    good, bad = _row(view, "good"), _row(view, "bad")
    # good: j1 5,4,5 -> (1 + .75 + 1) / 3; j2 4,4,5 -> (.75 + .75 + 1) / 3
    assert good.judges["j1"].value == pytest.approx(2.75 / 3)
    assert good.judges["j2"].value == pytest.approx(2.5 / 3)
    # panel per response .875, .75, 1 -> 2.625 / 3; ana 5, 4 -> (1 + .75) / 2
    assert good.score("panel").value == pytest.approx(0.875)
    assert good.score("human").value == pytest.approx(0.875) and good.score("human").n == 2
    # effective: ana's 1 and .75 where she rated, the panel's .75 on item 1
    assert good.score("effective").value == pytest.approx(2.5 / 3)
    # bad: j2's unscored rating on item 0 is skipped, not read as a grade
    assert bad.judges["j2"].value == pytest.approx(0.375) and bad.judges["j2"].n == 2
    assert bad.score("panel").value == pytest.approx((0.25 + 0.125 + 0.5) / 3)
    assert bad.panel_skipped == 1
    assert bad.score("effective").value == pytest.approx((0 + 0.125 + 0.5) / 3)
    for estimate in (good.score("panel"), good.score("effective"), bad.score("panel")):
        assert estimate.low <= estimate.value <= estimate.high


def test_sql_panel_equals_scoring_panel_aggregate(store, toy):
    view = overview.overview(store, Selection(dataset="toy", rubric="likert-rag"))
    # responses x judges, normalized, nan = unscored (bad item 0, j2)
    matrix = np.array([[1, 0.75], [0.75, 0.75], [1, 1], [0.25, np.nan], [0, 0.25], [0.5, 0.5]])
    expected = judge.panel_aggregate_matrix(matrix, method="mean")
    assert _row(view, "good").score("panel").value == pytest.approx(expected.values[:3].mean())
    assert _row(view, "bad").score("panel").value == pytest.approx(expected.values[3:].mean())
    assert _row(view, "bad").panel_skipped == int(expected.n_skipped[3:].sum())


def test_a_human_rating_changes_the_effective_score(store, toy):
    before = _row(overview.overview(store, Selection("toy", "likert-rag")), "bad").score(
        "effective"
    )
    store.add_ratings([builders.rating(toy["bad"][1], "ana", 5, kind="human")])
    after = _row(overview.overview(store, Selection("toy", "likert-rag")), "bad").score("effective")
    # item 1 moves from the panel's .125 to ana's 1.0
    assert after.value == pytest.approx(before.value + (1.0 - 0.125) / 3)


def test_win_rate_reconciles_both_orders_and_averages_evaluators(store, toy):
    it, good, bad = toy["items"], toy["good"], toy["bad"]
    store.add_preferences(
        [
            builders.preference(it[0], good[0], bad[0], "j1", "A", shown_first="A"),
            builders.preference(it[0], good[0], bad[0], "j1", "A", shown_first="B"),
            builders.preference(it[1], good[1], bad[1], "j1", "A", shown_first="A"),
            builders.preference(it[1], good[1], bad[1], "j1", "tie", shown_first="B"),
            builders.preference(it[2], good[2], bad[2], "ana", "B", kind="human"),
        ]
    )
    # The default rubric: likert-rag's ratings, every rubric's verdicts.
    view = overview.overview(store, Selection("toy"), pool_raters=True)
    # j1: a consistent win and an inconsistent pair (a tie); ana: a loss
    assert _row(view, "good").score("win_rate.judges").value == pytest.approx(0.75)
    assert _row(view, "good").score("win_rate.people").value == pytest.approx(0.0)
    expected = pairwise.win_rate({"j1": ["win", "tie"], "ana": ["loss"]})
    assert expected == pytest.approx(0.375)
    assert _row(view, "good").score("win_rate").value == pytest.approx(expected)  # pooled
    assert _row(view, "bad").score("win_rate").value == pytest.approx(1 - expected)
    judges = view.pairwise.of("judges")
    assert judges is not None and {s.system for s in judges.bradley_terry} == {"good", "bad"}


def test_auto_scores_come_from_scoring(store):
    it = builders.item("qa", 1, refs=("the Eiffel tower", "Eiffel tower", "a tower"))
    resp = builders.response(it, "s", "Eiffel Tower")
    store.add_items([it], [resp])
    # Code's items are scored by the explicit step (an import scores what it adds).
    assert reference.refresh_auto_scores(store) == 1
    view = overview.overview(store, Selection("qa"))
    row = _row(view, "s")
    refs = list(it.reference_answers)
    assert row.score("em").value == pytest.approx(
        qa.max_over_references("Eiffel Tower", refs, qa.exact_match)
    )
    # the estimate is exact (bins only serve the bootstrap)
    assert row.score("f1").value == pytest.approx(
        qa.max_over_references("Eiffel Tower", refs, qa.token_f1)
    )
    assert reference.refresh_auto_scores(store) == 0  # already stored: nothing recomputed


def test_calibration_matches_scoring_on_the_same_pairs(store, toy):
    cal = calibration.calibration(store, Selection("toy", "likert-rag"))
    by_judge = {j.judge: j for j in cal.judges}
    labels = [1.0, 2.0, 3.0, 4.0, 5.0]
    # j1 against ana on good 0, good 2, bad 0, bad 2 (ordered by response id)
    j1, ana = np.array([5, 5, 2, 3.0]), np.array([5, 4, 1, 3.0])
    order = np.argsort(
        [r.response_id for r in (toy["good"][0], toy["good"][2], toy["bad"][0], toy["bad"][2])]
    )
    j1, ana = j1[order], ana[order]
    assert by_judge["j1"].n_pairs == 4
    assert by_judge["j1"].exact.value == pytest.approx(0.5)
    assert by_judge["j1"].within_one.value == pytest.approx(1.0)
    assert by_judge["j1"].bias.value == pytest.approx(0.5)
    assert by_judge["j1"].kappa_quadratic.value == pytest.approx(
        agreement.cohen_kappa(j1, ana, labels=labels, weights="quadratic")
    )
    assert by_judge["j1"].spearman.value == pytest.approx(agreement.spearman(j1, ana))
    # j2's unscored rating on bad 0 leaves three pairs
    assert by_judge["j2"].n_pairs == 3
    # panel: means 4.5, 5, 2, 3 (rounded 5, 5, 2, 3) against 5, 4, 1, 3
    assert by_judge["panel"].exact.value == pytest.approx(0.5)
    assert by_judge["panel"].bias.value == pytest.approx(0.375)
    assert sum(map(sum, by_judge["j1"].confusion.counts)) == 4
    assert cal.n_human_labels == 4


def test_empty_database_gives_empty_overview(store):
    view = overview.overview(store, Selection())
    assert view.systems == () and view.histograms == ()
    cal = calibration.calibration(store, Selection())
    assert cal.judges == () and cal.preferences == ()


def test_a_half_point_human_label_is_snapped_for_agreement(store, toy):
    # ana gives good[1] a 4.5 (say, the mean of two passes); j1 said 4, j2 said 4
    store.add_ratings([builders.rating(toy["good"][1], "ana", 4.5, kind="human")])
    cal = calibration.calibration(store, Selection("toy", "likert-rag"))
    j1 = next(j for j in cal.judges if j.judge == "j1")
    # five pairs now; 4.5 snaps to 5 for agreement (so j1's 4 is one point off) ...
    assert j1.n_pairs == 5
    assert j1.exact.value == pytest.approx(2 / 5)
    # ... while the bias uses the value itself: (0 + 1 + 1 + 0 - 0.5) / 5
    assert j1.bias.value == pytest.approx(1.5 / 5)


def test_each_rating_is_normalized_by_its_own_scale(store, toy):
    # j3 rates good on 0-10 under the same rubric name: 10 and 5 -> 1.0 and 0.5
    store.add_ratings(
        [
            builders.rating(toy["good"][0], "j3", 10, low=0, high=10),
            builders.rating(toy["good"][1], "j3", 5, low=0, high=10),
        ]
    )
    view = overview.overview(store, Selection("toy", "likert-rag"))
    good = _row(view, "good")
    assert good.judges["j3"].value == pytest.approx(0.75)
    assert view.scale == (0, 10)


def test_sessions_scoring_at_once_store_each_score_once(store):
    import threading

    items = [builders.item("qa", n) for n in range(50)]
    store.add_items(items, [builders.response(it, "s", "paris") for it in items])
    threads = [
        threading.Thread(target=reference.refresh_auto_scores, args=(store,)) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with store.connection() as con:
        rows, distinct = con.execute(
            "SELECT count(*), count(DISTINCT (response_id, metric)) FROM auto_scores"
        ).fetchone()
    assert rows == distinct == 100  # em and f1 of 50 responses, each once


def test_reads_never_write(store):
    # The Overview on responses nobody scored against their references yet shows no EM, and
    # leaves the database as it was: its own cache is keyed on the fingerprint.
    it = builders.item("qa", 1, refs=("paris",))
    store.add_items([it], [builders.response(it, "s", "Paris")])
    before = store.fingerprint()
    view = overview.overview(store, Selection("qa"))
    calibration.calibration(store, Selection("qa"))
    assert store.fingerprint() == before
    assert _row(view, "s").score("em") is None
