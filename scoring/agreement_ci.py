"""Bootstrap intervals for agreement statistics, computed from count tables in one pass.

Resampling n compared pairs with replacement is the same as drawing multinomial counts over
the distinct (judge value, human value) cells, and resampling units for Krippendorff's alpha
is the same as drawing counts over the distinct rating patterns of a unit. Every replicate
statistic is then a vectorized function of those counts: 1,000 replicates cost about as much
as a few direct calls, instead of 1,000 calls each over every pair (Efron & Tibshirani 1993,
ch. 6; the multinomial view is the one `stats.bootstrap_mean_ci_from_counts` uses).

Point estimates come from the direct functions of `scoring.agreement`, so they equal what a
caller computes with those; replicates on which a statistic is undefined (nan) are left out
of the interval, as in `scoring.stats`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring import agreement
from scoring._encode import MISSING, as_array, encode
from scoring.stats import CI, percentile_ci

_NAN_CI = CI(math.nan, math.nan, math.nan)


@dataclass(frozen=True)
class PairedAgreement:
    """Agreement of a judge with people over `n` compared pairs, each with its interval.

    `exact`, `within_one` and `kappa_quadratic` compare both values snapped to the nearest
    scale point; `spearman` and `bias` (judge minus human) use the values themselves, which
    matters when the judge is a panel's mean (or a person gave a half point).
    """

    n: int
    exact: CI
    within_one: CI
    kappa_quadratic: CI
    spearman: CI
    bias: CI


def snap(values: npt.ArrayLike, labels: Sequence[float]) -> np.ndarray:
    """Each value moved to the nearest scale point (a tie goes to the higher one); nan stays."""
    x = np.asarray(values, dtype=float)
    scale = np.asarray(labels, dtype=float)
    below = np.clip(np.searchsorted(scale, x, side="right") - 1, 0, scale.size - 1)
    above = np.clip(below + 1, 0, scale.size - 1)
    nearer_above = np.abs(scale[above] - x) <= np.abs(x - scale[below])
    return np.where(np.isnan(x), np.nan, np.where(nearer_above, scale[above], scale[below]))


def _cells(judge: np.ndarray, human: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pairs, counts = np.unique(np.stack([judge, human], axis=1), axis=0, return_counts=True)
    return pairs[:, 0], pairs[:, 1], counts


def _marginal(draws: np.ndarray, index: np.ndarray, size: int) -> np.ndarray:
    """Replicate counts per category: draws (R x cells) summed by each cell's category."""
    onehot = np.zeros((index.size, size))
    onehot[np.arange(index.size), index] = 1.0
    return draws @ onehot


def _midranks(draws: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each cell's average rank within its replicate (ties share the mean rank)."""
    distinct, index = np.unique(values, return_inverse=True)
    counts = _marginal(draws, index, distinct.size)
    before = np.cumsum(counts, axis=1) - counts
    return (before + (counts + 1) / 2)[:, index]


def _weighted_pearson(draws: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    n = draws.sum(axis=1, keepdims=True)
    dx = x - (draws * x).sum(axis=1, keepdims=True) / n
    dy = y - (draws * y).sum(axis=1, keepdims=True) / n
    denominator = np.sqrt((draws * dx * dx).sum(axis=1) * (draws * dy * dy).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (draws * dx * dy).sum(axis=1) / denominator


def _paired_replicates(
    judge: np.ndarray, human: np.ndarray, labels: Sequence[float], draws: np.ndarray
) -> dict[str, np.ndarray]:
    """Replicate statistics for `draws` (R x cells) over the cells (judge[i], human[i])."""
    scale = np.asarray(labels, dtype=float)
    pos_j = np.searchsorted(scale, snap(judge, labels))
    pos_h = np.searchsorted(scale, snap(human, labels))
    n = draws.sum(axis=1)
    weights = (np.subtract.outer(np.arange(scale.size), np.arange(scale.size)) ** 2).astype(float)
    p_j = _marginal(draws, pos_j, scale.size) / n[:, None]
    p_h = _marginal(draws, pos_h, scale.size) / n[:, None]
    chance = np.einsum("ra,rb,ab->r", p_j, p_h, weights)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = 1.0 - (draws @ weights[pos_j, pos_h] / n) / chance
    return {
        "exact": draws @ (pos_j == pos_h) / n,
        "within_one": draws @ (np.abs(pos_j - pos_h) <= 1) / n,
        "kappa_quadratic": kappa,
        "spearman": _weighted_pearson(draws, _midranks(draws, judge), _midranks(draws, human)),
        "bias": draws @ (judge - human) / n,
    }


def paired_agreement_ci(
    judge: npt.ArrayLike,
    human: npt.ArrayLike,
    *,
    labels: Sequence[float],
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> PairedAgreement:
    """Exact and within-one agreement, quadratic kappa, Spearman and mean bias of a judge
    against people, with percentile bootstrap intervals over the compared pairs.

    `labels` is the full numeric scale in order; a value between its points is snapped to the
    nearest one for the categorical statistics. Pairs with a missing side are dropped. No pair
    gives nan everywhere; a statistic undefined on the sample (e.g. Spearman with one distinct
    value) is nan with a nan interval.
    """
    j, h = (np.asarray(v, dtype=float).ravel() for v in (judge, human))
    keep = ~(np.isnan(j) | np.isnan(h))
    j, h = j[keep], h[keep]
    if j.size == 0:
        return PairedAgreement(0, _NAN_CI, _NAN_CI, _NAN_CI, _NAN_CI, _NAN_CI)
    snapped, snapped_h = snap(j, labels), snap(h, labels)
    estimates = {
        "exact": agreement.percent_agreement(snapped, snapped_h),
        "within_one": float(
            np.mean(
                np.abs(np.searchsorted(labels, snapped) - np.searchsorted(labels, snapped_h)) <= 1
            )
        ),
        "kappa_quadratic": agreement.cohen_kappa(
            snapped, snapped_h, labels=list(labels), weights="quadratic"
        ),
        "spearman": agreement.spearman(j, h),
        "bias": agreement.mean_bias(j, h),
    }
    cell_j, cell_h, counts = _cells(j, h)
    draws = (
        np.random.default_rng(seed)
        .multinomial(j.size, counts / j.size, size=n_resamples)
        .astype(float)
    )
    replicates = _paired_replicates(cell_j, cell_h, labels, draws)
    return PairedAgreement(
        j.size,
        **{name: _interval(estimates[name], replicates[name], confidence) for name in estimates},
    )


def _interval(estimate: float, replicates: np.ndarray, confidence: float) -> CI:
    finite = replicates[~np.isnan(replicates)]
    if math.isnan(estimate) or finite.size == 0:
        return CI(estimate, math.nan, math.nan)
    return percentile_ci(estimate, finite, confidence=confidence)


def _pattern_coincidences(codes: np.ndarray, n_values: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rating patterns of the pairable units, their counts, and each pattern's
    coincidence matrix o_ck = sum over ordered pairs of values (c, k) / (m - 1)."""
    pairable = (codes != MISSING).sum(axis=0) >= 2
    patterns, counts = np.unique(codes[:, pairable].T, axis=0, return_counts=True)
    matrices = np.zeros((patterns.shape[0], n_values, n_values))
    for p, pattern in enumerate(patterns):
        present = pattern[pattern != MISSING]
        per_value = np.bincount(present, minlength=n_values).astype(float)
        matrices[p] = (np.outer(per_value, per_value) - np.diag(per_value)) / (present.size - 1)
    return matrices, counts


def _squared_distances(level: str, domain: np.ndarray, n_c: np.ndarray) -> np.ndarray:
    """delta^2 for every replicate (R x values x values); ordinal depends on the marginals."""
    k = domain.size
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(k), (n_c.shape[0], k, k))
    if level == "ordinal":
        low, high = (
            np.minimum.outer(np.arange(k), np.arange(k)),
            np.maximum.outer(np.arange(k), np.arange(k)),
        )
        cumulative = np.cumsum(n_c, axis=1)
        through = cumulative[:, high] - np.where(low > 0, cumulative[:, np.maximum(low - 1, 0)], 0)
        return (through - (n_c[:, low] + n_c[:, high]) / 2) ** 2
    v = domain.astype(float)
    if level == "interval":
        return np.broadcast_to(np.subtract.outer(v, v) ** 2, (n_c.shape[0], k, k))
    total = np.add.outer(v, v)
    ratio = np.divide(np.subtract.outer(v, v), total, out=np.zeros((k, k)), where=total != 0)
    return np.broadcast_to(ratio**2, (n_c.shape[0], k, k))


def krippendorff_alpha_ci(
    data: npt.ArrayLike,
    *,
    level: str = "nominal",
    values: Sequence[object] | None = None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> CI:
    """Krippendorff's alpha of a raters x units matrix with a bootstrap interval over units.

    The estimate is `agreement.krippendorff_alpha`. Each replicate resamples the pairable
    units with replacement, as counts over their distinct rating patterns, and computes
    alpha = 1 - (n - 1) sum o_ck d_ck / sum n_c n_k d_ck from the summed coincidence
    matrices. Fewer than two pairable units, or no variation, give a nan interval.
    """
    estimate = agreement.krippendorff_alpha(data, level=level, values=values)
    codes, domain = encode(as_array(data), values)
    if math.isnan(estimate) or domain.size < 2:
        return CI(estimate, math.nan, math.nan)
    matrices, counts = _pattern_coincidences(codes, domain.size)
    draws = (
        np.random.default_rng(seed)
        .multinomial(int(counts.sum()), counts / counts.sum(), size=n_resamples)
        .astype(float)
    )
    observed = np.tensordot(draws, matrices, axes=1)
    n_c = observed.sum(axis=2)
    n = n_c.sum(axis=1)
    delta = _squared_distances(level, domain, n_c)
    expected = np.einsum("ra,rb,rab->r", n_c, n_c, delta)
    with np.errstate(invalid="ignore", divide="ignore"):
        replicates = 1.0 - (n - 1) * (observed * delta).sum(axis=(1, 2)) / expected
    return _interval(estimate, replicates, confidence)
