"""The calibration numbers beside the pooled (judge, person) pairs (`calibration.py`):

- people alone: Krippendorff's alpha (ordinal and interval) over the people who rated the
  rubric on the selection, in a campaign or not, with no judge among the raters;
- a judge (or the panel) against the mean of the people per item, as the summarization and
  G-Eval literature reports it: Pearson, Spearman and Kendall's tau-b at the item level (a
  point per response people rated) and at the system level (a point per system: its mean
  judge rating against its mean human rating over the same responses);
- a pass/fail reading of every judge: its true positive and true negative rates against
  people, a response passing at a normalized score of at least `corrected.PASS_AT` (the
  judge's rating, the mean of its people's).

Intervals are 95% percentile bootstraps (1,000 resamples, seed 0) over the responses (within
each system at the system level; `scoring.correlation`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from dashboard.metrics.estimates import N_RESAMPLES, PASS_AT, SEED, Estimate
from scoring import agreement_ci, correlation, prevalence


@dataclass(frozen=True)
class PeopleAlpha:
    """Agreement among people alone; `n` counts the responses two or more of them rated."""

    ordinal: Estimate  # the keys of `registry.PEOPLE_ALPHA_METRICS`
    interval: Estimate
    n_people: int


@dataclass(frozen=True)
class JudgeLevels:
    """One judge (or the panel) against the mean of people: attribute names are the keys of
    `registry.JUDGE_LEVEL_METRICS`."""

    judge: str
    item_pearson: Estimate
    item_spearman: Estimate
    item_kendall: Estimate
    system_pearson: Estimate
    system_spearman: Estimate
    system_kendall: Estimate
    tpr: Estimate
    tnr: Estimate


def _estimate(c: correlation.Correlation) -> Estimate:
    return Estimate(c.estimate, c.low, c.high, c.n)


def people_alpha(
    units: Mapping[str, Mapping[str, float]], humans: Sequence[str], labels: Sequence[float]
) -> PeopleAlpha | None:
    """Alpha among the people (rater keys `humans`) over the responses in `units`; None with
    fewer than two people or no response two of them rated."""
    pairable = sorted(u for u, r in units.items() if sum(h in r for h in humans) >= 2)
    if len(humans) < 2 or not pairable:
        return None
    matrix = np.array([[units[u].get(h, np.nan) for u in pairable] for h in humans], dtype=float)
    matrix = agreement_ci.snap(matrix, labels)
    found = {
        level: agreement_ci.krippendorff_alpha_ci(
            matrix, level=level, values=labels, n_resamples=N_RESAMPLES, seed=SEED
        )
        for level in ("ordinal", "interval")
    }
    ordinal, interval = (Estimate(c.estimate, c.low, c.high, len(pairable)) for c in found.values())
    return PeopleAlpha(ordinal, interval, len(humans))


def _pass_rates(
    judge: np.ndarray, human: np.ndarray, scale: tuple[float, float]
) -> tuple[Estimate, Estimate]:
    """TPR and TNR of the judge's pass against people's, bootstrap over responses; n the
    responses people passed (TPR) and failed (TNR)."""
    low, high = scale
    j = ((judge - low) / (high - low) >= PASS_AT).astype(float)
    h = ((human - low) / (high - low) >= PASS_AT).astype(float)
    rates = prevalence.error_rates(j, h)
    draws = np.random.default_rng(SEED).integers(0, max(j.size, 1), size=(N_RESAMPLES, j.size))
    replicates = [prevalence.error_rates(j[d], h[d]) for d in draws]
    found = []
    for value, key, n in ((rates.tpr, "tpr", rates.positives), (rates.tnr, "tnr", rates.negatives)):
        reps = np.array([getattr(r, key) for r in replicates], dtype=float)
        finite = reps[~np.isnan(reps)]
        if math.isnan(value) or finite.size == 0:
            found.append(Estimate(value, math.nan, math.nan, n))
            continue
        lo, hi = np.quantile(finite, [0.025, 0.975])
        found.append(Estimate(value, float(lo), float(hi), n))
    return found[0], found[1]


def judge_levels(
    name: str,
    units: Mapping[str, Mapping[str, float]],
    judge: str,
    humans: Sequence[str],
    systems: Mapping[str, str],
    scale: tuple[float, float],
) -> JudgeLevels | None:
    """One judge's (rater key `judge`, or the panel's) numbers against the mean of people on
    the responses both rated; None when there is none."""
    rows = [
        (ratings[judge], float(np.mean([ratings[h] for h in humans if h in ratings])), unit)
        for unit, ratings in sorted(units.items())
        if judge in ratings and any(h in ratings for h in humans)
    ]
    if not rows:
        return None
    j = np.array([r[0] for r in rows], dtype=float)
    h = np.array([r[1] for r in rows], dtype=float)
    system = np.array([systems.get(r[2], "") for r in rows], dtype=object)
    item = correlation.item_level(j, h, n_resamples=N_RESAMPLES, seed=SEED)
    level = correlation.system_level(j, h, system, n_resamples=N_RESAMPLES, seed=SEED)
    tpr, tnr = _pass_rates(j, h, scale)
    return JudgeLevels(
        name,
        item_pearson=_estimate(item["pearson"]),
        item_spearman=_estimate(item["spearman"]),
        item_kendall=_estimate(item["kendall"]),
        system_pearson=_estimate(level["pearson"]),
        system_spearman=_estimate(level["spearman"]),
        system_kendall=_estimate(level["kendall"]),
        tpr=tpr,
        tnr=tnr,
    )
