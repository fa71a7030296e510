"""The numbers of the Overview: per-system scores with 95% bootstrap intervals, histograms and
pairwise standings.

SQL (`overview_sql.py`) reduces the rows to histograms and count tables; `scoring` turns
those into estimates. The Overview page, `judgeboard metrics` and the report all call
`overview()`, so they show the same numbers. A person's rating and a judge's rating enter
through the same queries and the same functions.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from dashboard.metrics import reference, registry, selection_sql
from dashboard.metrics.estimates import N_RESAMPLES, SEED, Estimate, mean_estimate
from dashboard.metrics.overview import overview_sql as sql
from dashboard.metrics.overview.standings import Pairwise, Standing, Standings, standings_of
from dashboard.metrics.panels import with_panel
from dashboard.metrics.reference import DatasetRule, rules_of
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from scoring import classification


@dataclass(frozen=True)
class Histogram:
    """How often a rater (or the panel, or people as a group) gave each value to a system."""

    system: str
    rater_kind: str
    rater: str
    values: tuple[float, ...]
    counts: tuple[int, ...]
    unscored: int = 0


@dataclass(frozen=True)
class SystemRow:
    """One system's line in the metric tables. `scores` holds its estimates by their name
    after "systems.<system>." in `registry.SYSTEM_METRICS`, placeholders filled (panel,
    effective, win_rate.judges, bradley_terry.people, win_rate.judge.<judge>, em, ...;
    absent where no data backs one), in the registry's order; `judges` each judge's mean
    rating, `counts` its counts (n_responses; panel_skipped where the panel scored it)."""

    system: str
    n_responses: int
    judges: Mapping[str, Estimate] = field(default_factory=dict)
    scores: Mapping[str, Estimate] = field(default_factory=dict)
    panel_skipped: int = 0
    # Each reference scorer's mean (rater kind `reference`: lm-eval's metrics), apart from the
    # judges: it is in no panel and no calibration.
    references: Mapping[str, Estimate] = field(default_factory=dict)

    def score(self, key: str) -> Estimate | None:
        return self.scores.get(key)

    @property
    def counts(self) -> dict[str, int]:
        found = {"n_responses": self.n_responses}
        if "panel" in self.scores:
            found["panel_skipped"] = self.panel_skipped
        return found


@dataclass(frozen=True)
class Overview:
    selection: Selection
    scale: tuple[float, float] | None
    systems: tuple[SystemRow, ...]
    histograms: tuple[Histogram, ...]
    pairwise: Pairwise
    # The rule of each selected dataset's EM and F1, and how many of its responses have no
    # reference scores of the current rules yet (`judgeboard score` computes them).
    reference_rules: tuple[DatasetRule, ...] = ()
    unscored_references: int = 0


def _scale_of(rows: Sequence[sql.RatingBin]) -> tuple[float, float] | None:
    if not rows:
        return None
    return (min(r.scale_low for r in rows), max(r.scale_high for r in rows))


def _panel_skips(histograms: list[Histogram], selection: Selection) -> dict[str, int]:
    """Unscored ratings of the panel's judges per system: the panel skipped them."""
    skips: dict[str, int] = defaultdict(int)
    judges = selection.panel_judges
    for h in histograms:
        if h.rater_kind == "llm" and (judges is None or h.rater in judges):
            skips[h.system] += h.unscored
    return skips


def _rating_histograms(rows: Sequence[sql.RatingBin]) -> list[Histogram]:
    grouped: dict[tuple[str, str, str], dict[float | None, int]] = defaultdict(dict)
    for row in rows:
        counts = grouped[(row.system, row.rater_kind, row.rater)]
        counts[row.value] = counts.get(row.value, 0) + row.count
    histograms = []
    for (system, kind, rater), counts in sorted(grouped.items()):
        scored = sorted((v, c) for v, c in counts.items() if v is not None)
        histograms.append(
            Histogram(
                system,
                kind,
                rater,
                tuple(v for v, _ in scored),
                tuple(c for _, c in scored),
                counts.get(None, 0),
            )
        )
    return histograms


def _judge_estimates(
    rows: Sequence[sql.RatingBin], *, kind: str = "llm"
) -> dict[str, dict[str, Estimate]]:
    """Each judge's (or, `kind` "reference", each reference scorer's) mean normalized score
    per system; every rating is normalized by its own scale, as the panel's per-response
    scores are in SQL."""
    normalized: dict[tuple[str, str], dict[float, int]] = defaultdict(dict)
    for row in rows:
        if row.rater_kind == kind and row.value is not None and row.scale_high > row.scale_low:
            bins = normalized[(row.system, row.rater)]
            norm = (row.value - row.scale_low) / (row.scale_high - row.scale_low)
            bins[norm] = bins.get(norm, 0) + row.count
    by_system: dict[str, dict[str, Estimate]] = defaultdict(dict)
    for (system, rater), bins in sorted(normalized.items()):
        estimate = mean_estimate(list(bins.items()))
        if estimate is not None:
            by_system[system][rater] = estimate
    return by_system


def _estimates(
    bins: Sequence[tuple[str, str, float, int, float]],
) -> dict[str, dict[str, Estimate]]:
    """(system, key, value, count, exact sum of the bin) to an estimate per system and key."""
    grouped: dict[tuple[str, str], list[tuple[float, int]]] = defaultdict(list)
    sums: dict[tuple[str, str], float] = defaultdict(float)
    for system, key, value, count, exact in bins:
        grouped[(system, key)].append((value, count))
        sums[(system, key)] += exact
    result: dict[str, dict[str, Estimate]] = defaultdict(dict)
    for (system, key), pairs in grouped.items():
        estimate = mean_estimate(pairs, exact_sum=sums[(system, key)])
        if estimate is not None:
            result[system][key] = estimate
    return result


def _reference_estimates(rows: Sequence[sql.ReferenceBin]) -> dict[str, dict[str, Estimate]]:
    """The mean of each reference metric per system, under its registry key."""
    keys = {m.reference.stored: m.key for m in registry.SYSTEM_METRICS if m.reference}
    return _estimates([(r.system, keys[r.metric], r.value, r.count, r.exact_sum) for r in rows])


def _detection_f1(rows: Sequence[sql.DetectionCell]) -> dict[str, Estimate]:
    """F1 of the positive class ("hallucinated"), bootstrapped over items by resampling the
    2x3 table of (gold, prediction) cells; a missing verdict is not a positive prediction."""
    cells: dict[str, list[sql.DetectionCell]] = defaultdict(list)
    for row in rows:
        cells[row.system].append(row)
    result = {}
    for system, table in cells.items():
        predicted = np.array([c.predicted is True for c in table])
        gold = np.array([bool(c.gold) for c in table])
        counts = np.array([c.count for c in table])
        n = int(counts.sum())
        point = classification.f1_from_counts(*_tp_fp_fn(predicted, gold, counts[None, :]))
        draws = np.random.default_rng(SEED).multinomial(n, counts / n, size=N_RESAMPLES)
        replicates = classification.f1_from_counts(*_tp_fp_fn(predicted, gold, draws))
        low, high = np.quantile(replicates, [0.025, 0.975])
        result[system] = Estimate(float(point[0]), float(low), float(high), n)
    return result


def _tp_fp_fn(
    predicted: np.ndarray, gold: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (
        counts[:, predicted & gold].sum(axis=1),
        counts[:, predicted & ~gold].sum(axis=1),
        counts[:, ~predicted & gold].sum(axis=1),
    )


def _standing_estimate(standing: Standing) -> Estimate:
    return Estimate(standing.rating, standing.low, standing.high, standing.n_battles)


def _standing_scores(groups: Sequence[Standings]) -> dict[str, dict[str, Estimate]]:
    """Each system's win rate and Bradley–Terry rating per group of raters, under their
    names (win_rate.judges, bradley_terry.judge.<judge>, win_rate for the pool, ...)."""
    scores: dict[str, dict[str, Estimate]] = defaultdict(dict)
    for group in groups:
        win_rate = registry.rater_name(registry.SYSTEM_METRICS, "win_rate", group.raters)
        elo = registry.rater_name(registry.SYSTEM_METRICS, "bradley_terry", group.raters)
        for system, estimate in group.win_rates.items():
            scores[system][registry.row_key(win_rate)] = estimate
        for standing in group.bradley_terry:
            scores[standing.system][registry.row_key(elo)] = _standing_estimate(standing)
    return scores


def overview(store: Store, selection: Selection, *, pool_raters: bool = False) -> Overview:
    """Every number of the Overview page for one selection (dataset, rubric, systems,
    slice); the standings of everyone pooled, people and judges alike, only when
    `pool_raters`."""
    selection = with_panel(store, selection)
    means = registry.stored_names(aggregate="mean")
    f1s = [m for m in registry.SYSTEM_METRICS if m.reference and m.aggregate == "f1"]
    version = reference.VERSION
    with store.connection() as con:
        systems = selection_sql.selected_systems(con, selection)
        rating_rows = sql.rating_histograms(con, selection) if selection.rubric else []
        score_rows = sql.response_score_histograms(con, selection) if selection.rubric else []
        reference_rows = sql.reference_histograms(con, selection, version=version, metrics=means)
        detections = {
            m.key: sql.detection_counts(con, selection, version=version, metric=stored)
            for m in f1s
            if (stored := m.reference.stored if m.reference else None)
        }
        preference_rows = sql.preference_outcomes(con, selection)
        rules = rules_of(con, dataset=selection.dataset)
        unscored = reference.unscored_count(con, dataset=selection.dataset)
    histograms = _rating_histograms(rating_rows)
    skips = _panel_skips(histograms, selection)
    judges = _judge_estimates(rating_rows)
    references = _judge_estimates(rating_rows, kind="reference")
    scores = _estimates(
        [(r.system, r.kind, r.value, r.count, r.value * r.count) for r in score_rows]
    )
    for system, found in _reference_estimates(reference_rows).items():
        scores[system].update(found)
    for key, cells in detections.items():
        for system, estimate in _detection_f1(cells).items():
            scores[system][key] = estimate
    pairs = standings_of(preference_rows, pool_raters=pool_raters)
    for system, found in _standing_scores(pairs.groups).items():
        scores[system].update(found)
    rows = tuple(
        SystemRow(
            system=s.system,
            n_responses=s.n_responses,
            judges=judges.get(s.system, {}),
            scores=_in_declared_order(s.system, scores.get(s.system, {})),
            panel_skipped=skips.get(s.system, 0),
            references=references.get(s.system, {}),
        )
        for s in systems
    )
    return Overview(
        selection, _scale_of(rating_rows), rows, tuple(histograms), pairs, rules, unscored
    )


def _in_declared_order(system: str, found: Mapping[str, Estimate]) -> dict[str, Estimate]:
    def place(key: str) -> tuple[int, str]:
        metric = registry.declared(f"systems.{system}.{key}")
        order = registry.SYSTEM_METRICS
        return (order.index(metric) if metric in order else len(order), key)

    return {key: found[key] for key in sorted(found, key=place)}
