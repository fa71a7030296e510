"""Judge-corrected estimates: each system's mean score and pass rate, and each head-to-head
win rate, from the panel's numbers on every unit plus people's on a random sample of them,
by prediction-powered inference with power tuning (PPI++, `scoring.ppi`).

Beside each corrected estimate stand the judge-only one (the panel's mean over every unit it
scored) and the human-only one (the weighted mean of the valid labels), so the three can be
read side by side. Conventions (named in docs/metrics.md and the JSON's `corrected`):

- A unit is a response (a pair of responses for win rates). Its prediction is the panel's
  normalized score (`scores_sql.PANEL_OF`: the selection's panel only); its label people's
  mean normalized rating over their valid labels. Valid labels are those whose selection is
  random (weighted by the inverse inclusion probability; 1 when none is recorded) or census;
  targeted and unknown labels never count. A unit the panel did not score is left out of
  the judge-only and corrected estimates.
- A response passes when its score is at least PASS_AT (0.5 normalized: 3 on a 1–5 scale);
  the pass rates are the same estimators on the 0/1 pass indicators. Beside them stands the
  Rogan–Gladen pass rate (`scoring.prevalence`): the panel's pass rate corrected for its
  TPR and TNR against the valid labels, pooled over the selection's systems, with a
  percentile bootstrap interval over the labelled and the unlabelled responses apart.
- Every interval here is the normal 95% interval (estimate ± 1.96 se): PPI's own for the
  corrected estimate, the classical one for the judge-only and human-only means. The
  judge-only interval reflects sampling only, never the judge's bias.
- Labels needed: how many more random labels bring the corrected score's half-width to the
  target (default TARGET_HALF_WIDTH), by PPI's power analysis (`scoring.ppi.labels_needed`)
  with the current lambda and variances.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from dashboard.metrics.corrected import corrected_sql as sql
from dashboard.metrics.estimates import N_RESAMPLES, PASS_AT, SEED, Estimate
from dashboard.metrics.panels import with_panel
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from scoring import ppi, prevalence

TARGET_HALF_WIDTH = 0.05
CONFIDENCE = 0.95
_Z = NormalDist().inv_cdf(1 - (1 - CONFIDENCE) / 2)
METHOD = {
    "method": "PPI++ (power-tuned prediction-powered inference), normal 95% intervals",
    "labels": "human labels whose selection is random (weighted by 1 / inclusion_probability) "
    "or census; targeted and unknown labels are never used",
    "pass_at": PASS_AT,
}


@dataclass(frozen=True)
class Triple:
    """One quantity three ways: the panel alone, people alone, and judge-corrected."""

    judge_only: Estimate | None
    human_only: Estimate | None
    corrected: Estimate | None


@dataclass(frozen=True)
class SystemCorrected:
    system: str
    score: Triple
    pass_rate: Triple
    n_valid_labels: int
    labels_needed: int | None  # more random labels to the target; None: cannot be said
    pass_rate_rogan_gladen: Estimate | None = None  # None: no valid label anywhere


@dataclass(frozen=True)
class HeadToHeadCorrected:
    system_a: str
    system_b: str
    win_rate: Triple  # of system_a over system_b, a tie counting half


@dataclass(frozen=True)
class Corrected:
    selection: Selection
    systems: tuple[SystemCorrected, ...]
    head_to_head: tuple[HeadToHeadCorrected, ...]
    target_half_width: float
    notes: tuple[str, ...]


def _normal(mean: float, se: float, n: int) -> Estimate:
    return Estimate(mean, mean - _Z * se, mean + _Z * se, n)


def _moments_estimate(m: ppi.Moments) -> Estimate | None:
    if m.n == 0:
        return None
    return _normal(m.mean, math.sqrt(m.variance(ddof=0) / m.n), m.n)


def _ppi_estimate(found: ppi.PPIEstimate) -> Estimate:
    return Estimate(found.estimate, found.low, found.high, found.n_labelled + found.n_unlabelled)


def _triple(
    y: np.ndarray, f: np.ndarray, w: np.ndarray, unlabelled: ppi.Moments
) -> tuple[Triple, ppi.PPIEstimate | None]:
    """The three estimates of one quantity: `y`, `f` and `w` on the labelled units (f nan
    where the panel did not score one), `unlabelled` the panel's values on the rest."""
    scored = ~np.isnan(f)
    everything = ppi.Moments(
        unlabelled.n + int(scored.sum()),
        unlabelled.total + float(f[scored].sum()),
        unlabelled.total_sq + float(f[scored] @ f[scored]),
    )
    human = ppi.classical_mean(y, w=w) if y.size else None
    found = ppi.ppi_mean(y[scored], f[scored], unlabelled, w=w[scored]) if scored.any() else None
    return (
        Triple(
            _moments_estimate(everything),
            Estimate(human.estimate, human.low, human.high, human.n_labelled) if human else None,
            _ppi_estimate(found) if found else None,
        ),
        found,
    )


def more_labels(
    found: ppi.PPIEstimate | None, y: np.ndarray, f: np.ndarray, w: np.ndarray, *, target: float
) -> int | None:
    """More random labels that bring the corrected half-width to `target`: 0 when it is there
    already, None with fewer than two labels or when no number of labels reaches it."""
    if found is None or found.n_labelled < 2:
        return None
    if (found.high - found.low) / 2 <= target:
        return 0
    weights = w / w.sum() * w.size
    rectifier_var = float(np.var(weights * (y - found.lam * f)))
    total = ppi.labels_needed(found, rectifier_var, half_width=target, confidence=CONFIDENCE)
    return None if math.isinf(total) else max(0, math.ceil(total) - found.n_labelled)


def _arrays(rows: Sequence[sql.EstimateRow]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(y, f, w) of "labelled" rows; f nan where the panel did not score the response."""
    y = np.array([r.b for r in rows], dtype=float)
    f = np.array([np.nan if r.a is None else r.a for r in rows], dtype=float)
    w = np.array([r.c for r in rows], dtype=float)
    return y, f, w


def _system(
    system: str,
    rows: Sequence[sql.EstimateRow],
    sums: sql.EstimateRow | None,
    *,
    target: float,
) -> SystemCorrected:
    y, f, w = _arrays(rows)
    n, total, total_sq, passes = (
        (int(sums.a or 0), sums.b or 0.0, sums.c or 0.0, float(sums.d or 0))
        if sums
        else (0, 0.0, 0.0, 0.0)
    )
    score, found = _triple(y, f, w, ppi.Moments(n, total, total_sq))
    passed = ppi.Moments(n, passes, passes)
    f_pass = np.where(np.isnan(f), np.nan, (f >= PASS_AT).astype(float))
    pass_rate, _ = _triple((y >= PASS_AT).astype(float), f_pass, w, passed)
    scored = ~np.isnan(f)
    needed = more_labels(found, y[scored], f[scored], w[scored], target=target)
    return SystemCorrected(system, score, pass_rate, int(y.size), needed)


def _with_rogan_gladen(
    systems: tuple[SystemCorrected, ...],
    labelled: dict[str, list[sql.EstimateRow]],
    totals: dict[str, sql.EstimateRow],
) -> tuple[SystemCorrected, ...]:
    """Each system with its Rogan–Gladen pass rate: its panel pass rate p over every unit the
    panel scored, corrected by the panel's TPR and TNR against the valid labels of every
    system (`scoring.prevalence.rogan_gladen_by_group`)."""
    if not any(s.n_valid_labels for s in systems):
        return systems
    groups, judge, human, weights = [], [], [], []
    for index, s in enumerate(systems):
        y, f, w = _arrays(labelled.get(s.system, []))
        groups += [index] * y.size
        judge += np.where(np.isnan(f), np.nan, (f >= PASS_AT).astype(float)).tolist()
        human += (y >= PASS_AT).astype(float).tolist()
        weights += w.tolist()
    sums = [totals.get(s.system) for s in systems]
    found = prevalence.rogan_gladen_by_group(
        groups,
        judge,
        human,
        weights,
        [int(t.a or 0) if t else 0 for t in sums],
        [float(t.d or 0) if t else 0.0 for t in sums],
        n_resamples=N_RESAMPLES,
        seed=SEED,
    )
    return tuple(
        dataclasses.replace(s, pass_rate_rogan_gladen=Estimate(r.estimate, r.low, r.high, r.n))
        for s, r in zip(systems, found)
    )


def _head_to_head(cells: Sequence[sql.PairCell]) -> tuple[HeadToHeadCorrected, ...]:
    grouped: dict[tuple[str, str], list[sql.PairCell]] = defaultdict(list)
    for cell in cells:
        grouped[(cell.system_a, cell.system_b)].append(cell)
    found = []
    for (a, b), group in sorted(grouped.items()):
        rest = [(c.f, c.count) for c in group if c.y is None and c.f is not None]
        labelled = [c for c in group if c.y is not None]
        counts = np.array([c.count for c in labelled], dtype=int)
        y = np.repeat([c.y for c in labelled], counts).astype(float)
        f = np.repeat([np.nan if c.f is None else c.f for c in labelled], counts).astype(float)
        w = np.repeat([c.w or 1.0 for c in labelled], counts).astype(float)
        unlabelled = ppi.Moments(
            sum(n for _, n in rest),
            sum(v * n for v, n in rest if v is not None),
            sum(v * v * n for v, n in rest if v is not None),
        )
        found.append(HeadToHeadCorrected(a, b, _triple(y, f, w, unlabelled)[0]))
    return tuple(found)


def _notes(
    systems: Sequence[SystemCorrected],
    pairs: Sequence[HeadToHeadCorrected],
    selection: Selection | None = None,
) -> list[str]:
    notes = []
    if not systems and not pairs:
        # Without this the section was a heading and nothing else.
        if selection is not None and selection.rubric is None:
            notes.append(
                "Nothing to correct: no rubric has ratings on this selection, so there is no "
                "judge score. Run the judges on the Run judges page (or import ratings)."
            )
        else:
            panel = selection.panel if selection is not None and selection.panel else "panel"
            rubric = selection.rubric if selection is not None else "rubric"
            notes.append(
                f"Nothing to correct: the panel {panel} has no rating of {rubric} on this "
                "selection, and no pairwise verdict is on it. Run the panel's judges on the "
                "Run judges page, or pick another panel or rubric."
            )
    if systems and not any(s.n_valid_labels for s in systems):
        notes.append(
            "No valid human sample: no rating on this selection was given to a random or "
            "census sample of responses (targeted and unknown labels are never used), so "
            "there is no judge-corrected score; label a random sample on the Annotate page."
        )
    else:
        notes += [
            f"{s.system}: no random or census human label, so no corrected score."
            for s in systems
            if s.n_valid_labels == 0
        ]
    if pairs and not any(p.win_rate.human_only for p in pairs):
        notes.append(
            "No valid human pairwise sample: no person's verdict on this selection was given "
            "to a random or census sample of pairs, so there is no corrected win rate."
        )
    return notes


def corrected_from(
    selection: Selection,
    rows: Sequence[sql.EstimateRow],
    cells: Sequence[sql.PairCell],
    *,
    target_half_width: float = TARGET_HALF_WIDTH,
) -> Corrected:
    """The corrected estimates of a resolved selection from its aggregates
    (`corrected_sql.estimate_rows`, `pair_cells`)."""
    if not target_half_width > 0:
        raise ValueError(f"the target half-width must be > 0, got {target_half_width!r}")
    by_system: dict[str, list[sql.EstimateRow]] = defaultdict(list)
    totals: dict[str, sql.EstimateRow] = {}
    for row in rows:
        if row.kind == "labelled":
            by_system[row.system_a].append(row)
        elif row.kind == "unlabelled":
            totals[row.system_a] = row
    systems = tuple(
        _system(name, by_system.get(name, []), totals.get(name), target=target_half_width)
        for name in sorted(set(by_system) | set(totals))
    )
    systems = _with_rogan_gladen(systems, by_system, totals)
    pairs = _head_to_head(cells)
    notes = _notes(systems, pairs, selection)
    return Corrected(selection, systems, pairs, target_half_width, tuple(notes))


def read_rows(
    store: Store, selection: Selection, *, cluster: str | None = None
) -> tuple[Selection, list[sql.EstimateRow], list[sql.PairCell]]:
    """The selection with its panel resolved, and its aggregates: one pass over the
    ratings for the estimates and the comparisons, one over the verdicts."""
    selection = with_panel(store, selection)
    rows: list[sql.EstimateRow] = []
    with store.connection() as con:
        if selection.rubric is not None:
            rows = sql.estimate_rows(con, selection, pass_at=PASS_AT, cluster=cluster)
        cells = sql.pair_cells(con, selection)
    return selection, rows, cells


def corrected(
    store: Store, selection: Selection, *, target_half_width: float = TARGET_HALF_WIDTH
) -> Corrected:
    """Every judge-corrected estimate of the selection (its panel: `panels.with_panel`)."""
    resolved, rows, cells = read_rows(store, selection)
    return corrected_from(resolved, rows, cells, target_half_width=target_half_width)


@dataclass(frozen=True)
class LabelsNeeded:
    """For one system: its valid labels, the corrected score's half-width now (nan without
    labels) and how many more random labels bring it to the target (None: cannot be said)."""

    system: str
    n_valid_labels: int
    half_width: float
    labels_needed: int | None


def labels_needed(
    store: Store, selection: Selection, *, target_half_width: float = TARGET_HALF_WIDTH
) -> tuple[LabelsNeeded, ...]:
    """Per system, the random labels still needed for the target half-width: what the
    Overview shows and what a labelling page can show next to a random-sample queue."""
    found = corrected(store, selection, target_half_width=target_half_width)
    return tuple(
        LabelsNeeded(
            s.system,
            s.n_valid_labels,
            (s.score.corrected.high - s.score.corrected.low) / 2 if s.score.corrected else math.nan,
            s.labels_needed,
        )
        for s in found.systems
    )
