"""Paired comparisons of two systems on the items both answered: the difference of their
mean scores (system_b minus system_a, system_a first by name) for the panel, for people and
judge-corrected, each with a paired bootstrap interval and a p-value, and Holm's
correction over every pair of systems.

Conventions (docs/metrics.md):
- An item's score of a system is the mean over its responses to that item; only items both
  systems answered count. People's scores use valid labels only (random or census, as the
  corrected estimates do); their difference on an item is weighted by the product of the
  two responses' weights.
- The bootstrap resamples units: an item, or with `cluster` (an item field) the items that
  share its value; conversational items default to their conversation (the dataset and the
  conversation's first turn). Percentile 95% intervals, N_RESAMPLES resamples, seed SEED.
- Corrected: PPI++ on the per-item differences (the panel's as predictions, people's where
  both responses carry valid labels as labels), lambda tuned once on the full data; the
  bootstrap resamples the labelled and the unlabelled units apart (stratified).
- p-value: two-sided, of "no difference", by the bootstrap shift method
  (`scoring.paired.bootstrap_p_value`). With more than two systems, Holm's step-down
  correction runs over all pairs of each kind; a difference survives when its adjusted
  p-value is at most ALPHA.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from dashboard.metrics.corrected import corrected_sql as sql
from dashboard.metrics.corrected.systems import (
    TARGET_HALF_WIDTH,
    Corrected,
    corrected_from,
    read_rows,
)
from dashboard.metrics.estimates import N_RESAMPLES, SEED, Estimate
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from scoring import paired, ppi, stats

KINDS = ("panel", "human", "corrected")
ALPHA = 0.05


@dataclass(frozen=True)
class Difference:
    """system_b's mean minus system_a's, with its interval (n: shared items), p-value and
    Holm-adjusted p-value."""

    kind: str
    system_a: str
    system_b: str
    estimate: Estimate
    p_value: float
    p_holm: float = math.nan

    @property
    def survives(self) -> bool:
        return self.p_holm <= ALPHA


@dataclass(frozen=True)
class Comparisons:
    selection: Selection
    cluster: str | None
    differences: tuple[Difference, ...]
    holm: bool  # more than two systems: the adjusted p-values apply


def _from_replicates(
    kind: str, a: str, b: str, point: float, reps: np.ndarray, n: int
) -> Difference:
    ci = stats.percentile_ci(point, reps) if reps.size else stats.CI(point, math.nan, math.nan)
    return Difference(
        kind, a, b, Estimate(point, ci.low, ci.high, n), paired.bootstrap_p_value(point, reps)
    )


def _ratio(kind: str, a: str, b: str, rows: Sequence[sql.EstimateRow]) -> Difference | None:
    numer = np.array([r.a for r in rows], dtype=float)
    denom = np.array([r.b for r in rows], dtype=float)
    mult = np.array([r.mult for r in rows], dtype=float)
    if not rows or (mult @ denom) <= 0:
        return None
    rng = np.random.default_rng(SEED)
    reps = paired.ratio_replicates(numer, denom, mult, n_resamples=N_RESAMPLES, rng=rng)
    n = int(mult @ denom) if kind == "panel" else int(mult.sum())
    return _from_replicates(kind, a, b, float(mult @ numer / (mult @ denom)), reps, n)


def _corrected(a: str, b: str, rows: Sequence[sql.EstimateRow]) -> Difference | None:
    labelled = [r for r in rows if r.kind == "labelled_diff"]
    if not labelled:
        return None
    moments = next((r for r in rows if r.kind == "moments"), None)
    rest = ppi.Moments(int(moments.a or 0), moments.b or 0.0, moments.c or 0.0) if moments else None
    rest = rest or ppi.Moments(0, 0.0, 0.0)
    f = np.array([r.a for r in labelled])
    y = np.array([r.b for r in labelled])
    w = np.array([r.c or 1.0 for r in labelled])
    found = ppi.ppi_mean(y, f, rest, w=w)
    # The labelled part by unit: sum of w * (y - lam f) and of w.
    units, index = np.unique([r.unit or "" for r in labelled], return_inverse=True)
    rectified = np.bincount(index, w * (y - found.lam * f), minlength=units.size)
    weights = np.bincount(index, w, minlength=units.size)
    rng = np.random.default_rng(SEED)
    reps = paired.ratio_replicates(rectified, weights, n_resamples=N_RESAMPLES, rng=rng)
    unlabelled = [r for r in rows if r.kind == "unlabelled_diff"]
    if unlabelled and found.lam > 0:
        numer, denom, mult = (
            np.array(v, dtype=float) for v in zip(*((r.a, r.b, r.mult) for r in unlabelled))
        )
        reps = reps + found.lam * paired.ratio_replicates(
            numer, denom, mult, n_resamples=N_RESAMPLES, rng=rng
        )
    n = found.n_labelled + found.n_unlabelled
    return _from_replicates("corrected", a, b, found.estimate, reps, n)


def _with_holm(found: list[Difference]) -> list[Difference]:
    adjusted: dict[int, float] = {}
    for kind in KINDS:
        at = [i for i, d in enumerate(found) if d.kind == kind]
        for i, p in zip(at, paired.holm([found[i].p_value for i in at])):
            adjusted[i] = float(p)
    return [
        Difference(d.kind, d.system_a, d.system_b, d.estimate, d.p_value, adjusted[i])
        for i, d in enumerate(found)
    ]


def _of_pair(pair: tuple[tuple[str, str], list[sql.EstimateRow]]) -> list[Difference]:
    """The differences of one pair of systems, from its aggregates: panel, human, corrected."""
    (a, b), group = pair
    panel, human = (_ratio(k, a, b, [r for r in group if r.kind == k]) for k in ("panel", "human"))
    return [d for d in (panel, human, _corrected(a, b, group)) if d is not None]


def comparisons_from(
    selection: Selection, rows: Sequence[sql.EstimateRow], *, cluster: str | None = None
) -> Comparisons:
    """The paired comparisons of a resolved selection from its aggregates
    (`corrected_sql.estimate_rows`, read with the same `cluster`)."""
    grouped: dict[tuple[str, str], list[sql.EstimateRow]] = defaultdict(list)
    for row in rows:
        if row.system_b is not None:
            grouped[(row.system_a, row.system_b)].append(row)
    # The pairs in two threads (numpy's draws let go of the GIL); each bootstrap has its own
    # seeded generator, so the figures do not depend on which thread runs it.
    with ThreadPoolExecutor(2) as pool:
        found = [d for part in pool.map(_of_pair, sorted(grouped.items())) for d in part]
    n_systems = len({s for pair in grouped for s in pair})
    return Comparisons(selection, cluster, tuple(_with_holm(found)), n_systems > 2)


def comparisons(store: Store, selection: Selection, *, cluster: str | None = None) -> Comparisons:
    """Every paired comparison of the selection's systems (its panel: `panels.with_panel`).
    `cluster` is an item field (`choices.require_field` checks it first)."""
    resolved, rows, _ = read_rows(store, selection, cluster=cluster)
    return comparisons_from(resolved, rows, cluster=cluster)


def corrected_and_compared(
    store: Store,
    selection: Selection,
    *,
    cluster: str | None = None,
    target_half_width: float = TARGET_HALF_WIDTH,
) -> tuple[Corrected, Comparisons]:
    """Both from one read of the aggregates: what `metrics --json` and the Overview show.
    Its reads (the default rubric and panel, then the aggregates) share one open file."""
    with store.kept_open():
        resolved, rows, cells = read_rows(store, selection, cluster=cluster)
    return (
        corrected_from(resolved, rows, cells, target_half_width=target_half_width),
        comparisons_from(resolved, rows, cluster=cluster),
    )
