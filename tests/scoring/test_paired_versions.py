"""The paired comparison of two versions against people, checked against scikit-learn, SciPy
and statsmodels."""

from __future__ import annotations

import numpy as np
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from scoring.paired_versions import mcnemar, paired_difference

LABELS = [1.0, 2.0, 3.0, 4.0, 5.0]


def _data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 6, n).astype(float)
    a = np.clip(human + rng.integers(-1, 2, n), 1, 5).astype(float)  # close to people
    b = rng.integers(1, 6, n).astype(float)  # unrelated
    return a, b, human


def test_point_estimates_are_sklearn_differences() -> None:
    a, b, h = _data(60, 1)
    found = paired_difference(a, b, h, list(range(60)), labels=LABELS, n_resamples=200)
    expected = cohen_kappa_score(a, h, weights="quadratic") - cohen_kappa_score(
        b, h, weights="quadratic"
    )
    assert abs(found.kappa_quadratic.estimate - expected) < 1e-12
    assert abs(found.exact.estimate - (np.mean(a == h) - np.mean(b == h))) < 1e-12
    assert (found.n_units, found.n_pairs) == (60, 60)


def test_interval_matches_scipy_paired_bootstrap() -> None:
    # One pair per unit: resampling units is scipy's paired bootstrap of the three columns.
    a, b, h = _data(80, 2)

    def diff(x: np.ndarray, y: np.ndarray, z: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.array(
            [
                cohen_kappa_score(xx, zz, labels=LABELS, weights="quadratic")
                - cohen_kappa_score(yy, zz, labels=LABELS, weights="quadratic")
                for xx, yy, zz in zip(np.atleast_2d(x), np.atleast_2d(y), np.atleast_2d(z))
            ]
        )

    reference = stats.bootstrap(
        (a, b, h),
        diff,
        paired=True,
        vectorized=True,
        n_resamples=3000,
        method="percentile",
        random_state=0,
    ).confidence_interval
    found = paired_difference(a, b, h, list(range(80)), labels=LABELS, n_resamples=3000)
    assert abs(found.kappa_quadratic.low - reference.low) < 0.04
    assert abs(found.kappa_quadratic.high - reference.high) < 0.04
    assert found.kappa_quadratic.low > 0  # a is clearly the closer judge


def test_same_version_twice_differs_by_nothing() -> None:
    a, _, h = _data(30, 3)
    units = [i // 2 for i in range(30)]  # two people per unit
    found = paired_difference(a, a, h, units, labels=LABELS, n_resamples=100)
    assert found.n_units == 15
    assert (found.kappa_quadratic.low, found.kappa_quadratic.high) == (0.0, 0.0)


def test_no_pair_gives_nan() -> None:
    found = paired_difference([], [], [], [], labels=LABELS)
    assert found.n_pairs == 0 and np.isnan(found.exact.estimate)


def test_mcnemar_matches_statsmodels() -> None:
    rng = np.random.default_rng(4)
    for _ in range(20):
        x, y = rng.random(40) < 0.7, rng.random(40) < 0.5
        table = [[np.sum(x & y), np.sum(x & ~y)], [np.sum(~x & y), np.sum(~x & ~y)]]
        found = mcnemar(x, y)
        assert abs(found.p_value - sm_mcnemar(table, exact=True).pvalue) < 1e-12
    assert mcnemar([True], [True]).p_value == 1.0
