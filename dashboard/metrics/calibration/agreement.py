"""How far to trust each judge: agreement with people, per judge and for the panel.

The units are the responses that at least one person rated (and the pairs that at least one
person judged): calibration is bounded by the number of human labels, so these per-unit rows
are read whole and every statistic comes from `scoring.agreement`. Intervals are 95%
percentile bootstraps over the compared (judge, person) pairs.

Conventions:
- Each (judge rating, human rating) of one response is one compared pair, so a response two
  people rated counts twice. Intervals resample those pairs (alpha: the responses), drawn as
  counts over their distinct cells (`scoring.agreement_ci`).
- The panel's rating of a response is the mean of its judges' scored ratings. Agreement,
  kappa and the confusion table use it rounded to the nearest scale point (halves up);
  Spearman and the bias use the mean itself.
- Alpha (ordinal) takes the judge and every person as raters of the labelled responses.
- Beside them (`calibration_levels`): alpha among people alone, each judge against the mean
  of people per item at the item and the system level, and its TPR and TNR as a pass/fail
  judge.
- The people's reference (`human_reference`): "all_labels" takes every person's label;
  "adjudicated" takes, on an answer a reviewer adjudicated, the adjudicated label alone (as
  one rater, ADJUDICATOR) in place of its people's labels, and people's labels elsewhere.
  Agreement among people (their pairs and alpha) always reads their raw labels.
- Pairwise: every published convention of a judge against the people's majority, and the
  label-free ones on every pair judged in both orders; see `pairwise_calibration`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dashboard.metrics import selection_sql
from dashboard.metrics.calibration import calibration_sql as sql
from dashboard.metrics.calibration.levels import (
    JudgeLevels,
    PeopleAlpha,
    judge_levels,
    people_alpha,
)
from dashboard.metrics.calibration.pairwise_calibration import (
    PANEL,
    PreferenceAgreement,
    preference_agreements,
)
from dashboard.metrics.estimates import N_RESAMPLES, SEED, Estimate
from dashboard.metrics.panels import with_panel
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from scoring import agreement, agreement_ci

__all__ = ["PANEL", "Calibration", "PreferenceAgreement", "calibration"]

# What calibration compares judges with (`human_reference`), named in the JSON and the page.
ALL_LABELS = "all_labels"
ADJUDICATED = "adjudicated"
HUMAN_REFERENCES = (ALL_LABELS, ADJUDICATED)
ADJUDICATOR = "adjudicated"  # the rater name of adjudicated labels in the reference


@dataclass(frozen=True)
class Confusion:
    labels: tuple[float, ...]  # rows: the judge's value; columns: the person's
    counts: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class JudgeAgreement:
    judge: str  # a judge's name, or "panel"
    n_pairs: int
    n_responses: int
    exact: Estimate
    within_one: Estimate
    kappa_quadratic: Estimate
    alpha_ordinal: Estimate
    spearman: Estimate
    bias: Estimate  # judge minus person, in scale points
    confusion: Confusion


@dataclass(frozen=True)
class RaterPair:
    """Agreement between two people (or two evaluators) on the units both labelled."""

    rater_a: str
    rater_b: str
    n_units: int
    exact: float
    kappa: float


@dataclass(frozen=True)
class Calibration:
    selection: Selection
    scale: tuple[float, float] | None
    judges: tuple[JudgeAgreement, ...]
    alpha_all_raters: float
    humans: tuple[RaterPair, ...]
    preferences: tuple[PreferenceAgreement, ...]
    human_preferences: tuple[RaterPair, ...]
    n_human_labels: int
    n_human_preferences: int
    levels: tuple[JudgeLevels, ...] = ()  # each judge (and the panel) against people's mean
    people_alpha: PeopleAlpha | None = None  # agreement among people alone
    human_reference: str = ALL_LABELS  # `HUMAN_REFERENCES`
    n_adjudicated: int = 0  # answers whose reference is an adjudicated label


def _judge_agreement(
    name: str,
    judge: np.ndarray,
    human: np.ndarray,
    units: np.ndarray,
    unit_ratings: dict[str, dict[str, float]],
    raters_of_alpha: list[str],
    labels: list[float],
) -> JudgeAgreement:
    unit_ids = sorted(set(units.tolist()))
    alpha_matrix = np.array(
        [[unit_ratings[u].get(r, np.nan) for u in unit_ids] for r in raters_of_alpha], dtype=float
    )
    # A panel's mean (or a person's half point) onto the scale, as alpha needs.
    alpha_matrix = agreement_ci.snap(alpha_matrix, labels)
    paired = agreement_ci.paired_agreement_ci(
        judge, human, labels=labels, n_resamples=N_RESAMPLES, seed=SEED
    )
    alpha = agreement_ci.krippendorff_alpha_ci(
        alpha_matrix, level="ordinal", values=labels, n_resamples=N_RESAMPLES, seed=SEED
    )
    table = agreement.confusion_matrix(
        agreement_ci.snap(judge, labels), agreement_ci.snap(human, labels), labels=labels
    )
    n = paired.n
    return JudgeAgreement(
        judge=name,
        n_pairs=n,
        n_responses=len(unit_ids),
        exact=Estimate.of(paired.exact, n),
        within_one=Estimate.of(paired.within_one, n),
        kappa_quadratic=Estimate.of(paired.kappa_quadratic, n),
        alpha_ordinal=Estimate.of(alpha, len(unit_ids)),
        spearman=Estimate.of(paired.spearman, n),
        bias=Estimate.of(paired.bias, n),
        confusion=Confusion(tuple(labels), tuple(tuple(int(c) for c in row) for row in table)),
    )


def _unit_ratings(
    rows: Sequence[sql.LabelledRating],
) -> tuple[dict[str, dict[str, float]], list[str], list[str]]:
    """response -> rater key -> value, with the judge and human rater keys. The panel's
    value is the mean of the scored ratings of the selection's panel (`in_panel`)."""
    units: dict[str, dict[str, float]] = defaultdict(dict)
    panel: dict[str, list[float]] = defaultdict(list)
    judges: set[str] = set()
    humans: set[str] = set()
    for row in rows:
        key = f"{row.rater_kind}:{row.rater}"
        (judges if row.rater_kind == "llm" else humans).add(key)
        if row.value is not None:
            units[row.response_id][key] = float(row.value)
            if row.in_panel:
                panel[row.response_id].append(float(row.value))
    for unit, scored in panel.items():
        units[unit][PANEL] = float(np.mean(scored))
    return units, sorted(judges), sorted(humans)


def _pairs(
    units: dict[str, dict[str, float]], judge: str, humans: list[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    found = [
        (ratings[judge], ratings[h], unit)
        for unit, ratings in sorted(units.items())
        if judge in ratings
        for h in humans
        if h in ratings
    ]
    if not found:
        return np.empty(0), np.empty(0), np.empty(0, dtype=object)
    j, h, u = zip(*found)
    return np.array(j, dtype=float), np.array(h, dtype=float), np.array(u, dtype=object)


def _rater_pairs(
    units: dict[str, dict],
    raters: list[str],
    *,
    labels: list | None,
    weights: str | None,
    snap_to_labels: bool = False,
) -> tuple[RaterPair, ...]:
    result = []
    for i, a in enumerate(raters):
        for b in raters[i + 1 :]:
            shared = [(r[a], r[b]) for r in units.values() if a in r and b in r]
            if not shared:
                continue
            x, y = (list(v) for v in zip(*shared))
            if snap_to_labels and labels is not None:
                x, y = list(agreement_ci.snap(x, labels)), list(agreement_ci.snap(y, labels))
            scale = labels if labels is not None else sorted(set(x) | set(y))
            result.append(
                RaterPair(
                    a.split(":", 1)[1],
                    b.split(":", 1)[1],
                    len(shared),
                    agreement.percent_agreement(x, y),
                    agreement.cohen_kappa(x, y, labels=scale, weights=weights),
                )
            )
    return tuple(result)


# Agreement statistics take one category per label; a scale with more steps than this (a wide
# or continuous one) is compared on the values its ratings use, or on this many even steps.
MAX_LABELS = 101


def _labels(rows: Sequence[sql.LabelledRating], scale: tuple[float, float]) -> list[float]:
    """The categories of the scale: its whole steps, unless there are too many of them."""
    low, high = scale
    if high - low + 1 <= MAX_LABELS:
        return [float(v) for v in np.arange(low, high + 1)]
    used = sorted({float(r.value) for r in rows if r.value is not None})
    if len(used) <= MAX_LABELS:
        return used
    return [float(v) for v in np.linspace(low, high, MAX_LABELS)]


def _rating_calibration(
    rows: Sequence[sql.LabelledRating], scale: tuple[float, float]
) -> tuple[list[JudgeAgreement], float, tuple[RaterPair, ...], int]:
    labels = _labels(rows, scale)
    units, judges, humans = _unit_ratings(rows)
    results = []
    for judge in [*judges, PANEL]:
        j, h, u = _pairs(units, judge, humans)
        if len(j):
            name = judge.split(":", 1)[1] if judge != PANEL else PANEL
            alpha_raters = [judge if judge != PANEL else PANEL, *humans]
            results.append(_judge_agreement(name, j, h, u, units, alpha_raters, labels))
    all_raters = [*judges, *humans]
    matrix = np.array(
        [[units[u].get(r, np.nan) for u in sorted(units)] for r in all_raters], dtype=float
    )
    alpha = (
        agreement.krippendorff_alpha(
            agreement_ci.snap(matrix, labels), level="ordinal", values=labels
        )
        if matrix.size
        else math.nan
    )
    n_labels = sum(1 for r in rows if r.rater_kind == "human" and r.value is not None)
    return (
        results,
        alpha,
        _rater_pairs(units, humans, labels=labels, weights="quadratic", snap_to_labels=True),
        n_labels,
    )


def _levels(
    rows: Sequence[sql.LabelledRating], scale: tuple[float, float]
) -> tuple[tuple[JudgeLevels, ...], PeopleAlpha | None]:
    """Each judge and the panel against the mean of people, and people's own alpha."""
    units, judges, humans = _unit_ratings(rows)
    systems = {r.response_id: r.system or "" for r in rows}
    found = []
    for judge in [*judges, PANEL]:
        name = judge.split(":", 1)[1] if judge != PANEL else PANEL
        if (levels := judge_levels(name, units, judge, humans, systems, scale)) is not None:
            found.append(levels)
    return tuple(found), people_alpha(units, humans, _labels(rows, scale))


def rating_agreements(
    rows: Sequence[sql.LabelledRating], scale: tuple[float, float]
) -> tuple[list[JudgeAgreement], list[float]]:
    """Each judge's agreement with people over labelled rows, as calibration computes it
    (the Judge QA page's rubric versions reuse it), and the scale's categories."""
    return _rating_calibration(rows, scale)[0], _labels(rows, scale)


def _preference_calibration(
    reads: sql.PairwiseReads,
) -> tuple[list[PreferenceAgreement], tuple[RaterPair, ...], int]:
    results, people = preference_agreements(reads.labelled, reads.judges, reads.panel)
    human_units = {
        pair: {f"human:{person}": v for person, v in verdicts.items()}
        for pair, verdicts in people.items()
    }
    humans = sorted({r for v in human_units.values() for r in v})
    pairs = _rater_pairs(human_units, humans, labels=["A", "B", "tie"], weights=None)
    return results, pairs, sum(len(v) for v in human_units.values())


def with_adjudicated(
    rows: Sequence[sql.LabelledRating], adjudicated: Sequence[sql.AdjudicatedLabel]
) -> list[sql.LabelledRating]:
    """The rows with each adjudicated answer's people's labels replaced by its adjudicated
    label (rater ADJUDICATOR); the judges' rows and other answers' labels as they are."""
    chosen = {a.response_id: a.value for a in adjudicated}
    kept = [r for r in rows if r.rater_kind != "human" or r.response_id not in chosen]
    systems = {r.response_id: r.system for r in rows if r.response_id in chosen}
    added = [
        sql.LabelledRating(response_id, "human", ADJUDICATOR, chosen[response_id], False, system)
        for response_id, system in systems.items()
    ]
    return sorted([*kept, *added], key=lambda r: (r.response_id, r.rater_kind, r.rater))


def _references(
    store: Store, selection: Selection, rows: list[sql.LabelledRating], human_reference: str
) -> tuple[list[sql.LabelledRating], int]:
    """The rows judges are compared with under `human_reference`, and how many answers'
    reference is an adjudicated label."""
    if human_reference not in HUMAN_REFERENCES:
        raise ValueError(
            f"unknown human reference {human_reference!r}; use one of "
            + ", ".join(HUMAN_REFERENCES)
        )
    if human_reference == ALL_LABELS or not selection.rubric:
        return rows, 0
    with store.connection() as con:
        adjudicated = sql.adjudicated_labels(con, selection.rubric)
    found = with_adjudicated(rows, adjudicated)
    return found, sum(1 for r in found if r.rater == ADJUDICATOR and r.rater_kind == "human")


def calibration(
    store: Store, selection: Selection, *, human_reference: str = ALL_LABELS
) -> Calibration:
    """Every number of the Calibration page for one selection; judges are compared with
    people's labels as `human_reference` says (`HUMAN_REFERENCES`)."""
    selection = with_panel(store, selection)
    with store.connection() as con:
        scale = selection_sql.rubric_scale(con, selection.rubric) if selection.rubric else None
        rating_rows = sql.labelled_ratings(con, selection) if selection.rubric else []
        pairwise = sql.pairwise_reads(con, selection)
    reference_rows, n_adjudicated = _references(store, selection, rating_rows, human_reference)
    judges: list[JudgeAgreement] = []
    alpha, humans, n_labels = math.nan, tuple[RaterPair, ...](), 0
    levels: tuple[JudgeLevels, ...] = ()
    people: PeopleAlpha | None = None
    if scale and rating_rows:
        judges, alpha, humans, n_labels = _rating_calibration(reference_rows, scale)
        levels, people = _levels(reference_rows, scale)
        if n_adjudicated:  # people's agreement among themselves: their raw labels
            units, _, raters = _unit_ratings(rating_rows)
            humans = _rater_pairs(
                units,
                raters,
                labels=_labels(rating_rows, scale),
                weights="quadratic",
                snap_to_labels=True,
            )
            people = _levels(rating_rows, scale)[1]
    prefs, human_prefs, n_prefs = _preference_calibration(pairwise)
    return Calibration(
        selection,
        scale,
        tuple(judges),
        alpha,
        humans,
        tuple(prefs),
        human_prefs,
        n_labels,
        n_prefs,
        levels,
        people,
        human_reference,
        n_adjudicated,
    )
