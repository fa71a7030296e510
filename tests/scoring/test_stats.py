"""scoring.stats: bootstrap intervals against scipy.stats.bootstrap and normal theory."""

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scipy.stats import bootstrap as scipy_bootstrap

from scoring.stats import (
    CI,
    bootstrap_ci,
    bootstrap_mean_ci_from_counts,
    paired_bootstrap_diff,
    percentile_ci,
)


def _scipy_percentile(
    data: tuple[np.ndarray, ...], statistic: Callable[..., Any], **kwargs: Any
) -> tuple[float, float]:
    res = scipy_bootstrap(
        data, statistic, n_resamples=20_000, method="percentile", random_state=1, **kwargs
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


@pytest.mark.parametrize("discrete", [True, False])
def test_mean_ci_matches_scipy(discrete: bool) -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(1, 6, 2000).astype(float) if discrete else rng.exponential(2.0, 300)
    ours = bootstrap_ci(x, statistic="mean", n_resamples=20_000, seed=5)
    low, high = _scipy_percentile((x,), np.mean, vectorized=True)
    width = high - low
    assert ours.estimate == pytest.approx(x.mean())
    # Monte Carlo error of a 2.5% quantile from 20,000 replicates is about 1% of the width
    assert ours.low == pytest.approx(low, abs=0.03 * width)
    assert ours.high == pytest.approx(high, abs=0.03 * width)
    # and both agree with the normal approximation mean +- 1.96 sd / sqrt(n)
    half = 1.959964 * x.std() / math.sqrt(x.size)
    assert ours.high - ours.low == pytest.approx(2 * half, rel=0.05)


def test_callable_statistic_matches_scipy() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(10, 3, 201)
    ours = bootstrap_ci(x, statistic=np.median, n_resamples=4000, seed=2)
    low, high = _scipy_percentile((x,), np.median, vectorized=True)
    width = high - low
    assert ours.estimate == np.median(x)
    assert ours.low == pytest.approx(low, abs=0.1 * width)
    assert ours.high == pytest.approx(high, abs=0.1 * width)


def test_histogram_gives_the_same_interval_as_raw_values() -> None:
    values, counts = np.array([1.0, 2.0, 3.0, 4.0, 5.0]), np.array([120, 30, 0, 400, 250])
    raw = np.repeat(values, counts)
    from_counts = bootstrap_mean_ci_from_counts(values, counts, n_resamples=500, seed=9)
    assert bootstrap_ci(raw, statistic="mean", n_resamples=500, seed=9) == from_counts
    assert from_counts.estimate == pytest.approx(raw.mean())


def test_seeded_and_ordered() -> None:
    x = np.random.default_rng(3).integers(0, 2, 100)
    first = bootstrap_ci(x, n_resamples=300, seed=11)
    assert bootstrap_ci(list(x), n_resamples=300, seed=11) == first
    assert bootstrap_ci(x, n_resamples=300, seed=12) != first
    assert first.low <= first.estimate <= first.high


def test_degenerate_inputs() -> None:
    empty = bootstrap_ci([], n_resamples=10)
    assert all(math.isnan(v) for v in (empty.estimate, empty.low, empty.high))
    assert bootstrap_ci([4.0], n_resamples=10) == CI(4.0, 4.0, 4.0)
    assert bootstrap_ci([2, 2, 2, 2], n_resamples=10) == CI(2.0, 2.0, 2.0)
    assert bootstrap_ci([1.0, np.nan, 3.0], statistic=np.max, n_resamples=50).estimate == 3.0
    nothing = bootstrap_mean_ci_from_counts([1, 2], [0, 0], n_resamples=10)
    assert math.isnan(nothing.estimate)
    with pytest.raises(ValueError):
        bootstrap_ci([1.0], n_resamples=0)
    with pytest.raises(ValueError):
        bootstrap_ci([1.0], confidence=1.0)
    with pytest.raises(ValueError):
        bootstrap_ci([1.0], statistic="median")
    with pytest.raises(ValueError):
        bootstrap_mean_ci_from_counts([1, 2], [1, -1])


def test_paired_bootstrap_diff() -> None:
    rng = np.random.default_rng(4)
    quality = rng.normal(0, 1, 400)
    a = quality + 0.3 + rng.normal(0, 0.2, 400)
    b = quality + rng.normal(0, 0.2, 400)
    ours = paired_bootstrap_diff(a, b, n_resamples=20_000, seed=0)
    low, high = _scipy_percentile(
        (a, b), lambda x, y, axis=-1: np.mean(x - y, axis=axis), paired=True, vectorized=True
    )
    width = high - low
    assert ours.estimate == pytest.approx(np.mean(a - b))
    assert ours.low == pytest.approx(low, abs=0.03 * width)
    assert ours.high == pytest.approx(high, abs=0.03 * width)
    assert ours.low > 0  # pairing removes the shared item quality, so 0.3 is clearly found
    # a constant difference has a zero-width interval; a missing score drops its pair
    assert paired_bootstrap_diff([3, 4, None], [2, 3, 1], n_resamples=20) == CI(1.0, 1.0, 1.0)
    with pytest.raises(ValueError):
        paired_bootstrap_diff([1, 2], [1])


def test_percentile_ci_skips_nan_replicates() -> None:
    # quantiles of [1, 2, 3, 4, 5] at 0.025 / 0.975 with linear interpolation: 1.1 and 4.9
    ci = percentile_ci(3.0, [1, np.nan, 2, 3, 4, 5, np.nan], confidence=0.95)
    assert (ci.estimate, ci.low, ci.high) == pytest.approx((3.0, 1.1, 4.9))
    nothing = percentile_ci(1.0, [np.nan])
    assert nothing.estimate == 1.0 and math.isnan(nothing.low)


def test_statistic_undefined_on_some_resamples() -> None:
    # Like kappa on a resample with a single label: nan on constant resamples. Of the 27
    # resamples of [0, 0, 1], 9 are constant (8 all-0, 1 all-1); they are left out instead
    # of turning the whole interval into nan.
    def spread(x: np.ndarray) -> float:
        return float("nan") if np.all(x == x[0]) else float(np.std(x))

    ci = bootstrap_ci([0.0, 0.0, 1.0], statistic=spread, n_resamples=400, seed=0)
    assert not math.isnan(ci.low) and 0 < ci.low <= ci.high
    undefined = bootstrap_ci([2.0, 2.0], statistic=spread, n_resamples=10)
    assert all(math.isnan(v) for v in (undefined.estimate, undefined.low, undefined.high))
