"""Two judges (or two rubric versions of one judge) against the same people on the same
items, paired: the difference in quadratic kappa and in exact agreement with a paired
bootstrap interval, and McNemar's exact test on which of the two matched the person.

Pairs are (a's rating, b's rating, a person's rating) of one unit (an item or a response);
a unit with several people gives several pairs. The bootstrap resamples units with
replacement (every pair of a drawn unit comes along), so the two versions are always scored
on the same resample: that pairing is what makes the interval of the difference narrower
than two separate intervals (Efron & Tibshirani 1993, ch. 6). Randomness only from
``numpy.random.default_rng(seed)``.

`scoring.workbench.paired_difference` is the one-pair-per-item form (one people's value per
item, items resampled); the workbench compares versions here because one response may carry
several people's labels, and those must travel together in a resample.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring import agreement
from scoring.agreement_ci import snap
from scoring.stats import CI, percentile_ci

_NAN_CI = CI(math.nan, math.nan, math.nan)


@dataclass(frozen=True)
class PairedDifference:
    """a minus b on the same pairs: quadratic kappa and exact agreement, each with its
    percentile bootstrap interval over the units."""

    n_units: int
    n_pairs: int
    kappa_quadratic: CI
    exact: CI


def _kappa_rows(w: np.ndarray, pos_x: np.ndarray, pos_h: np.ndarray, k: int) -> np.ndarray:
    """Quadratic kappa of x against h for each row of pair weights w (R x P)."""
    weights = (np.subtract.outer(np.arange(k), np.arange(k)) ** 2).astype(float)
    n = w.sum(axis=1)
    onehot_x, onehot_h = np.eye(k)[pos_x], np.eye(k)[pos_h]
    p_x, p_h = (w @ onehot_x) / n[:, None], (w @ onehot_h) / n[:, None]
    chance = np.einsum("ra,rb,ab->r", p_x, p_h, weights)
    with np.errstate(invalid="ignore", divide="ignore"):
        return 1.0 - (w @ weights[pos_x, pos_h] / n) / chance


def paired_difference(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    human: npt.ArrayLike,
    units: Sequence[object],
    *,
    labels: Sequence[float],
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> PairedDifference:
    """kappa(a, human) - kappa(b, human) (quadratic weights over `labels`, the full scale in
    order) and exact(a, human) - exact(b, human), values snapped to the nearest scale point.
    Pairs with a missing value are dropped. No pair: n 0 and nan everywhere. A difference
    undefined on a resample (kappa with one category) leaves that resample out."""
    x, y, h = (np.asarray(v, dtype=float).ravel() for v in (a, b, human))
    unit_array = np.asarray([str(u) for u in units], dtype=object)
    if not (x.size == y.size == h.size == unit_array.size):
        raise ValueError("a, b, human and units must hold one value per pair")
    keep = ~(np.isnan(x) | np.isnan(y) | np.isnan(h))
    x, y, h, unit_array = x[keep], y[keep], h[keep], unit_array[keep]
    if x.size == 0:
        return PairedDifference(0, 0, _NAN_CI, _NAN_CI)
    scale = np.asarray(labels, dtype=float)
    pos = [np.searchsorted(scale, snap(v, labels)) for v in (x, y, h)]
    snapped = [snap(v, labels) for v in (x, y, h)]
    kappa = agreement.cohen_kappa(
        snapped[0], snapped[2], labels=list(labels), weights="quadratic"
    ) - agreement.cohen_kappa(snapped[1], snapped[2], labels=list(labels), weights="quadratic")
    exact = float(np.mean(pos[0] == pos[2]) - np.mean(pos[1] == pos[2]))
    names, codes = np.unique(unit_array, return_inverse=True)
    draws = (
        np.random.default_rng(seed)
        .multinomial(names.size, np.full(names.size, 1 / names.size), size=n_resamples)
        .astype(float)
    )
    w = draws[:, codes]  # each pair weighs as often as its unit was drawn
    k = scale.size
    kappa_reps = _kappa_rows(w, pos[0], pos[2], k) - _kappa_rows(w, pos[1], pos[2], k)
    n = w.sum(axis=1)
    exact_reps = (w @ (pos[0] == pos[2]) - w @ (pos[1] == pos[2])) / n
    return PairedDifference(
        names.size,
        x.size,
        percentile_ci(kappa, kappa_reps, confidence=confidence),
        percentile_ci(exact, exact_reps, confidence=confidence),
    )


@dataclass(frozen=True)
class McNemar:
    """Discordant pairs: `only_a` where a matched the person and b did not, `only_b` the
    reverse; the exact two-sided p-value."""

    only_a: int
    only_b: int
    p_value: float


def mcnemar(a_correct: npt.ArrayLike, b_correct: npt.ArrayLike) -> McNemar:
    """McNemar's exact test: p = min(1, 2 P(X <= min(only_a, only_b))), X ~ Binomial(only_a +
    only_b, 1/2) (McNemar 1947; statsmodels' `mcnemar(exact=True)`). No discordant pair:
    p = 1."""
    x = np.asarray(a_correct, dtype=bool).ravel()
    y = np.asarray(b_correct, dtype=bool).ravel()
    if x.size != y.size:
        raise ValueError("a_correct and b_correct must hold one value per pair")
    only_a, only_b = int(np.sum(x & ~y)), int(np.sum(~x & y))
    n = only_a + only_b
    if n == 0:
        return McNemar(0, 0, 1.0)
    tail = sum(math.comb(n, i) for i in range(min(only_a, only_b) + 1)) / 2**n
    return McNemar(only_a, only_b, min(1.0, 2 * tail))
