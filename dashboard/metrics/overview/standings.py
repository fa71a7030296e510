"""Pairwise standings per group of raters: head-to-head win rates (a tie counts half, mean over
the group's evaluators) and Bradley–Terry ratings (a fit over the group's battles), from the
reconciled verdict of each rater on each pair (`verdicts.pair_verdict_of`: a pair with
an order whose verdict did not parse is unscored, in neither).

The groups: the judges, the people, each judge alone, and (only when asked for) everyone
pooled. People's and judges' verdicts are never mixed otherwise: a system's standing among
the judges and among people are two numbers. Within a rater kind (and the pool), where the
win rate and Bradley–Terry rank two systems differently, the standings say so
(`RankDisagreement`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from dashboard.metrics.estimates import N_RESAMPLES, SEED, Estimate
from dashboard.metrics.overview import overview_sql as sql
from dashboard.metrics.overview.verdicts import pair_verdict_of
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from scoring import pairwise

OUTCOME_FOR_A = {"A": "win", "B": "loss", "tie": "tie"}
OUTCOME_FOR_B = {"A": "loss", "B": "win", "tie": "tie"}

JUDGES, PEOPLE, POOLED = "judges", "people", "pooled"
KIND_GROUP = {"llm": JUDGES, "human": PEOPLE}
JUDGE_PREFIX = "judge."
WHY_THEY_DIFFER = (
    "the win rate averages a system's results over whichever opponents it met (each "
    "evaluator weighing the same), while Bradley–Terry weighs every battle and accounts for "
    "the strength of the opponents and the number of battles against each"
)


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
class RankDisagreement:
    """Within one group of raters: the win rate ranks `win_rate_above` over
    `bradley_terry_above`, Bradley–Terry the other way round."""

    raters: str
    win_rate_above: str
    bradley_terry_above: str
    win_rates: tuple[float, float]  # of win_rate_above, of bradley_terry_above
    ratings: tuple[float, float]  # the same order

    @property
    def text(self) -> str:
        a, b = self.win_rate_above, self.bradley_terry_above
        return (
            f"Among {group_label(self.raters)}, the win rate ranks {a} above {b} "
            f"({self.win_rates[0]:.3f} against {self.win_rates[1]:.3f}) but Bradley–Terry "
            f"ranks {b} above {a} ({self.ratings[1]:.0f} against {self.ratings[0]:.0f}): "
            f"{WHY_THEY_DIFFER}."
        )


@dataclass(frozen=True)
class Standings:
    """The standings from one group's verdicts. `raters` is "judges", "people", "pooled" or
    "judge.<name>"; `note` says why the Bradley–Terry ratings are undefined, if they are."""

    raters: str
    win_rates: Mapping[str, Estimate] = field(default_factory=dict)
    head_to_head: tuple[HeadToHead, ...] = ()
    bradley_terry: tuple[Standing, ...] = ()
    note: str | None = None
    disagreements: tuple[RankDisagreement, ...] = ()

    @property
    def label(self) -> str:
        return group_label(self.raters)


@dataclass(frozen=True)
class Pairwise:
    """The standings of every group with verdicts: judges, people, each judge, then the
    pool when it was asked for."""

    groups: tuple[Standings, ...] = ()

    def of(self, raters: str) -> Standings | None:
        return next((g for g in self.groups if g.raters == raters), None)

    @property
    def disagreements(self) -> tuple[RankDisagreement, ...]:
        return tuple(d for g in self.groups for d in g.disagreements)


def group_label(raters: str) -> str:
    """ "the judges", "people", "judge gpt-4o", "everyone (people and judges pooled)"."""
    if raters.startswith(JUDGE_PREFIX):
        return f"judge {raters.removeprefix(JUDGE_PREFIX)}"
    return {JUDGES: "the judges", PEOPLE: "people", POOLED: "everyone (pooled)"}[raters]


@dataclass(frozen=True)
class _Battle:
    system_a: str
    system_b: str
    rater_kind: str
    rater: str
    verdict: str
    count: int


def _battles(rows: Sequence[sql.PairOutcome]) -> list[_Battle]:
    """The reconciled, scored verdicts of two different systems."""
    return [
        _Battle(row.system_a, row.system_b, row.rater_kind, row.rater, verdict, row.count)
        for row in rows
        if (verdict := pair_verdict_of(row)) is not None and row.system_a != row.system_b
    ]


def _outcome_counts(battles: Sequence[_Battle]) -> dict[tuple[str, str], dict[str, list[int]]]:
    """For each (system, opponent): evaluator -> [wins, ties, losses] of `system`.
    The opponent "*" pools every opponent."""
    table: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(
        lambda: defaultdict(lambda: [0, 0, 0])
    )
    slot = {"win": 0, "tie": 1, "loss": 2}
    for b in battles:
        evaluator = f"{b.rater_kind}:{b.rater}"
        for system, opponent, outcome in (
            (b.system_a, b.system_b, OUTCOME_FOR_A[b.verdict]),
            (b.system_b, b.system_a, OUTCOME_FOR_B[b.verdict]),
        ):
            for key in ((system, opponent), (system, "*")):
                table[key][evaluator][slot[outcome]] += b.count
    return table


def _win_estimate(per_evaluator: Mapping[str, list[int]]) -> Estimate:
    ci = pairwise.win_rate_ci(per_evaluator, n_resamples=N_RESAMPLES, seed=SEED)
    return Estimate.of(ci, sum(sum(c) for c in per_evaluator.values()))


def _disagreements(
    raters: str, wins: Mapping[str, Estimate], ratings: Sequence[Standing]
) -> tuple[RankDisagreement, ...]:
    """Every two systems the win rate and Bradley–Terry order strictly the other way round."""
    rated = {s.system: s.rating for s in ratings if not math.isnan(s.rating)}
    systems = sorted(s for s in rated if s in wins and not math.isnan(wins[s].value))
    found = []
    for i, a in enumerate(systems):
        for b in systems[i + 1 :]:
            high, low = (a, b) if wins[a].value > wins[b].value else (b, a)
            if wins[high].value != wins[low].value and rated[high] < rated[low]:
                found.append(
                    RankDisagreement(
                        raters,
                        high,
                        low,
                        (wins[high].value, wins[low].value),
                        (rated[high], rated[low]),
                    )
                )
    return tuple(
        sorted(found, key=lambda d: (-d.win_rates[0], d.win_rate_above, d.bradley_terry_above))
    )


def standings_of_group(raters: str, battles: Sequence[_Battle]) -> Standings:
    """The standings of these battles, all from the group `raters`."""
    counts = _outcome_counts(battles)
    wins = {s: _win_estimate(e) for (s, o), e in sorted(counts.items()) if o == "*"}
    head = tuple(
        HeadToHead(s, o, _win_estimate(e)) for (s, o), e in sorted(counts.items()) if o != "*"
    )
    flat = [(b.system_a, b.system_b, b.verdict) for b in battles for _ in range(b.count)]
    fit = pairwise.bradley_terry(flat, n_bootstrap=N_RESAMPLES, seed=SEED)
    ratings = tuple(
        sorted(
            (Standing(s, r.rating, r.low, r.high, r.n_battles) for s, r in fit.ratings.items()),
            key=lambda st: (-st.rating if not math.isnan(st.rating) else math.inf, st.system),
        )
    )
    # Rankings are compared within a rater kind (and the pool); one judge's are its kind's.
    found = () if raters.startswith(JUDGE_PREFIX) else _disagreements(raters, wins, ratings)
    return Standings(raters, wins, head, ratings, fit.reason, found)


def standings_of(rows: Sequence[sql.PairOutcome], *, pool_raters: bool = False) -> Pairwise:
    """The standings of these outcomes per group: the judges, people, each judge, and the
    pool of everyone when `pool_raters`; a group without a scored verdict is left out."""
    battles = _battles(rows)
    groups: dict[str, list[_Battle]] = defaultdict(list)
    for b in battles:
        groups[KIND_GROUP[b.rater_kind]].append(b)
    for b in battles:
        if b.rater_kind == "llm":
            groups[f"{JUDGE_PREFIX}{b.rater}"].append(b)
    if pool_raters and battles:
        groups[POOLED] = battles
    order = [JUDGES, PEOPLE, *sorted(g for g in groups if g.startswith(JUDGE_PREFIX)), POOLED]
    return Pairwise(tuple(standings_of_group(g, groups[g]) for g in order if g in groups))


def pairwise_standings(
    store: Store, selection: Selection, *, pool_raters: bool = False
) -> Pairwise:
    """The standings alone (the Pairwise page): the same numbers as `overview(...).pairwise`,
    without the rest of the Overview's work."""
    with store.connection() as con:
        rows = sql.preference_outcomes(con, selection)
    return standings_of(rows, pool_raters=pool_raters)
