"""scoring.pairwise_agreement: every published pairwise convention from one count table, on
hand-built pairs (hand arithmetic in the comments), against sklearn and scipy, and on
LLMBar's own result files computed straight from its definitions."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from scoring import pairwise_agreement as pa
from scoring.pairwise import NOT_JUDGED, pair_verdict
from tests.paths import SHARED_DATA

NJ = NOT_JUDGED
# (A shown first, B shown first, label); None in an order = did not parse.
HAND_PAIRS = [
    ("A", "A", "A"),  # 1 consistent, correct
    ("A", "B", "A"),  # 2 inconsistent: right with A first only
    ("B", "B", "B"),  # 3 consistent, correct
    ("A", "tie", "A"),  # 4 inconsistent; the vote leans A
    ("tie", "tie", "tie"),  # 5 consistent tie
    ("A", "B", "tie"),  # 6 inconsistent, a "tie" that agrees with a tie label
    ("A", None, "A"),  # 7 unparsed B-first order: unscored, never correct
    ("B", NJ, "B"),  # 8 judged with A first only
    (NJ, "A", None),  # 9 unlabelled, one order
    ("B", "A", None),  # 10 unlabelled, both orders (always the second position)
    (None, None, "B"),  # 11 both unparsed
]


def _table(pairs=HAND_PAIRS) -> np.ndarray:
    return pa.count_table((f, s, label, 1) for f, s, label in pairs)


def test_every_convention_on_hand_built_pairs() -> None:
    found = pa.pairwise_agreement(_table(), n_resamples=200)
    # Scored labelled pairs: 1-6 and 8 (7 and 11 are unscored; 9 and 10 have no label).
    # A first: 7 verdicts, 6 right (all but 6); B first: 6 verdicts (1-6), 3 right (1, 3, 5).
    # (Before issue 28 this was `accuracy`; LLMBar's own Acc is below.)
    assert found.accuracy_scored.estimate == pytest.approx((6 / 7 + 3 / 6) / 2)  # = 19/28
    assert found.accuracy_scored.n == 7
    # LLMBar's Acc: every labelled pair, 1-8 and 11, an unparsed verdict counting as wrong.
    # A first: 9 judged (1-8, 11), right: 1, 2, 3, 4, 5, 7, 8 = 7 (6 wrong, 11 unparsed);
    # B first: 8 judged (1-7, 11), right: 1, 3, 5 = 3 (7 and 11 unparsed).
    # (7/9 + 3/8) / 2 = (56/72 + 27/72) / 2 = 83/144
    assert found.accuracy.estimate == pytest.approx(83 / 144)
    assert found.accuracy.n == 9
    # both orders and labelled: 1-6; both right: 1, 3, 5
    assert (found.accuracy_both_orders.estimate, found.accuracy_both_orders.n) == (0.5, 6)
    # reconciled: A, tie, B, tie, tie, tie, B against A, A, B, A, tie, tie, B: 1, 3, 5, 6, 8
    assert found.agreement.estimate == pytest.approx(5 / 7)
    # vote: A, tie, B, A, tie, tie, B: right on 1, 3, 4, 5, 6, 8
    assert found.accuracy_vote.estimate == pytest.approx(6 / 7)
    # kappa: p_o = 5/7; marginals verdict (A 1, B 2, tie 4), label (A 3, B 2, tie 2):
    # p_e = (3 + 4 + 8) / 49 = 15/49; (35/49 - 15/49) / (34/49) = 20/34
    assert found.kappa.estimate == pytest.approx(10 / 17)
    # neither side a tie: 1, 3, 8, all right; they are 3 of the 7
    assert (found.agreement_without_ties.estimate, found.agreement_without_ties.n) == (1.0, 3)
    assert found.coverage_without_ties.estimate == pytest.approx(3 / 7)
    assert found.coverage_without_ties.n == 7
    # both orders, labelled or not: 1-6 and 10; consistent: 1, 3, 5
    assert (found.consistency.estimate, found.consistency.n) == (pytest.approx(3 / 7), 7)
    assert found.flip_rate.estimate == pytest.approx(4 / 7) and found.flip_rate.n == 7
    # non-tie verdicts of those pairs and whether each chose the answer shown first:
    # 1: A(y) A(n); 2: A(y) B(y); 3: B(n) B(y); 4: A(y); 6: A(y) B(y); 10: B(n) A(n) = 7/11
    assert (found.position_bias.estimate, found.position_bias.n) == (pytest.approx(7 / 11), 11)
    # pair 7 has one unparsed verdict and pair 11 two
    assert (found.unscored_verdicts, found.unscored_pairs) == (3, 2)
    for name in pa._EVERY_LABELLED | pa._AGAINST_LABEL | pa._LABEL_FREE:
        c = getattr(found, name)
        assert c.low <= c.estimate <= c.high, name


def test_kappa_is_sklearns() -> None:
    scored = [(f, s, label) for f, s, label in HAND_PAIRS if label and None not in (f, s)]
    said = [pair_verdict(f, s) for f, s, _ in scored]
    truth = [label for _, _, label in scored]
    expected = cohen_kappa_score(said, truth, labels=["A", "B", "tie"])
    assert float(pa.kappa(_table())) == pytest.approx(expected)


def test_a_pair_with_an_unparsed_order_counts_in_no_convention() -> None:
    """Dropping the unparsed order's pair changes no convention: the other order never
    stands in for it (before, ("A", None) read as an A verdict on the pair)."""
    without = [p for p in HAND_PAIRS if None not in p[:2]]
    for name in pa._AGAINST_LABEL | pa._LABEL_FREE:
        function = getattr(pa, name)
        assert float(function(_table())) == pytest.approx(float(function(_table(without))))
    assert pa.vote_verdict("A", None) is None and pair_verdict("A", None) is None


def test_empty_and_degenerate_tables() -> None:
    empty = pa.pairwise_agreement(pa.count_table([]))
    for name in pa._AGAINST_LABEL | pa._LABEL_FREE:
        c = getattr(empty, name)
        assert math.isnan(c.estimate) and math.isnan(c.low) and c.n == 0, name
    assert (empty.unscored_verdicts, empty.unscored_pairs) == (0, 0)
    # every verdict and label "A": agreement 1, kappa undefined (p_e = 1), as in sklearn
    same = pa.count_table([("A", "A", "A", 5)])
    assert float(pa.agreement(same)) == 1.0 and math.isnan(float(pa.kappa(same)))
    # all ties: no non-tie verdict, so no position bias; nothing left without ties
    ties = pa.count_table([("tie", "tie", "tie", 3)])
    assert math.isnan(float(pa.position_bias(ties)))
    assert math.isnan(float(pa.agreement_without_ties(ties)))
    assert float(pa.coverage_without_ties(ties)) == 0.0
    with pytest.raises(ValueError):
        pa.count_table([(NJ, NJ, "A", 1)])
    with pytest.raises(ValueError):
        pa.count_table([("x", "A", "A", 1)])


def test_one_order_only_is_auto_js_single_order_accuracy() -> None:
    # 3 pairs judged with A shown first only: 2 right
    table = pa.count_table([("A", NJ, "A", 2), ("B", NJ, "A", 1)])
    found = pa.pairwise_agreement(table)
    assert found.accuracy.estimate == pytest.approx(2 / 3) == found.agreement.estimate
    assert found.accuracy_scored.estimate == found.accuracy.estimate  # every verdict parsed
    assert found.accuracy_both_orders.n == 0 and math.isnan(found.accuracy_both_orders.estimate)
    assert found.consistency.n == 0


def test_vote_verdict_follows_judgebench() -> None:
    assert [pa.vote_verdict(*p) for p in [("A", "A"), ("A", "tie"), ("tie", "B"), ("A", "B")]] == [
        "A",
        "A",
        "B",
        "tie",
    ]


def _llmbar(judge: str) -> list[tuple[str, str, str]]:
    rows = json.loads(
        (SHARED_DATA / "llmbar" / f"natural_{judge}_vanilla_result.json").read_text("utf-8")
    )
    return [
        (
            r["results"][-1]["swap = False"]["winner"],
            r["results"][-1]["swap = True"]["winner"],
            str(r["label"]),
        )
        for r in rows
    ]


def _llmbar_statistics(rows: list[tuple[str, str, str]]) -> tuple[float, float, float]:
    """LLMBar's LLMEvaluator/evaluate.py statistics, written out: correct_average,
    correct_both and equal."""
    correct_false = sum(f == label for f, _, label in rows)
    correct_true = sum(t == label for _, t, label in rows)
    correct_both = sum(f == label and t == label for f, t, label in rows)
    equal = sum(f == t for f, t, _ in rows)
    n = len(rows)
    return (correct_false + correct_true) / 2 / n, correct_both / n, equal / n


@pytest.mark.parametrize(
    ("judge", "published"),
    [("gpt-4", (0.955, 0.93, 0.95)), ("chatgpt", (0.815, 0.67, 0.71))],
)
def test_llmbar_natural_from_its_own_definitions(judge: str, published: tuple) -> None:
    rows = _llmbar(judge)
    assert all(f in ("1", "2") and t in ("1", "2") for f, t, _ in rows)  # no unparsed winner
    assert _llmbar_statistics(rows) == pytest.approx(published)
    frame = {"1": "A", "2": "B"}
    table = pa.count_table((frame[f], frame[t], frame[label], 1) for f, t, label in rows)
    found = pa.pairwise_agreement(table)
    assert (
        found.accuracy.estimate,
        found.accuracy_both_orders.estimate,
        found.consistency.estimate,
    ) == pytest.approx(published)
    assert found.accuracy_scored.estimate == found.accuracy.estimate  # nothing unparsed
    assert found.flip_rate.estimate == pytest.approx(1 - published[2])


def test_intervals_agree_with_scipys_bootstrap() -> None:
    """The multinomial draws over cells against scipy.stats.bootstrap on per-pair values:
    the same percentile interval up to Monte Carlo error (20,000 resamples each)."""
    frame = {"1": "A", "2": "B"}
    rows = [(frame[f], frame[t], frame[g]) for f, t, g in _llmbar("chatgpt")]
    found = pa.pairwise_agreement(_table(rows), n_resamples=20_000, seed=1)
    rng = np.random.default_rng(2)
    per_pair = {
        "agreement": [pair_verdict(f, t) == g for f, t, g in rows],
        "accuracy": [((f == g) + (t == g)) / 2 for f, t, g in rows],
    }
    for name, values in per_pair.items():
        reference = stats.bootstrap(
            (np.array(values, dtype=float),),
            np.mean,
            n_resamples=20_000,
            method="percentile",
            random_state=rng,
        ).confidence_interval
        ours = getattr(found, name)
        assert ours.low == pytest.approx(reference.low, abs=0.011), name
        assert ours.high == pytest.approx(reference.high, abs=0.011), name
    # position bias is a ratio over pairs (each pair's two verdicts resampled together)
    chose_first = np.array([(f == "A") + (t == "B") for f, t, _ in rows], dtype=float)
    not_tie = np.array([(f != "tie") + (t != "tie") for f, t, _ in rows], dtype=float)
    reference = stats.bootstrap(
        (chose_first, not_tie),
        lambda x, y, axis: x.sum(axis=axis) / y.sum(axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=20_000,
        method="percentile",
        random_state=rng,
    ).confidence_interval
    assert found.position_bias.low == pytest.approx(reference.low, abs=0.008)
    assert found.position_bias.high == pytest.approx(reference.high, abs=0.008)
