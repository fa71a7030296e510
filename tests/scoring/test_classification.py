"""scoring.classification against scikit-learn and hand-computed counts."""

import numpy as np
import pytest
from sklearn.metrics import precision_recall_fscore_support

from scoring.classification import f1_from_counts, parse_binary_verdict, precision_recall_f1


def test_hand_computed() -> None:
    pred = ["hallucinated", "ok", "hallucinated", "hallucinated", "ok"]
    gold = ["hallucinated", "hallucinated", "ok", "hallucinated", "ok"]
    # TP = items 0 and 3 = 2, FP = item 2 = 1, FN = item 1 = 1
    # P = 2/3, R = 2/3, F1 = 2/3
    r = precision_recall_f1(pred, gold, positive="hallucinated")
    assert (r.true_positives, r.false_positives, r.false_negatives) == (2, 1, 1)
    assert r.precision == pytest.approx(2 / 3)
    assert r.recall == pytest.approx(2 / 3)
    assert r.f1 == pytest.approx(2 / 3)


def test_zero_denominators_give_zero() -> None:
    r = precision_recall_f1([], [], positive=True)
    assert (r.precision, r.recall, r.f1) == (0.0, 0.0, 0.0)
    # no positive prediction: precision 0/0 -> 0; recall 0/1 = 0
    r = precision_recall_f1([False, False], [True, False], positive=True)
    assert (r.precision, r.recall, r.f1) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        precision_recall_f1([True], [True, False], positive=True)


@pytest.mark.parametrize("seed", range(5))
def test_matches_sklearn_binary(seed: int) -> None:
    rng = np.random.default_rng(seed)
    gold = rng.random(300) < 0.3
    pred = np.where(rng.random(300) < 0.8, gold, ~gold)
    ours = precision_recall_f1(pred, gold, positive=True)
    p, r, f, _ = precision_recall_fscore_support(
        gold, pred, pos_label=True, average="binary", zero_division=0
    )
    assert (ours.precision, ours.recall, ours.f1) == pytest.approx((p, r, f))
    # the same from plain lists of labels
    labels = ["yes" if x else "no" for x in pred]
    gold_labels = ["yes" if x else "no" for x in gold]
    assert precision_recall_f1(labels, gold_labels, positive="yes") == ours


def test_f1_from_counts_matches_precision_recall_f1() -> None:
    # TP 2, FP 1, FN 1: 2*2 / (4 + 1 + 1) = 2/3; TP 0: 0; all zero: 0 (no 0/0)
    f1 = f1_from_counts(np.array([2, 0, 0]), np.array([1, 3, 0]), np.array([1, 2, 0]))
    np.testing.assert_allclose(f1, [2 / 3, 0.0, 0.0])
    rng = np.random.default_rng(3)
    gold = rng.random(200) < 0.4
    pred = rng.random(200) < 0.5
    r = precision_recall_f1(pred, gold, positive=True)
    assert f1_from_counts(r.true_positives, r.false_positives, r.false_negatives) == pytest.approx(
        r.f1
    )


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("yes", True),
        ("Yes — the context says 5 days at the equator, not 3.", True),
        ("Hallucinated: the numbers of paths and rows are swapped.", True),
        ("Yes, it is hallucinated.", True),
        ("no", False),
        ("Faithful", False),
        ("No, the answer is faithful to the context.", False),
        ("Not hallucinated.", False),
        ("**True**", True),
        ("0", False),
        ("After checking the context. Verdict: yes", True),
        ("I checked every number. Answer: not hallucinated", False),
        ("Hallucination: no", False),
        ("Hallucinated: yes, the date is wrong", True),
        ("**Verdict:** faithful", False),
        ("The context is long.", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_binary_verdict(text: str | None, verdict: bool | None) -> None:
    assert parse_binary_verdict(text) is verdict
