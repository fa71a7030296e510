"""An estimate with its 95% interval and its `n`, and the resampling settings every metric uses.

Every number judgeboard reports carries its interval and the count of observations behind
it; intervals are percentile bootstraps with N_RESAMPLES resamples and seed SEED.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from scoring import stats

N_RESAMPLES = 1000
SEED = 0
# A response passes when its normalized score is at least this (3 on a 1-5 scale): the
# corrected estimates' pass rate and the prevalence-corrected pass rate read it.
PASS_AT = 0.5


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95% bootstrap interval, over `n` observations."""

    value: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, ci: stats.CI, n: int) -> Estimate:
        return cls(ci.estimate, ci.low, ci.high, n)


def mean_estimate(
    pairs: Iterable[tuple[float, int]], *, exact_sum: float | None = None
) -> Estimate | None:
    """Mean and bootstrap interval of a value histogram. With `exact_sum`, the histogram's
    values are rounded bins: the estimate is the exact mean and the interval is shifted by
    the rounding's (tiny) offset."""
    values, counts = zip(*pairs) if pairs else ((), ())
    if not counts or sum(counts) == 0:
        return None
    ci = stats.bootstrap_mean_ci_from_counts(values, counts, n_resamples=N_RESAMPLES, seed=SEED)
    if exact_sum is not None:
        shift = exact_sum / sum(counts) - ci.estimate
        ci = stats.CI(ci.estimate + shift, ci.low + shift, ci.high + shift)
    return Estimate.of(ci, int(sum(counts)))


def share_estimate(hits: np.ndarray) -> Estimate:
    """The share of true entries, with its bootstrap interval."""
    if hits.size == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    ci = stats.bootstrap_ci(hits.astype(float), n_resamples=N_RESAMPLES, seed=SEED)
    return Estimate.of(ci, int(hits.size))
