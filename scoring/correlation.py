"""A judge against the mean of people, as the summarization and G-Eval literature reports it:
Pearson's r, Spearman's rho and Kendall's tau-b at the item level (one point per rated item)
and at the system level (one point per system: its mean judge score against its mean human
score over the same items), each with a percentile bootstrap interval.

Item level: the pairs (judge, mean of people) of the items; resampling draws items. System
level: each system's two means; resampling draws items within each system (stratified), so
every replicate keeps every system. Following Deutsch, Dror and Roth (2021, "A Statistical
Analysis of Summarization Evaluation Metrics using Resampling Methods", TACL), the items are
what is resampled at both levels.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring import agreement
from scoring.agreement_ci import _midranks, _weighted_pearson
from scoring.stats import CI, percentile_ci

STATISTICS: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
    "pearson": lambda x, y: pearson(x, y),
    "spearman": agreement.spearman,
    "kendall": agreement.kendall_tau,
}
# Fewer systems than this give no system-level correlation: two points always lie on a line.
MIN_SYSTEMS = 3


def pearson(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """Pearson's r = sum (x - mean x)(y - mean y) / sqrt(sum (x - mean x)^2 sum (y - mean y)^2)
    (scipy's `pearsonr`). Pairs with a missing side are dropped; fewer than two pairs, or a
    side with all values equal, give nan."""
    x = np.asarray(a, dtype=float).ravel()
    y = np.asarray(b, dtype=float).ravel()
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    if x.size < 2:
        return math.nan
    xc, yc = x - x.mean(), y - y.mean()
    denominator = math.sqrt(float(xc @ xc) * float(yc @ yc))
    return float(xc @ yc) / denominator if denominator else math.nan


@dataclass(frozen=True)
class Correlation:
    """One statistic at one level: its estimate, 95% interval, and n (items, or systems)."""

    estimate: float
    low: float
    high: float
    n: int


def _result(ci: CI, n: int) -> Correlation:
    return Correlation(ci.estimate, ci.low, ci.high, n)


# Above this many distinct (judge, human) cells the Kendall replicates are computed item by
# item instead of from the cells' k x k sign matrix.
MAX_CELLS = 1500


def _weighted_kendall(draws: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each replicate from its counts over the cells (x[i], y[i]):
    P - Q = 1/2 c S c' with S[i, j] = sign(x_i - x_j) sign(y_i - y_j) (pairs within a cell
    are tied on both), n1 and n2 the pairs tied on x and on y from the marginal counts;
    tau_b = (P - Q) / sqrt((n0 - n1)(n0 - n2)), n0 = n(n - 1)/2."""
    signs = np.sign(np.subtract.outer(x, x)) * np.sign(np.subtract.outer(y, y))
    concordance = 0.5 * np.einsum("ri,ij,rj->r", draws, signs, draws)
    n = draws.sum(axis=1)
    n0 = n * (n - 1) / 2

    def tied(values: np.ndarray) -> np.ndarray:
        _, index = np.unique(values, return_inverse=True)
        t = np.zeros((draws.shape[0], index.max() + 1))
        np.add.at(t.T, index, draws.T)
        return (t * (t - 1) / 2).sum(axis=1)

    with np.errstate(invalid="ignore", divide="ignore"):
        return concordance / np.sqrt((n0 - tied(x)) * (n0 - tied(y)))


def _item_replicates(
    x: np.ndarray, y: np.ndarray, n_resamples: int, seed: int
) -> dict[str, np.ndarray]:
    """Replicates of each statistic: resampling n items is a multinomial draw of n over the
    distinct (x, y) cells (as in `scoring.agreement_ci`)."""
    pairs, counts = np.unique(np.stack([x, y], axis=1), axis=0, return_counts=True)
    cx, cy = pairs[:, 0], pairs[:, 1]
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(x.size, counts / x.size, size=n_resamples).astype(float)
    found = {
        "pearson": _weighted_pearson(draws, cx, cy),
        "spearman": _weighted_pearson(draws, _midranks(draws, cx), _midranks(draws, cy)),
    }
    if cx.size <= MAX_CELLS:
        found["kendall"] = _weighted_kendall(draws, cx, cy)
    else:
        index = np.repeat(np.arange(cx.size), counts)
        found["kendall"] = np.array(
            [
                agreement.kendall_tau(cx[index[d]], cy[index[d]])
                for d in rng.integers(0, x.size, size=(n_resamples, x.size))
            ]
        )
    return found


def item_level(
    judge: npt.ArrayLike,
    human_mean: npt.ArrayLike,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Correlation]:
    """Each statistic of (judge, human mean) over the items, n the items with both; the
    interval resamples items. Fewer than two items, or a side that does not vary, give nan
    (with a nan interval)."""
    x = np.asarray(judge, dtype=float).ravel()
    y = np.asarray(human_mean, dtype=float).ravel()
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    estimates = {name: f(x, y) if x.size >= 2 else math.nan for name, f in STATISTICS.items()}
    if all(math.isnan(e) for e in estimates.values()):
        return {name: Correlation(e, math.nan, math.nan, x.size) for name, e in estimates.items()}
    replicates = _item_replicates(x, y, n_resamples, seed)
    return {
        name: _result(percentile_ci(e, replicates[name], confidence=confidence), x.size)
        if not math.isnan(e)
        else Correlation(e, math.nan, math.nan, x.size)
        for name, e in estimates.items()
    }


def _rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    denominator = np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, (xc * yc).sum(axis=1) / denominator, np.nan)


def _rowwise_ranks(x: np.ndarray) -> np.ndarray:
    """Average ranks along each row: 1 + the values below + half the other equal values."""
    below = (x[:, None, :] < x[:, :, None]).sum(axis=2)
    equal = (x[:, None, :] == x[:, :, None]).sum(axis=2)
    return below + (equal + 1) / 2


def _rowwise_kendall(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b along each row over its k points (k x k sign products)."""
    dx = np.sign(x[:, :, None] - x[:, None, :])
    dy = np.sign(y[:, :, None] - y[:, None, :])
    k = x.shape[1]
    n0 = k * (k - 1) / 2
    concordance = (dx * dy).sum(axis=(1, 2)) / 2
    tied_x = ((dx == 0).sum(axis=(1, 2)) - k) / 2
    tied_y = ((dy == 0).sum(axis=(1, 2)) - k) / 2
    denominator = np.sqrt((n0 - tied_x) * (n0 - tied_y))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, concordance / denominator, np.nan)


_ROWWISE = {
    "pearson": _rowwise_pearson,
    "spearman": lambda x, y: _rowwise_pearson(_rowwise_ranks(x), _rowwise_ranks(y)),
    "kendall": _rowwise_kendall,
}


def _resampled_means(
    values: tuple[np.ndarray, np.ndarray], members: list[np.ndarray], n_resamples: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """(R x k) means of x and y per system, each system's items resampled within it (a
    multinomial draw over its items)."""
    rng = np.random.default_rng(seed)
    x, y = values
    means_x = np.empty((n_resamples, len(members)))
    means_y = np.empty_like(means_x)
    for g, m in enumerate(members):
        counts = rng.multinomial(m.size, np.full(m.size, 1 / m.size), size=n_resamples)
        means_x[:, g] = counts @ x[m] / m.size
        means_y[:, g] = counts @ y[m] / m.size
    return means_x, means_y


def system_level(
    judge: npt.ArrayLike,
    human_mean: npt.ArrayLike,
    systems: npt.ArrayLike,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Correlation]:
    """Each statistic of the systems' (mean judge, mean human) over the items each system
    has both on; n the systems. The interval resamples items within each system. Fewer than
    MIN_SYSTEMS systems, or systems whose means do not vary, give nan."""
    x = np.asarray(judge, dtype=float).ravel()
    y = np.asarray(human_mean, dtype=float).ravel()
    labels = np.asarray(systems, dtype=object).ravel()
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y, labels = x[keep], y[keep], labels[keep]
    names, groups = np.unique(labels.astype(str), return_inverse=True)
    k = names.size
    members = [np.flatnonzero(groups == g) for g in range(k)]
    means = (
        np.array([x[m].mean() for m in members]),
        np.array([y[m].mean() for m in members]),
    )
    if k < MIN_SYSTEMS:
        return {name: Correlation(math.nan, math.nan, math.nan, k) for name in STATISTICS}
    replicates = _resampled_means((x, y), members, n_resamples, seed)
    found = {}
    for name, statistic in STATISTICS.items():
        estimate = statistic(*means)
        if math.isnan(estimate):
            found[name] = Correlation(estimate, math.nan, math.nan, k)
            continue
        reps = _ROWWISE[name](*replicates)
        found[name] = _result(percentile_ci(estimate, reps, confidence=confidence), k)
    return found
