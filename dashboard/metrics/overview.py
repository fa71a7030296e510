"""The numbers of the Overview: per-system scores with 95% bootstrap intervals, histograms and
pairwise standings.

SQL (`overview_sql.py`) reduces the rows to histograms and count tables; `scoring` turns
those into estimates. The Overview page, `judgeboard metrics` and the report all call
`overview()`, so they show the same numbers. A person's rating and a judge's rating enter
through the same queries and the same functions.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from dashboard.metrics import overview_sql as sql
from dashboard.metrics import reference, selection_sql
from dashboard.metrics.choices import with_default_rubric
from dashboard.metrics.estimates import N_RESAMPLES, SEED, Estimate, mean_estimate
from dashboard.metrics.selection import Selection
from dashboard.metrics.standings import Pairwise, standings_of
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
    """One system's line in the metric table; None where no data backs a metric."""

    system: str
    n_responses: int
    judges: Mapping[str, Estimate] = field(default_factory=dict)
    panel: Estimate | None = None
    panel_skipped: int = 0
    human: Estimate | None = None
    effective: Estimate | None = None
    win_rate: Estimate | None = None
    em: Estimate | None = None
    f1: Estimate | None = None
    mcqa_accuracy: Estimate | None = None
    mcqa_iou: Estimate | None = None
    hallucination_f1: Estimate | None = None


@dataclass(frozen=True)
class Overview:
    selection: Selection
    scale: tuple[float, float] | None
    systems: tuple[SystemRow, ...]
    histograms: tuple[Histogram, ...]
    pairwise: Pairwise


def _scale_of(rows: list[tuple]) -> tuple[float, float] | None:
    if not rows:
        return None
    return (min(r[5] for r in rows), max(r[6] for r in rows))


def _panel_skips(histograms: list[Histogram]) -> dict[str, int]:
    """Unscored judge ratings per system: the panel skipped them."""
    skips: dict[str, int] = defaultdict(int)
    for h in histograms:
        if h.rater_kind == "llm":
            skips[h.system] += h.unscored
    return skips


def _rating_histograms(rows: list[tuple]) -> list[Histogram]:
    grouped: dict[tuple[str, str, str], dict[float | None, int]] = defaultdict(dict)
    for system, kind, rater, value, count, *_ in rows:
        counts = grouped[(system, kind, rater)]
        counts[value] = counts.get(value, 0) + count
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


def _judge_estimates(rows: list[tuple]) -> dict[str, dict[str, Estimate]]:
    """Each judge's mean normalized score per system; every rating is normalized by its own
    scale, as the panel's per-response scores are in SQL."""
    normalized: dict[tuple[str, str], dict[float, int]] = defaultdict(dict)
    for system, kind, rater, value, count, low, high in rows:
        if kind == "llm" and value is not None and high > low:
            bins = normalized[(system, rater)]
            norm = (value - low) / (high - low)
            bins[norm] = bins.get(norm, 0) + count
    by_system: dict[str, dict[str, Estimate]] = defaultdict(dict)
    for (system, rater), bins in sorted(normalized.items()):
        estimate = mean_estimate(list(bins.items()))
        if estimate is not None:
            by_system[system][rater] = estimate
    return by_system


def _score_estimates(rows: list[tuple]) -> dict[str, dict[str, Estimate]]:
    """Rows (system, kind, value, count[, exact sum of the bin]) to an estimate per kind."""
    grouped: dict[tuple[str, str], list[tuple[float, int]]] = defaultdict(list)
    sums: dict[tuple[str, str], float] = defaultdict(float)
    for system, kind, value, count, *exact in rows:
        grouped[(system, kind)].append((value, count))
        sums[(system, kind)] += exact[0] if exact else value * count
    result: dict[str, dict[str, Estimate]] = defaultdict(dict)
    for key, pairs in grouped.items():
        estimate = mean_estimate(pairs, exact_sum=sums[key])
        if estimate is not None:
            result[key[0]][key[1]] = estimate
    return result


def _hallucination_f1(rows: list[tuple]) -> dict[str, Estimate]:
    """F1 of the class "hallucinated", bootstrapped over items by resampling the 2x3 table of
    (gold, prediction) cells; a missing verdict is not a positive prediction."""
    cells: dict[str, list[tuple[bool | None, bool, int]]] = defaultdict(list)
    for system, predicted, gold, count in rows:
        cells[system].append((predicted, gold, count))
    result = {}
    for system, table in cells.items():
        predicted = np.array([p is True for p, _, _ in table])
        gold = np.array([bool(g) for _, g, _ in table])
        counts = np.array([c for _, _, c in table])
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


def overview(store: Store, selection: Selection) -> Overview:
    """Every number of the Overview page for one selection (dataset, rubric, systems)."""
    selection = with_default_rubric(store, selection)
    with store.connection() as con:
        systems = selection_sql.selected_systems(con, selection)
        rating_rows = sql.rating_histograms(con, selection) if selection.rubric else []
        score_rows = sql.response_score_histograms(con, selection) if selection.rubric else []
        auto_rows = sql.auto_score_histograms(con, selection, version=reference.VERSION)
        halluc_rows = sql.hallucination_counts(con, selection, version=reference.VERSION)
        preference_rows = sql.preference_outcomes(con, selection)
    scale = _scale_of(rating_rows)
    histograms = _rating_histograms(rating_rows)
    skips = _panel_skips(histograms)
    judges = _judge_estimates(rating_rows)
    scores = _score_estimates(score_rows)
    auto = _score_estimates(auto_rows)
    halluc = _hallucination_f1(halluc_rows)
    pairs, wins = standings_of(preference_rows)
    rows = tuple(
        SystemRow(
            system=name,
            n_responses=n,
            judges=judges.get(name, {}),
            panel=scores[name].get("panel"),
            panel_skipped=skips.get(name, 0),
            human=scores[name].get("human"),
            effective=scores[name].get("effective"),
            win_rate=wins.get(name),
            em=auto[name].get("em"),
            f1=auto[name].get("f1"),
            mcqa_accuracy=auto[name].get("mcqa_accuracy"),
            mcqa_iou=auto[name].get("mcqa_iou"),
            hallucination_f1=halluc.get(name),
        )
        for name, n in systems
    )
    return Overview(selection, scale, rows, tuple(histograms), pairs)
