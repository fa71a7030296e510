"""Paired comparisons: bootstrap replicates of a ratio of sums over resampled units, a
bootstrap p-value, and Holm's step-down correction.

A unit is what is resampled: an item, or a cluster of items (the turns of one conversation).
Each distinct unit is given as its numerator sum, its denominator sum and its multiplicity
(how many units share those sums), so a million items whose differences take 30 values are
30 rows: a resample draws counts over the distinct units from the multinomial, and its
statistic is sum(draws * numer) / sum(draws * denom), the (weighted) mean of the resampled
items. Randomness only from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def ratio_replicates(
    numer: npt.ArrayLike,
    denom: npt.ArrayLike,
    multiplicity: npt.ArrayLike | None = None,
    *,
    n_resamples: int = 1000,
    rng: np.random.Generator,
) -> np.ndarray:
    """`n_resamples` bootstrap replicates of sum(numer) / sum(denom) over units resampled
    with replacement (as many as there are units). A replicate whose denominator is 0 is nan;
    no unit at all gives an empty array."""
    num = np.asarray(numer, dtype=float).ravel()
    den = np.asarray(denom, dtype=float).ravel()
    mult = np.ones(num.size) if multiplicity is None else np.asarray(multiplicity, dtype=float)
    if num.size != den.size or num.size != mult.size:
        raise ValueError("numer, denom and multiplicity must hold one value per distinct unit")
    total = int(mult.sum())
    if total == 0:
        return np.empty(0)
    draws = rng.multinomial(total, mult / mult.sum(), size=n_resamples).astype(float)
    below = draws @ den
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(below > 0, (draws @ num) / np.where(below > 0, below, 1.0), np.nan)


def bootstrap_p_value(estimate: float, replicates: npt.ArrayLike) -> float:
    """Two-sided p-value of "the difference is 0" from bootstrap replicates, by the shift
    method (Efron and Tibshirani 1993, section 16.4): the replicates centred on the estimate
    stand for the null distribution, and a replicate is as far out when
    |replicate - estimate| >= |estimate|.
    With B replicates, of which k are as far out, p = (k + 1) / (B + 1) (Davison and
    Hinkley 1997, eq. 4.11), so it is never 0: its floor is 1 / (B + 1). Nan when there is
    no finite replicate; an estimate of exactly 0 gives 1."""
    reps = np.asarray(replicates, dtype=float).ravel()
    reps = reps[np.isfinite(reps)]
    if reps.size == 0 or not np.isfinite(estimate):
        return float("nan")
    k = int(np.sum(np.abs(reps - estimate) >= abs(estimate) - 1e-12))
    return (k + 1) / (reps.size + 1)


def holm(p_values: npt.ArrayLike) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979), in the input's order: sorted
    ascending, p_(i) * (m - i) for i = 0..m-1, made non-decreasing by a running maximum and
    capped at 1. A difference survives at level alpha when its adjusted p-value is <= alpha.
    Nan p-values are left out of m and stay nan."""
    p = np.asarray(p_values, dtype=float).ravel()
    adjusted = np.full(p.size, np.nan)
    finite = np.flatnonzero(np.isfinite(p))
    if finite.size == 0:
        return adjusted
    order = finite[np.argsort(p[finite], kind="stable")]
    m = order.size
    stepped = np.maximum.accumulate(p[order] * (m - np.arange(m)))
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted
