"""The numbers of the Overview: per-system scores with 95% bootstrap intervals, histograms and
pairwise standings.

SQL (`store/metrics_sql.py`) reduces the rows to histograms and count tables; `scoring` turns
those into estimates. The Overview page, `judgeboard metrics` and the report all call
`overview()`, so they show the same numbers. A person's rating and a judge's rating enter
through the same queries and the same functions.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from dashboard import autoscore
from dashboard.store import Store
from dashboard.store import metrics_sql as sql
from dashboard.store.metrics_sql import Selection
from scoring import classification, pairwise, stats

N_RESAMPLES = 1000
SEED = 0
OUTCOME_FOR_A = {"A": "win", "B": "loss", "tie": "tie"}
OUTCOME_FOR_B = {"A": "loss", "B": "win", "tie": "tie"}


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95% bootstrap interval, over `n` observations."""

    value: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, ci: stats.CI, n: int) -> Estimate:
        return cls(ci.estimate, ci.low, ci.high, n)


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
class HeadToHead:
    """Win rate of `system_a` over `system_b` (a tie counts half), mean over evaluators."""

    system_a: str
    system_b: str
    win_rate: Estimate


@dataclass(frozen=True)
class Standing:
    system: str
    rating: float
    low: float
    high: float
    n_battles: int


@dataclass(frozen=True)
class Pairwise:
    head_to_head: tuple[HeadToHead, ...] = ()
    bradley_terry: tuple[Standing, ...] = ()
    note: str | None = None


@dataclass(frozen=True)
class Overview:
    selection: Selection
    scale: tuple[float, float] | None
    systems: tuple[SystemRow, ...]
    histograms: tuple[Histogram, ...]
    pairwise: Pairwise


def default_rubric(store: Store, selection: Selection) -> tuple[str, float, float] | None:
    """The rubric with the most current ratings on the selection, with its scale."""
    with store.connection() as con:
        rubrics = sql.rubric_scales(con, selection)
    return (rubrics[0][0], rubrics[0][1], rubrics[0][2]) if rubrics else None


def _mean_estimate(pairs: Iterable[tuple[float, int]], *,
                   exact_sum: float | None = None) -> Estimate | None:
    """Mean and bootstrap interval of a value histogram. With `exact_sum`, the histogram's
    values are rounded bins: the estimate is the exact mean and the interval is shifted by
    the rounding's (tiny) offset."""
    values, counts = zip(*pairs) if pairs else ((), ())
    if not counts or sum(counts) == 0:
        return None
    ci = stats.bootstrap_mean_ci_from_counts(values, counts, n_resamples=N_RESAMPLES, seed=SEED)
    if exact_sum is not None:
        shift = exact_sum / sum(counts) - ci.estimate
        ci = stats.CI(ci.estimate + shift, ci.low + shift, ci.high + shift)
    return Estimate.of(ci, int(sum(counts)))


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
        histograms.append(Histogram(system, kind, rater, tuple(v for v, _ in scored),
                                    tuple(c for _, c in scored), counts.get(None, 0)))
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
        estimate = _mean_estimate(list(bins.items()))
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
        estimate = _mean_estimate(pairs, exact_sum=sums[key])
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


def _tp_fp_fn(predicted: np.ndarray, gold: np.ndarray, counts: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (counts[:, predicted & gold].sum(axis=1), counts[:, predicted & ~gold].sum(axis=1),
            counts[:, ~predicted & gold].sum(axis=1))


def reconciled_verdict(shown_a_first: str | None, shown_b_first: str | None) -> str | None:
    """One verdict per pair and rater: both orders reconciled (an inconsistent pair is a tie),
    else the one order that was judged."""
    if shown_a_first is not None and shown_b_first is not None:
        return pairwise.reconcile_swap(shown_a_first, shown_b_first)
    return shown_a_first if shown_a_first is not None else shown_b_first


def _outcome_counts(rows: list[tuple]) -> dict[tuple[str, str], dict[str, list[int]]]:
    """For each (system, opponent): evaluator -> [wins, ties, losses] of `system`.
    The opponent "*" pools every opponent."""
    table: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(
        lambda: defaultdict(lambda: [0, 0, 0]))
    slot = {"win": 0, "tie": 1, "loss": 2}
    for system_a, system_b, kind, rater, first, second, count in rows:
        verdict = reconciled_verdict(first, second)
        if verdict is None or system_a == system_b:
            continue
        evaluator = f"{kind}:{rater}"
        for system, opponent, outcome in ((system_a, system_b, OUTCOME_FOR_A[verdict]),
                                          (system_b, system_a, OUTCOME_FOR_B[verdict])):
            for key in ((system, opponent), (system, "*")):
                table[key][evaluator][slot[outcome]] += count
    return table


def _win_estimate(per_evaluator: Mapping[str, list[int]]) -> Estimate:
    ci = pairwise.win_rate_ci(per_evaluator, n_resamples=N_RESAMPLES, seed=SEED)
    return Estimate.of(ci, sum(sum(c) for c in per_evaluator.values()))


def _pairwise(rows: list[tuple]) -> tuple[Pairwise, dict[str, Estimate]]:
    counts = _outcome_counts(rows)
    overall = {s: _win_estimate(e) for (s, o), e in counts.items() if o == "*"}
    head = tuple(HeadToHead(s, o, _win_estimate(e))
                 for (s, o), e in sorted(counts.items()) if o != "*")
    battles = [(a, b, verdict) for a, b, _, _, first, second, count in rows
               if (verdict := reconciled_verdict(first, second)) is not None and a != b
               for _ in range(count)]
    fit = pairwise.bradley_terry(battles, n_bootstrap=N_RESAMPLES, seed=SEED)
    standings = tuple(sorted(
        (Standing(s, r.rating, r.low, r.high, r.n_battles) for s, r in fit.ratings.items()),
        key=lambda st: -st.rating if not math.isnan(st.rating) else math.inf))
    return Pairwise(head, standings, fit.reason), overall


def pairwise_standings(store: Store, selection: Selection) -> Pairwise:
    """Head-to-head win rates and Bradley-Terry ratings alone (the Pairwise page): the same
    numbers as `overview(...).pairwise`, without the rest of the Overview's work."""
    with store.connection() as con:
        rows = sql.preference_outcomes(con, selection)
    return _pairwise(rows)[0]


def overview(store: Store, selection: Selection) -> Overview:
    """Every number of the Overview page for one selection (dataset, rubric, systems)."""
    if selection.rubric is None:
        found = default_rubric(store, selection)
        selection = Selection(selection.dataset, found[0] if found else None, selection.systems)
    autoscore.refresh_auto_scores(store, dataset=selection.dataset)
    with store.connection() as con:
        systems = sql.selected_systems(con, selection)
        rating_rows = sql.rating_histograms(con, selection) if selection.rubric else []
        score_rows = sql.response_score_histograms(con, selection) if selection.rubric else []
        auto_rows = sql.auto_score_histograms(con, selection, version=autoscore.VERSION)
        halluc_rows = sql.hallucination_counts(con, selection, version=autoscore.VERSION)
        preference_rows = sql.preference_outcomes(con, selection)
    scale = _scale_of(rating_rows)
    histograms = _rating_histograms(rating_rows)
    skips = _panel_skips(histograms)
    judges = _judge_estimates(rating_rows)
    scores = _score_estimates(score_rows)
    auto = _score_estimates(auto_rows)
    halluc = _hallucination_f1(halluc_rows)
    pairs, wins = _pairwise(preference_rows)
    rows = tuple(
        SystemRow(
            system=name, n_responses=n, judges=judges.get(name, {}),
            panel=scores[name].get("panel"), panel_skipped=skips.get(name, 0),
            human=scores[name].get("human"), effective=scores[name].get("effective"),
            win_rate=wins.get(name), em=auto[name].get("em"), f1=auto[name].get("f1"),
            mcqa_accuracy=auto[name].get("mcqa_accuracy"), mcqa_iou=auto[name].get("mcqa_iou"),
            hallucination_f1=halluc.get(name))
        for name, n in systems)
    return Overview(selection, scale, rows, tuple(histograms), pairs)
