"""Prediction-powered inference for a mean: judges' scores on everything, people's on a sample.

PPI++ (Angelopoulos, Duchi and Zrnic 2023, "PPI++: Efficient Prediction-Powered Inference",
arXiv:2311.01453), the mean estimator with power tuning:

    theta(lam) = lam * mean_N(f(X~)) + mean_n(Y - lam * f(X))

where the n labelled units have a person's label Y and a judge's prediction f(X), and the N
unlabelled units have the prediction only. Its standard error is

    se(lam)^2 = Var_N(lam * f(X~)) / N + Var_n(Y - lam * f(X)) / n      (variances with ddof 0)

and the power-tuned lam = Cov_n(Y, f) / ((1 + n / N) * Var_{n+N}(f)), clipped to [0, 1]
(Cov with ddof 0 over the labelled units, Var with ddof 1 over all predictions): lam = 1 is
plain PPI, lam = 0 the classical mean of the labels. With sample weights (inverse inclusion
probabilities of a non-uniform random sample) every term is weighted as in the reference
implementation, `ppi_py.ppi_mean_ci`, whose numbers these functions reproduce (tests/scoring).
The interval is the normal one, theta +- z(1 - alpha/2) * se.

The estimate is unbiased only when the labelled units are a random sample of all units (with
known inclusion probabilities); that is the caller's to ensure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class Moments:
    """The unlabelled predictions summarized: count, sum and sum of squares. Enough for PPI
    when the unlabelled units are unweighted, so a million predictions need not be read."""

    n: int
    total: float
    total_sq: float

    @classmethod
    def of(cls, values: npt.ArrayLike) -> Moments:
        x = np.asarray(values, dtype=float).ravel()
        return cls(int(x.size), float(x.sum()), float(x @ x))

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else math.nan

    def variance(self, *, ddof: int = 0) -> float:
        if self.n - ddof <= 0:
            return math.nan
        centred = self.total_sq - self.n * self.mean**2
        return max(centred, 0.0) / (self.n - ddof)


@dataclass(frozen=True)
class PPIEstimate:
    """A prediction-powered mean: the estimate, its interval, the tuning parameter lam, the
    standard error, and the labelled (n) and unlabelled (N) counts."""

    estimate: float
    low: float
    high: float
    lam: float
    standard_error: float
    n_labelled: int
    n_unlabelled: int


_EMPTY = PPIEstimate(math.nan, math.nan, math.nan, math.nan, math.nan, 0, 0)


def _weights(n: int, w: npt.ArrayLike | None) -> np.ndarray:
    """Weights normalized to mean 1 (ppi_py's construct_weight_vector)."""
    if w is None:
        return np.ones(n)
    arr = np.asarray(w, dtype=float).ravel()
    if arr.size != n or (arr < 0).any() or arr.sum() <= 0:
        raise ValueError("weights must be one non-negative number per labelled unit")
    return arr / arr.sum() * n


def tuned_lambda(
    y: np.ndarray, yhat: np.ndarray, unlabelled: Moments, *, w: np.ndarray | None = None
) -> float:
    """The variance-minimizing lam of PPI++, clipped to [0, 1] (nan when undefined).

    As in the reference: the gradients are centred on the plain PPI estimate (lam = 1), which
    matters when the labelled units are weighted unevenly."""
    n, big_n = y.size, unlabelled.n
    if big_n == 0 or n == 0:
        return math.nan
    w = np.ones(n) if w is None else w
    theta = unlabelled.mean + float(np.mean(w * (y - yhat)))
    grads, grads_hat = w * (y - theta), w * (yhat - theta)
    cov = float(np.mean((grads - grads.mean()) * (grads_hat - grads_hat.mean())))
    shifted_total = unlabelled.total - big_n * theta
    shifted_sq = unlabelled.total_sq - 2 * theta * unlabelled.total + big_n * theta**2
    everything = Moments(
        n + big_n, float(grads_hat.sum()) + shifted_total, float(grads_hat @ grads_hat) + shifted_sq
    )
    variance = everything.variance(ddof=1)
    if not variance or math.isnan(variance):
        return math.nan
    return float(np.clip(cov / ((1 + n / big_n) * variance), 0.0, 1.0))


def ppi_mean(
    y: npt.ArrayLike,
    yhat: npt.ArrayLike,
    unlabelled: Moments | npt.ArrayLike,
    *,
    w: npt.ArrayLike | None = None,
    lam: float | None = None,
    confidence: float = 0.95,
) -> PPIEstimate:
    """The PPI++ mean of the labels `y` (with the predictions `yhat` on the same units) and the
    predictions on the unlabelled units (`unlabelled`, as values or their Moments), with its
    normal interval. `w` weights the labelled units (inverse inclusion probabilities); `lam`
    None tunes it. No labelled unit gives nan everywhere; no unlabelled unit gives the
    classical estimate of the labels (lam = 0).
    """
    labels = np.asarray(y, dtype=float).ravel()
    predicted = np.asarray(yhat, dtype=float).ravel()
    if labels.shape != predicted.shape:
        raise ValueError("y and yhat must hold one value per labelled unit")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    rest = unlabelled if isinstance(unlabelled, Moments) else Moments.of(unlabelled)
    n = labels.size
    if n == 0:
        return _EMPTY
    weights = _weights(n, w)
    if lam is None:
        lam = tuned_lambda(labels, predicted, rest, w=weights)
        lam = 0.0 if math.isnan(lam) else lam
    rectified = weights * (labels - lam * predicted)
    imputed = lam * rest.mean if rest.n else 0.0
    estimate = imputed + float(rectified.mean())
    imputed_var = lam**2 * rest.variance(ddof=0) / rest.n if rest.n else 0.0
    rectifier_var = float(rectified.var()) / n
    se = math.sqrt(imputed_var + rectifier_var)
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    return PPIEstimate(estimate, estimate - z * se, estimate + z * se, lam, se, n, rest.n)


def classical_mean(
    y: npt.ArrayLike, *, w: npt.ArrayLike | None = None, confidence: float = 0.95
) -> PPIEstimate:
    """The labels' own (weighted) mean with its normal interval: PPI with lam = 0."""
    labels = np.asarray(y, dtype=float).ravel()
    return ppi_mean(
        labels, np.zeros_like(labels), Moments(0, 0.0, 0.0), w=w, lam=0.0, confidence=confidence
    )


def labels_needed(
    estimate: PPIEstimate, rectifier_var: float, *, half_width: float, confidence: float = 0.95
) -> float:
    """How many labelled units in all bring the interval's half-width to `half_width`, with
    lam and the unlabelled variance kept at their current values: solving
    z^2 (lam^2 Var_N(f) / N + Var_n(Y - lam f) / n) = half_width^2 for n. `rectifier_var` is
    Var_n(Y - lam f). Infinite when the unlabelled term alone is wider than the target."""
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    imputed_var = estimate.standard_error**2 - rectifier_var / max(estimate.n_labelled, 1)
    room = (half_width / z) ** 2 - max(imputed_var, 0.0)
    if room <= 0:
        return math.inf
    return rectifier_var / room
