"""Bootstrap confidence intervals: one sample, a value histogram, and paired differences.

All intervals are percentile intervals (the quantiles alpha/2 and 1 - alpha/2 of the
bootstrap replicates, numpy's default linear interpolation), with randomness only from
``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Statistic = Callable[[np.ndarray], float]
_CHUNK_CELLS = 1 << 23  # resampled values held in memory at once by the index fallback


@dataclass(frozen=True)
class CI:
    """A point estimate with the lower and upper ends of its confidence interval."""

    estimate: float
    low: float
    high: float


_EMPTY = CI(math.nan, math.nan, math.nan)


def _check(n_resamples: int, confidence: float) -> float:
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    return (1.0 - confidence) / 2


def percentile_ci(estimate: float, replicates: npt.ArrayLike, *, confidence: float = 0.95) -> CI:
    """CI(estimate, q(alpha/2), q(1 - alpha/2)) from bootstrap replicates, alpha = 1 - confidence.

    Replicates that are nan (a resample on which the statistic is undefined, e.g. kappa of a
    resample with one label) are left out; if none is left, low and high are nan.
    """
    return _interval(estimate, np.asarray(replicates, dtype=float), _check(1, confidence))


def _interval(estimate: float, replicates: np.ndarray, alpha: float) -> CI:
    reps = replicates.ravel()
    reps = reps[~np.isnan(reps)]
    if reps.size == 0:
        return CI(float(estimate), math.nan, math.nan)
    low, high = np.quantile(reps, [alpha, 1.0 - alpha])
    return CI(float(estimate), float(low), float(high))


def _present(values: npt.ArrayLike) -> np.ndarray:
    arr = np.asarray(values, dtype=float).ravel()
    return arr[~np.isnan(arr)]


def bootstrap_mean_ci_from_counts(
    values: npt.ArrayLike,
    counts: npt.ArrayLike,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> CI:
    """Bootstrap CI of the mean of a sample given as a histogram: `counts[i]` copies of `values[i]`.

    Drawing n values with replacement from the sample is the same as drawing multinomial
    counts over its distinct values with probabilities counts / n, and the replicate mean is
    then (drawn counts . values) / n: O(n_resamples x distinct values), not x n. The result is
    identical to `bootstrap_ci(np.repeat(values, counts), statistic="mean")` with the same
    seed. A histogram with no counts gives CI(nan, nan, nan).
    """
    alpha = _check(n_resamples, confidence)
    v = np.asarray(values, dtype=float).ravel()
    c = np.asarray(counts, dtype=np.int64).ravel()
    if v.shape != c.shape or (c < 0).any():
        raise ValueError("values and counts must have equal length and counts must be >= 0")
    keep = c > 0
    v, c = v[keep], c[keep]
    n = int(c.sum())
    if n == 0:
        return _EMPTY
    estimate = float(c @ v) / n
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(n, c / n, size=n_resamples)
    return _interval(estimate, draws @ v / n, alpha)


def _index_replicates(
    sample: np.ndarray, statistic: Statistic | None, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Replicates by resampling indices; chunked so memory stays near _CHUNK_CELLS values."""
    n = sample.size
    replicates = np.empty(n_resamples)
    rows = max(1, _CHUNK_CELLS // n)
    for start in range(0, n_resamples, rows):
        stop = min(start + rows, n_resamples)
        resampled = sample[rng.integers(0, n, size=(stop - start, n))]
        if statistic is None:
            replicates[start:stop] = resampled.mean(axis=1)
        else:
            replicates[start:stop] = [statistic(row) for row in resampled]
    return replicates


def bootstrap_ci(
    values: npt.ArrayLike,
    *,
    statistic: str | Statistic = "mean",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> CI:
    """Percentile bootstrap CI of `statistic` over `values` (nan entries are dropped).

    `statistic` is "mean" (or ``np.mean``), or any callable from a 1-D array to a float.
    For the mean, when the values take few distinct values (at most n / 8, e.g. ratings on
    a scale) the replicates come from multinomial counts over the distinct values, as in
    `bootstrap_mean_ci_from_counts`, which makes 1,000 resamples of 1,000,000 ratings cheap;
    otherwise indices are resampled. A callable is applied to each of the n_resamples
    resamples (Efron's nonparametric bootstrap), so its cost is n_resamples calls; resamples
    on which it returns nan are left out of the interval (see `percentile_ci`).
    Empty input, or a statistic that is nan on the whole sample, gives CI(nan, nan, nan);
    a single value v gives CI(v, v, v).
    """
    alpha = _check(n_resamples, confidence)
    sample = _present(values)
    if sample.size == 0:
        return _EMPTY
    if statistic == "mean" or statistic is np.mean:
        distinct, counts = np.unique(sample, return_counts=True)
        if distinct.size * 8 <= sample.size:
            return bootstrap_mean_ci_from_counts(
                distinct, counts, n_resamples=n_resamples, confidence=confidence, seed=seed
            )
        estimate, func = float(sample.mean()), None
    elif callable(statistic):
        estimate, func = float(statistic(sample)), statistic
        if math.isnan(estimate):
            return _EMPTY
    else:
        raise ValueError(f"statistic must be 'mean' or a callable, got {statistic!r}")
    rng = np.random.default_rng(seed)
    return _interval(estimate, _index_replicates(sample, func, n_resamples, rng), alpha)


def paired_bootstrap_diff(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> CI:
    """Paired bootstrap CI of mean(a - b) for two systems scored on the same items.

    Items (not the two systems separately) are resampled, which keeps the pairing: the CI is
    that of the mean per-item difference d_i = a_i - b_i (Koehn 2004; Efron & Tibshirani
    1993, ch. 15). Items where either score is missing (nan/None) are dropped. An interval
    that excludes 0 means the difference is significant at 1 - confidence. No complete pair
    gives CI(nan, nan, nan). Arrays of different lengths raise ValueError.
    """
    x = np.asarray(a, dtype=float).ravel()
    y = np.asarray(b, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"a has {x.size} items but b has {y.size}; pair them by item first")
    return bootstrap_ci(
        x - y, statistic="mean", n_resamples=n_resamples, confidence=confidence, seed=seed
    )
