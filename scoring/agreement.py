"""Agreement between raters: judge against human, human against human, judge against judge.

Two-rater functions take two equally long sequences or arrays and drop every pair in which
either side is missing (None or nan): an unscored rating is not a disagreement.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from scoring._alpha import krippendorff_alpha
from scoring._encode import MISSING, as_array, encode, missing_mask
from scoring._ranks import average_ranks, count_inversions, tied_pairs

__all__ = [
    "cohen_kappa",
    "cohen_kappa_from_confusion",
    "confusion_matrix",
    "kendall_tau",
    "krippendorff_alpha",
    "mean_bias",
    "percent_agreement",
    "spearman",
]

KAPPA_WEIGHTS: tuple[str | None, ...] = (None, "linear", "quadratic")
_CHUNK = 1 << 17  # ratings encoded at a time by confusion_matrix


def _paired(a: npt.ArrayLike, b: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    x, y = as_array(a), as_array(b)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"expected two 1-D sequences of equal length, got {x.shape} and {y.shape}")
    keep = ~(missing_mask(x) | missing_mask(y))
    return x[keep], y[keep]


def _paired_float(a: npt.ArrayLike, b: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    x, y = _paired(a, b)
    return x.astype(float), y.astype(float)


def percent_agreement(a: npt.ArrayLike, b: npt.ArrayLike, *, tolerance: float = 0) -> float:
    """Share of pairs on which two raters agree: |a - b| <= tolerance (equality if 0).

    With tolerance 0 any labels work (strings too); a positive tolerance needs numbers
    (tolerance=1 is "adjacent agreement" on a rating scale). No scored pair gives nan.
    """
    x, y = _paired(a, b)
    if x.size == 0:
        return math.nan
    if tolerance == 0:
        return float(np.mean(x == y))
    return float(np.mean(np.abs(x.astype(float) - y.astype(float)) <= tolerance))


def confusion_matrix(
    a: npt.ArrayLike, b: npt.ArrayLike, *, labels: Sequence[object] | npt.ArrayLike
) -> np.ndarray:
    """Counts table[i, j] of pairs with a = labels[i] and b = labels[j] (rows are `a`).

    Pairs with a missing side are dropped; a value outside `labels` raises ValueError.
    Empty input gives a table of zeros.
    """
    x, y = as_array(a), as_array(b)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"expected two 1-D sequences of equal length, got {x.shape} and {y.shape}")
    k = len(encode(x[:0], labels)[1])  # validates labels even for empty input
    flat = np.zeros(k * k, dtype=np.int64)
    # Chunks keep the temporary code arrays small (and in cache) on millions of ratings.
    for start in range(0, x.size, _CHUNK):
        ca, _ = encode(x[start : start + _CHUNK], labels)
        cb, _ = encode(y[start : start + _CHUNK], labels)
        keep = (ca != MISSING) & (cb != MISSING)
        flat += np.bincount(ca[keep] * k + cb[keep], minlength=k * k)
    return flat.reshape(k, k)


def _kappa_weights(k: int, weights: str | None) -> np.ndarray:
    if weights not in KAPPA_WEIGHTS:
        raise ValueError(f"weights must be one of {KAPPA_WEIGHTS}, got {weights!r}")
    i, j = np.indices((k, k))
    if weights is None:
        return (i != j).astype(float)
    distance = np.abs(i - j).astype(float)
    return distance if weights == "linear" else distance**2


def cohen_kappa_from_confusion(table: npt.ArrayLike, *, weights: str | None = None) -> float:
    """Cohen's kappa from a square table of counts (rows = rater a, columns = rater b).

    kappa = 1 - sum(w * O) / sum(w * E), with O the observed proportions, E the product of
    the marginals, and disagreement weights w_ij = [i != j] (unweighted), |i - j| (linear) or
    (i - j)^2 (quadratic), where i, j are positions in the table, i.e. in the full label
    scale. Same formula as scikit-learn's `cohen_kappa_score`. An empty table, or one where
    chance disagreement is 0 (both raters always give the same single label), gives nan.
    """
    t = np.asarray(table, dtype=float)
    if t.ndim != 2 or t.shape[0] != t.shape[1]:
        raise ValueError(f"table must be square, got shape {t.shape}")
    n = t.sum()
    if n == 0:
        return math.nan
    w = _kappa_weights(t.shape[0], weights)
    expected = np.outer(t.sum(axis=1), t.sum(axis=0)) / n
    chance = float((w * expected).sum())
    if chance == 0:
        return math.nan
    return 1.0 - float((w * t).sum()) / chance


def cohen_kappa(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    labels: Sequence[object] | npt.ArrayLike,
    weights: str | None = None,
) -> float:
    """Cohen's kappa between two raters on the scale `labels` (in scale order).

    Weights go by position in `labels`, so on a 1-5 scale with no 3s the distance from 2 to
    4 is still 2; this matches scikit-learn's ``cohen_kappa_score(a, b, labels=labels)``.
    See `cohen_kappa_from_confusion` for the formula and the nan cases; pairs with a missing
    side are dropped.
    """
    return cohen_kappa_from_confusion(confusion_matrix(a, b, labels=labels), weights=weights)


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    xc, yc = x - x.mean(), y - y.mean()
    denominator = math.sqrt(float(xc @ xc) * float(yc @ yc))
    return float(xc @ yc) / denominator if denominator else math.nan


def spearman(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """Spearman's rank correlation: Pearson's r of the average ranks (ties share a rank).

    Same as scipy's `spearmanr`. Fewer than two pairs, or a side with all values equal,
    gives nan.
    """
    x, y = _paired_float(a, b)
    if x.size < 2:
        return math.nan
    return _pearson(average_ranks(x), average_ranks(y))


def kendall_tau(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """Kendall's tau-b: (P - Q) / sqrt((n0 - n1)(n0 - n2)).

    P and Q count concordant and discordant pairs, n0 = n(n-1)/2, and n1, n2 the pairs tied
    on a and on b (scipy's `kendalltau` default). O(n log^2 n) through an inversion count.
    Fewer than two pairs, or a side with all values equal, gives nan.
    """
    x, y = _paired_float(a, b)
    n = x.size
    if n < 2:
        return math.nan
    order = np.lexsort((y, x))
    n0 = n * (n - 1) // 2
    n1, n2, n3 = tied_pairs(x), tied_pairs(y), tied_pairs(x, y)
    discordant = count_inversions(y[order])
    denominator = math.sqrt(float(n0 - n1) * float(n0 - n2))
    if denominator == 0:
        return math.nan
    return float(n0 - n1 - n2 + n3 - 2 * discordant) / denominator


def mean_bias(judge: npt.ArrayLike, human: npt.ArrayLike) -> float:
    """Mean of judge minus human over the pairs both scored (> 0: the judge is more lenient).

    No scored pair gives nan.
    """
    x, y = _paired_float(judge, human)
    return float(np.mean(x - y)) if x.size else math.nan
