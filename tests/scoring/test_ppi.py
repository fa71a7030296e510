"""Prediction-powered inference against the reference implementation, ppi_py (test-only)."""

from __future__ import annotations

import math

import numpy as np
import ppi_py
import pytest

from scoring.ppi import Moments, classical_mean, labels_needed, ppi_mean


def _case(seed: int, *, noise: float, bias: float, n: int = 150, big_n: int = 3000):
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 1, n + big_n)
    judge = np.clip(truth + bias + rng.normal(0, noise, n + big_n), 0, 1)
    return truth[:n], judge[:n], judge[n:]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "noise", [0.05, 0.6]
)  # a judge that tracks people, and one that barely does
@pytest.mark.parametrize("weighted", [False, True])
def test_equals_ppi_py(seed: int, noise: float, weighted: bool) -> None:
    y, yhat, unlabelled = _case(seed, noise=noise, bias=0.1)
    w = np.random.default_rng(seed + 100).uniform(0.5, 2.0, y.size) if weighted else None
    ours = ppi_mean(y, yhat, unlabelled, w=w, confidence=0.95)
    point = float(np.ravel(ppi_py.ppi_mean_pointestimate(y, yhat, unlabelled, w=w))[0])
    low, high = (
        float(np.ravel(b)[0]) for b in ppi_py.ppi_mean_ci(y, yhat, unlabelled, alpha=0.05, w=w)
    )
    assert ours.estimate == pytest.approx(point, abs=1e-12)
    assert (ours.low, ours.high) == pytest.approx((low, high), abs=1e-12)
    # From the unlabelled predictions' moments alone: the same numbers.
    summed = ppi_mean(y, yhat, Moments.of(unlabelled), w=w)
    assert (summed.estimate, summed.low, summed.high) == pytest.approx(
        (ours.estimate, ours.low, ours.high), abs=1e-12
    )


def test_power_tuning_lands_inside_zero_one_for_a_noisy_judge() -> None:
    y, yhat, unlabelled = _case(7, noise=0.6, bias=0.0)
    assert 0.0 < ppi_mean(y, yhat, unlabelled).lam < 1.0


@pytest.mark.parametrize("lam", [0.0, 0.5, 1.0])
def test_a_fixed_lambda_equals_ppi_py(lam: float) -> None:
    y, yhat, unlabelled = _case(3, noise=0.2, bias=-0.05)
    ours = ppi_mean(y, yhat, unlabelled, lam=lam)
    low, high = (
        float(np.ravel(b)[0]) for b in ppi_py.ppi_mean_ci(y, yhat, unlabelled, alpha=0.05, lam=lam)
    )
    assert (ours.low, ours.high) == pytest.approx((low, high), abs=1e-12)


def test_lambda_zero_is_the_classical_interval() -> None:
    y = np.array([0.0, 0.25, 0.5, 1.0, 1.0])
    # mean 0.55; population variance (0.3025 + 0.09 + 0.0025 + 2 * 0.2025) / 5 = 0.16
    found = classical_mean(y)
    assert found.estimate == pytest.approx(0.55)
    assert found.standard_error == pytest.approx(math.sqrt(0.16 / 5))
    assert found.high - found.estimate == pytest.approx(1.959963984540054 * found.standard_error)


def test_degenerate_inputs() -> None:
    empty = ppi_mean([], [], [0.5, 0.6])
    assert math.isnan(empty.estimate) and empty.n_labelled == 0
    no_unlabelled = ppi_mean([0.0, 1.0], [0.2, 0.9], [])
    assert no_unlabelled.lam == 0.0 and no_unlabelled.estimate == pytest.approx(0.5)
    with pytest.raises(ValueError, match="one value per labelled unit"):
        ppi_mean([1.0], [0.1, 0.2], [0.3])


def test_labels_needed_solves_the_variance_for_n() -> None:
    y, yhat, unlabelled = _case(11, noise=0.3, bias=0.1, n=100, big_n=5000)
    found = ppi_mean(y, yhat, unlabelled)
    rectifier_var = float(np.var(y - found.lam * yhat))
    target = (found.high - found.low) / 2 / 2  # half today's half-width
    n = labels_needed(found, rectifier_var, half_width=target)
    imputed_var = found.lam**2 * Moments.of(unlabelled).variance() / unlabelled.size
    half = 1.959963984540054 * math.sqrt(imputed_var + rectifier_var / n)
    assert half == pytest.approx(target)
    assert n > 3 * found.n_labelled  # halving the width takes about four times the labels
    assert labels_needed(found, rectifier_var, half_width=1e-6) == math.inf
