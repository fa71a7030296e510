"""Paired-comparison helpers: the ratio bootstrap against a plain index bootstrap, the
bootstrap p-value by hand, Holm's correction against statsmodels."""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from scoring.paired import bootstrap_p_value, holm, ratio_replicates


def test_grouped_units_resample_like_the_units_themselves() -> None:
    rng = np.random.default_rng(0)
    values = rng.choice([-0.5, 0.0, 0.25, 1.0], size=2000, p=[0.2, 0.4, 0.3, 0.1])
    distinct, counts = np.unique(values, return_counts=True)
    grouped = ratio_replicates(
        distinct, np.ones_like(distinct), counts, n_resamples=4000, rng=np.random.default_rng(1)
    )
    index = np.random.default_rng(2).integers(0, values.size, (4000, values.size))
    plain = values[index].mean(axis=1)
    assert grouped.mean() == pytest.approx(values.mean(), abs=2e-3)
    assert grouped.std() == pytest.approx(plain.std(), rel=0.05)
    assert grouped.std() == pytest.approx(values.std() / math.sqrt(values.size), rel=0.05)


def test_a_ratio_over_clusters_weights_by_their_size() -> None:
    # Two clusters: sums 3 over 3 items and 1 over 1 item; every replicate is one of
    # (3+3)/6 = 1, (1+1)/2 = 1 or (3+1)/4 = 1: always 1.
    reps = ratio_replicates([3.0, 1.0], [3.0, 1.0], n_resamples=50, rng=np.random.default_rng(0))
    assert np.allclose(reps, 1.0)
    assert ratio_replicates([], [], n_resamples=5, rng=np.random.default_rng(0)).size == 0


def test_bootstrap_p_value_by_hand() -> None:
    # estimate 1; centred replicates -1.5, -0.5, 0.5, 1.5: two are at least 1 away.
    assert bootstrap_p_value(1.0, [-0.5, 0.5, 1.5, 2.5]) == pytest.approx((2 + 1) / (4 + 1))
    assert bootstrap_p_value(0.0, [0.1, -0.2]) == 1.0
    assert math.isnan(bootstrap_p_value(1.0, []))


def test_holm_equals_statsmodels() -> None:
    p = np.array([0.01, 0.04, 0.03, 0.2, 0.001])
    assert holm(p) == pytest.approx(multipletests(p, method="holm")[1])
    with_nan = holm([0.02, math.nan, 0.01])
    assert with_nan[[0, 2]] == pytest.approx(multipletests([0.02, 0.01], method="holm")[1])
    assert math.isnan(with_nan[1])
