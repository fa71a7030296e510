"""scoring.prevalence: TPR, TNR and the Rogan-Gladen corrected pass rate, by hand (the
arithmetic in the comments) and against a direct resampling loop for the interval."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scoring import prevalence

# Ten labelled items of two systems: people pass 6 (1-4 of system 0, 1-2 of system 1).
GROUPS = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
HUMAN = [1, 1, 1, 1, 0, 1, 1, 0, 0, 0]
JUDGE = [1, 1, 1, 0, 0, 1, 1, 1, 0, 0]


def test_error_rates_by_hand() -> None:
    # positives: items 1-4, 6, 7; the judge passes 1, 2, 3, 6, 7: TPR = 5/6
    # negatives: items 5, 8, 9, 10; the judge fails 5, 9, 10: TNR = 3/4
    rates = prevalence.error_rates(JUDGE, HUMAN)
    assert (rates.tpr, rates.tnr) == (pytest.approx(5 / 6), 0.75)
    assert (rates.positives, rates.negatives) == (6, 4)
    # a weight of 3 on item 4 (a positive the judge failed): TPR = 5 / 8
    weighted = prevalence.error_rates(JUDGE, HUMAN, [1, 1, 1, 3, 1, 1, 1, 1, 1, 1])
    assert weighted.tpr == pytest.approx(5 / 8)
    assert math.isnan(prevalence.error_rates([1], [0]).tpr)  # no positive


def test_rogan_gladen_by_hand() -> None:
    # (p + TNR - 1) / (TPR + TNR - 1) = (0.52 + 0.75 - 1) / (5/6 + 0.75 - 1)
    # = 0.27 / 0.583333 = 0.462857
    assert prevalence.rogan_gladen(0.52, 5 / 6, 0.75) == pytest.approx(0.27 / (7 / 12))
    assert prevalence.rogan_gladen(0.1, 5 / 6, 0.75) == 0.0  # (0.1 - 0.25) < 0: clipped
    assert prevalence.rogan_gladen(0.99, 0.6, 0.9) == 1.0  # 0.89 / 0.5 > 1: clipped
    assert math.isnan(prevalence.rogan_gladen(0.5, 0.5, 0.5))  # Youden's J = 0: a coin
    assert math.isnan(prevalence.rogan_gladen(0.5, 0.3, 0.4))  # worse than a coin
    assert math.isnan(prevalence.rogan_gladen(math.nan, 0.9, 0.9))


def test_by_group_by_hand() -> None:
    found = prevalence.rogan_gladen_by_group(
        GROUPS, JUDGE, HUMAN, [1] * 10, unlabelled_n=[20, 30], unlabelled_pass=[10, 3]
    )
    # system 0: p = (3 labelled passes + 10) / (5 + 20) = 13/25 = 0.52 -> 0.462857
    assert found[0].estimate == pytest.approx(0.27 / (7 / 12))
    assert found[0].n == 25
    # system 1: p = (3 + 3) / (5 + 30) = 6/35 = 0.1714; 0.1714 - 0.25 < 0 -> 0
    assert (found[1].estimate, found[1].n) == (0.0, 35)
    for f in found:
        assert 0 <= f.low <= f.estimate <= f.high <= 1


def test_the_interval_resamples_both_strata() -> None:
    """The replicates against a direct loop: resample the labelled items, draw each system's
    unlabelled passes binomially, recompute; the same seed gives the same interval."""
    rng = np.random.default_rng(11)
    groups = rng.integers(0, 3, 300)
    human = (rng.random(300) < 0.6).astype(float)
    judge = np.where(rng.random(300) < 0.85, human, 1 - human)
    n_u, pass_u = np.array([500, 800, 300]), np.array([260.0, 520.0, 100.0])
    found = prevalence.rogan_gladen_by_group(
        groups, judge, human, np.ones(300), n_u, pass_u, n_resamples=400, seed=5
    )
    draws = np.random.default_rng(5)
    labelled = draws.integers(0, 300, (400, 300))
    unlabelled = draws.binomial(n_u, pass_u / n_u, size=(400, 3))
    replicates = []
    for d, u in zip(labelled, unlabelled):
        rates = prevalence.error_rates(judge[d], human[d])
        passes = np.bincount(groups[d], weights=judge[d], minlength=3) + u
        items = np.bincount(groups[d], minlength=3) + n_u
        replicates.append(
            [prevalence.rogan_gladen(p, rates.tpr, rates.tnr) for p in passes / items]
        )
    reference = np.quantile(np.array(replicates), [0.025, 0.975], axis=0)
    for g in range(3):
        assert (found[g].low, found[g].high) == pytest.approx(tuple(reference[:, g]))
