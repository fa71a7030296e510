"""A pass/fail judge's error rates against people, and the pass rate corrected for them.

True positive rate TPR = P(judge passes | people pass), true negative rate TNR = P(judge
fails | people fail), over the labelled items (weighted, e.g. by 1 / inclusion probability).
The Rogan-Gladen estimator (Rogan and Gladen 1978, "Estimating prevalence from the results
of a screening test", Am. J. Epidemiol. 107:71-76) corrects a judge's pass rate p for them:

    pi = (p + TNR - 1) / (TPR + TNR - 1), clipped to [0, 1],

undefined (nan) when TPR + TNR - 1 (Youden's J) is not above 0: a judge no better than a coin.
The bootstrap interval resamples the labelled items (which give TPR and TNR, and the labelled
items' share of p) and each group's unlabelled items apart, a stratified percentile
bootstrap: pi is recomputed on every replicate, clipped likewise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring.stats import percentile_ci


@dataclass(frozen=True)
class Rates:
    """TPR and TNR with the (weighted) counts of positives and negatives behind them."""

    tpr: float
    tnr: float
    positives: int
    negatives: int


def error_rates(
    judge_pass: npt.ArrayLike, human_pass: npt.ArrayLike, weights: npt.ArrayLike | None = None
) -> Rates:
    """TPR = sum w [judge and people pass] / sum w [people pass], TNR = sum w [neither
    passes] / sum w [people fail], over the items where both are known (nan marks an
    unknown). No positive (negative) item gives a nan TPR (TNR)."""
    j = np.asarray(judge_pass, dtype=float).ravel()
    h = np.asarray(human_pass, dtype=float).ravel()
    w = np.ones_like(j) if weights is None else np.asarray(weights, dtype=float).ravel()
    keep = ~(np.isnan(j) | np.isnan(h))
    j, h, w = j[keep] > 0.5, h[keep] > 0.5, w[keep]
    pos, neg = float(w[h].sum()), float(w[~h].sum())
    tpr = float(w[h & j].sum()) / pos if pos > 0 else math.nan
    tnr = float(w[~h & ~j].sum()) / neg if neg > 0 else math.nan
    return Rates(tpr, tnr, int(h.sum()), int((~h).sum()))


def rogan_gladen(p: float, tpr: float, tnr: float) -> float:
    """(p + TNR - 1) / (TPR + TNR - 1) clipped to [0, 1]; nan when TPR + TNR <= 1 or an
    input is nan."""
    youden = tpr + tnr - 1
    if math.isnan(p) or math.isnan(youden) or youden <= 0:
        return math.nan
    return min(1.0, max(0.0, (p + tnr - 1) / youden))


def _rg_array(p: np.ndarray, tpr: np.ndarray, tnr: np.ndarray) -> np.ndarray:
    youden = tpr + tnr - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.clip((p + tnr - 1) / youden, 0.0, 1.0)
    return np.where(youden > 0, value, np.nan)


@dataclass(frozen=True)
class CorrectedRate:
    """One group's Rogan-Gladen pass rate, its interval, and n (the group's items)."""

    estimate: float
    low: float
    high: float
    n: int


def rogan_gladen_by_group(
    groups: npt.ArrayLike,
    judge_pass: npt.ArrayLike,
    human_pass: npt.ArrayLike,
    weights: npt.ArrayLike,
    unlabelled_n: npt.ArrayLike,
    unlabelled_pass: npt.ArrayLike,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[CorrectedRate]:
    """Each group's corrected pass rate (groups 0..G-1: the systems). The labelled items are
    given one by one (`groups`, the judge's and people's 0/1 pass, nan where the judge gave
    none, and the labels' weights); each group's unlabelled items by their count and how
    many the judge passed. TPR and TNR pool the labelled items of every group; a group's p is
    the judge's pass rate over its items (labelled ones it scored, and unlabelled ones).
    Replicates resample the labelled items, and each group's unlabelled items (a binomial
    draw: resampling 0/1 values), apart."""
    g = np.asarray(groups, dtype=int).ravel()
    j = np.asarray(judge_pass, dtype=float).ravel()
    h = np.asarray(human_pass, dtype=float).ravel()
    w = np.asarray(weights, dtype=float).ravel()
    n_u = np.asarray(unlabelled_n, dtype=int).ravel()
    pass_u = np.asarray(unlabelled_pass, dtype=float).ravel()
    k = n_u.size
    rng = np.random.default_rng(seed)
    share = np.divide(pass_u, n_u, out=np.zeros(k), where=n_u > 0)
    # Replicate 0 is the sample itself; the others resample both strata.
    draws = [np.arange(g.size), *rng.integers(0, max(g.size, 1), (n_resamples, g.size))]
    unlabelled = [pass_u, *rng.binomial(n_u, share, size=(n_resamples, k))]
    values = np.array(
        [_corrected(g[d], j[d], h[d], w[d], n_u, u, k) for d, u in zip(draws, unlabelled)]
    )
    n_items = np.bincount(g[~np.isnan(j)], minlength=k) + n_u
    return [
        _group_result(values[0, i], values[1:, i], int(n_items[i]), confidence) for i in range(k)
    ]


def _corrected(
    g: np.ndarray,
    j: np.ndarray,
    h: np.ndarray,
    w: np.ndarray,
    n_u: np.ndarray,
    pass_u: np.ndarray,
    k: int,
) -> np.ndarray:
    """Each group's corrected pass rate on one (re)sample."""
    rates = error_rates(j, h, w)
    scored = ~np.isnan(j)
    passes = np.bincount(g[scored], weights=(j[scored] > 0.5).astype(float), minlength=k)
    items = np.bincount(g[scored], minlength=k) + n_u
    p = np.divide(passes + pass_u, items, out=np.full(k, np.nan), where=items > 0)
    return _rg_array(p, np.full(k, rates.tpr), np.full(k, rates.tnr))


def _group_result(
    estimate: float, replicates: np.ndarray, n: int, confidence: float
) -> CorrectedRate:
    if math.isnan(estimate):
        return CorrectedRate(math.nan, math.nan, math.nan, n)
    ci = percentile_ci(float(estimate), replicates, confidence=confidence)
    return CorrectedRate(ci.estimate, ci.low, ci.high, n)
