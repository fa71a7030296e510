"""A judge's biases, each with a percentile bootstrap interval: length, position and
self-preference, and the shift of a judge's ratings between two conditions (a probe's
perturbation, or a new judge version on anchor items).

Pure numpy. Every interval resamples the independent units (responses, or pairs for
position), with `numpy.random.default_rng(seed)`.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from scoring.stats import CI as CI, bootstrap_ci, paired_bootstrap_diff, percentile_ci

_EMPTY = CI(math.nan, math.nan, math.nan)
WORDS_PER_UNIT = 100.0


def _slope(x: np.ndarray, y: np.ndarray) -> float:
    """The ordinary least-squares slope of y on x; nan when x does not vary."""
    dx = x - x.mean()
    denominator = float(dx @ dx)
    if denominator == 0.0:
        return math.nan
    return float(dx @ (y - y.mean())) / denominator


def length_slope(
    words: npt.ArrayLike,
    judge: npt.ArrayLike,
    human: npt.ArrayLike | None = None,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> CI:
    """How much a judge's rating moves per 100 words of answer (OLS slope of the rating on
    words / 100), beyond people's: with `human` (people's ratings of the same answers) it is
    slope(judge − human), which equals slope(judge) − slope(human) because both are fitted on
    the same lengths. Without `human` it is the raw slope, which mixes length with quality.

    The interval resamples responses. Responses with a missing value are dropped; fewer than
    three, or answers all of one length, give CI(nan, nan, nan).
    """
    x = np.asarray(words, dtype=float).ravel() / WORDS_PER_UNIT
    y = np.asarray(judge, dtype=float).ravel()
    if human is not None:
        y = y - np.asarray(human, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"{x.size} lengths but {y.size} ratings; pair them by response first")
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    if x.size < 3 or math.isnan(estimate := _slope(x, y)):
        return _EMPTY
    rng = np.random.default_rng(seed)
    index = rng.integers(0, x.size, size=(n_resamples, x.size))
    rx, ry = x[index], y[index]
    dx = rx - rx.mean(axis=1, keepdims=True)
    denominator = (dx * dx).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        replicates = (dx * (ry - ry.mean(axis=1, keepdims=True))).sum(axis=1) / denominator
    replicates[denominator == 0] = np.nan
    return percentile_ci(estimate, replicates, confidence=confidence)


def position_share(
    first_wins: npt.ArrayLike,
    decided: npt.ArrayLike,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> CI:
    """The share of non-tie verdicts that went to the answer shown first (0.5 = no position
    bias): sum(first_wins) / sum(decided), where entry i counts pair i's verdicts (from its
    runs in both orders) that were not ties (`decided`) and, of those, the ones for the
    answer shown first (`first_wins`). The interval resamples pairs, since a pair's two
    verdicts are not independent. No decided verdict gives CI(nan, nan, nan).
    """
    wins = np.asarray(first_wins, dtype=float).ravel()
    total = np.asarray(decided, dtype=float).ravel()
    if wins.shape != total.shape:
        raise ValueError(f"{wins.size} win counts but {total.size} verdict counts")
    if total.sum() == 0:
        return _EMPTY
    rng = np.random.default_rng(seed)
    index = rng.integers(0, wins.size, size=(n_resamples, wins.size))
    sums = total[index].sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        replicates = wins[index].sum(axis=1) / sums
    replicates[sums == 0] = np.nan
    return percentile_ci(float(wins.sum() / total.sum()), replicates, confidence=confidence)


def self_preference(
    judge: npt.ArrayLike,
    others: npt.ArrayLike,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> CI:
    """A judge's mean rating of the responses of systems of its own model family minus the
    other judges' mean rating of the same responses: mean(judge_i − others_i), where
    `others_i` is the other judges' mean on response i. The interval resamples responses
    (`stats.paired_bootstrap_diff`). It includes any general leniency of the judge against
    the others; no complete pair gives CI(nan, nan, nan)."""
    return shift(others, judge, n_resamples=n_resamples, confidence=confidence, seed=seed)


def shift(
    before: npt.ArrayLike,
    after: npt.ArrayLike,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> CI:
    """The mean change mean(after_i − before_i) over units judged in both conditions (a
    probe's perturbed copy against the original; a judge version against an earlier one on
    anchor items), with the paired bootstrap interval. No complete pair: CI(nan, nan, nan)."""
    a = np.asarray(after, dtype=float).ravel()
    b = np.asarray(before, dtype=float).ravel()
    if a.shape != b.shape:
        raise ValueError(f"{b.size} values before but {a.size} after; pair them first")
    keep = ~(np.isnan(a) | np.isnan(b))
    if not keep.any():
        return _EMPTY
    return paired_bootstrap_diff(
        a[keep], b[keep], n_resamples=n_resamples, confidence=confidence, seed=seed
    )


def mean_ci(values: npt.ArrayLike, *, n_resamples: int = 1000, seed: int = 0) -> CI:
    """The mean and its bootstrap interval (`stats.bootstrap_ci`)."""
    return bootstrap_ci(values, n_resamples=n_resamples, seed=seed)


def word_count(text: str) -> int:
    """Words as whitespace-separated tokens (the length every length measure uses)."""
    return len(text.split())
