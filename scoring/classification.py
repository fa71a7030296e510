"""Binary classification, e.g. hallucination detection with positive = hallucinated: the
detector's verdict, and precision, recall and F1."""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class PrecisionRecallF1:
    """Precision, recall and F1 of the positive class, with the counts behind them."""

    precision: float
    recall: float
    f1: float
    true_positives: int
    false_positives: int
    false_negatives: int


def _is_positive(values: Sequence[Hashable] | npt.ArrayLike, positive: Hashable) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype.kind == "O":
        return np.fromiter((v == positive for v in arr.ravel()), dtype=bool, count=arr.size)
    return np.asarray(arr == positive, dtype=bool).ravel()


def _safe_ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def precision_recall_f1(
    predictions: Sequence[Hashable] | npt.ArrayLike,
    golds: Sequence[Hashable] | npt.ArrayLike,
    *,
    positive: Hashable,
) -> PrecisionRecallF1:
    """Micro-averaged precision, recall and F1 of the class `positive`.

    Counts are pooled over all items: precision = TP / (TP + FP), recall = TP / (TP + FN),
    F1 = 2PR / (P + R) (the hallucination F1 with positive = hallucinated). Each ratio is 0.0
    when its denominator is 0, as in scikit-learn's ``zero_division=0``; so empty input, or
    input with no positive prediction and no positive gold, gives all zeros. Sequences of
    different lengths raise ValueError.
    """
    pred = _is_positive(predictions, positive)
    gold = _is_positive(golds, positive)
    if pred.shape != gold.shape:
        raise ValueError(f"predictions has {pred.size} items but golds has {gold.size}")
    tp = int(np.count_nonzero(pred & gold))
    fp = int(np.count_nonzero(pred & ~gold))
    fn = int(np.count_nonzero(~pred & gold))
    precision = _safe_ratio(tp, tp + fp)
    recall = _safe_ratio(tp, tp + fn)
    f1 = _safe_ratio(2 * precision * recall, precision + recall)
    return PrecisionRecallF1(precision, recall, f1, tp, fp, fn)


def f1_from_counts(
    true_positives: npt.ArrayLike, false_positives: npt.ArrayLike, false_negatives: npt.ArrayLike
) -> np.ndarray:
    """F1 = 2 TP / (2 TP + FP + FN) elementwise, for counts pooled e.g. per bootstrap replicate.

    Equal to 2PR / (P + R) of `precision_recall_f1`; 0.0 where the denominator is 0 (no
    positive prediction and no positive gold). Returns a float array of the broadcast shape.
    """
    tp = np.asarray(true_positives, dtype=float)
    denominator = 2 * tp + np.asarray(false_positives, dtype=float) + false_negatives
    out = np.zeros(np.shape(denominator))
    return np.divide(2 * tp, denominator, out=out, where=denominator != 0)


_TRUE_WORDS = frozenset({"yes", "true", "hallucinated", "hallucination", "1"})
_FALSE_WORDS = frozenset({"no", "false", "faithful", "grounded", "supported", "0"})
_WORD = re.compile(r"[a-z0-9]+")
_LABELLED_VERDICT = re.compile(
    r"\b(?:verdict|answer|label|hallucinated|hallucination)\s*[:=]\s*\W*(?:(not)\s+)?([a-z0-9]+)"
)


def _word_verdict(word: str, negated: bool) -> bool | None:
    value = True if word in _TRUE_WORDS else False if word in _FALSE_WORDS else None
    return None if value is None else value != negated


def parse_binary_verdict(text: str | None) -> bool | None:
    """A hallucination detector's yes/no read from its text: True = hallucinated.

    The detector is asked whether the answer is hallucinated, so it leads with its verdict:
    the first word decides when it is yes/true/hallucinated/1 (True) or
    no/false/faithful/grounded/supported/0 (False), and "not" before it inverts it ("Not
    hallucinated" is False), unless the text opens with a labelled verdict such as
    "Hallucination: no". Otherwise the last labelled verdict ("Verdict: yes", "Answer:
    faithful") decides. Anything else, and empty text, gives None (unscored).
    """
    lowered = (text or "").lower().strip()
    labelled = [
        (m.start(), verdict)
        for m in _LABELLED_VERDICT.finditer(lowered)
        if (verdict := _word_verdict(m.group(2), m.group(1) is not None)) is not None
    ]
    # "Hallucination: no" leads with a label, not with the verdict word "hallucination".
    if labelled and not _WORD.search(lowered[: labelled[0][0]]):
        return labelled[0][1]
    words = _WORD.findall(lowered)
    if words:
        negated = words[0] == "not" and len(words) > 1
        first = _word_verdict(words[1] if negated else words[0], negated)
        if first is not None:
            return first
    return labelled[-1][1] if labelled else None
