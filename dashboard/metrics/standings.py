"""Pairwise standings: head-to-head win rates (a tie counts half, mean over evaluators) and
Bradley-Terry ratings, from the reconciled verdicts of every rater (`verdicts.pair_verdict_of`:
a pair with an order whose verdict did not parse is unscored, in neither).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dashboard.metrics import overview_sql as sql
from dashboard.metrics.estimates import N_RESAMPLES, SEED, Estimate
from dashboard.metrics.selection import Selection
from dashboard.metrics.verdicts import pair_verdict_of
from dashboard.store import Store
from scoring import pairwise

OUTCOME_FOR_A = {"A": "win", "B": "loss", "tie": "tie"}
OUTCOME_FOR_B = {"A": "loss", "B": "win", "tie": "tie"}


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


def _outcome_counts(
    rows: Sequence[sql.PairOutcome],
) -> dict[tuple[str, str], dict[str, list[int]]]:
    """For each (system, opponent): evaluator -> [wins, ties, losses] of `system`.
    The opponent "*" pools every opponent."""
    table: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(
        lambda: defaultdict(lambda: [0, 0, 0])
    )
    slot = {"win": 0, "tie": 1, "loss": 2}
    for row in rows:
        verdict = pair_verdict_of(row)
        if verdict is None or row.system_a == row.system_b:
            continue
        evaluator = f"{row.rater_kind}:{row.rater}"
        for system, opponent, outcome in (
            (row.system_a, row.system_b, OUTCOME_FOR_A[verdict]),
            (row.system_b, row.system_a, OUTCOME_FOR_B[verdict]),
        ):
            for key in ((system, opponent), (system, "*")):
                table[key][evaluator][slot[outcome]] += row.count
    return table


def _win_estimate(per_evaluator: Mapping[str, list[int]]) -> Estimate:
    ci = pairwise.win_rate_ci(per_evaluator, n_resamples=N_RESAMPLES, seed=SEED)
    return Estimate.of(ci, sum(sum(c) for c in per_evaluator.values()))


def standings_of(rows: Sequence[sql.PairOutcome]) -> tuple[Pairwise, dict[str, Estimate]]:
    """The standings of these outcomes, and each system's win rate over every opponent."""
    counts = _outcome_counts(rows)
    overall = {s: _win_estimate(e) for (s, o), e in counts.items() if o == "*"}
    head = tuple(
        HeadToHead(s, o, _win_estimate(e)) for (s, o), e in sorted(counts.items()) if o != "*"
    )
    battles = [
        (row.system_a, row.system_b, verdict)
        for row in rows
        if (verdict := pair_verdict_of(row)) is not None and row.system_a != row.system_b
        for _ in range(row.count)
    ]
    fit = pairwise.bradley_terry(battles, n_bootstrap=N_RESAMPLES, seed=SEED)
    standings = tuple(
        sorted(
            (Standing(s, r.rating, r.low, r.high, r.n_battles) for s, r in fit.ratings.items()),
            key=lambda st: -st.rating if not math.isnan(st.rating) else math.inf,
        )
    )
    return Pairwise(head, standings, fit.reason), overall


def pairwise_standings(store: Store, selection: Selection) -> Pairwise:
    """Head-to-head win rates and Bradley-Terry ratings alone (the Pairwise page): the same
    numbers as `overview(...).pairwise`, without the rest of the Overview's work."""
    with store.connection() as con:
        rows = sql.preference_outcomes(con, selection)
    return standings_of(rows)[0]
