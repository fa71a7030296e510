"""How far people agree with each other in a campaign, and the responses they disagree on most.

Per pair of people, over the responses both labelled: exact agreement and quadratic-weighted
Cohen's kappa (`scoring.agreement_ci.paired_agreement_ci`, percentile bootstrap over those
responses). Over everyone: Krippendorff's ordinal alpha on the rubric's scale
(`scoring.agreement_ci.krippendorff_alpha_ci`, bootstrap over the responses). Every number
carries its 95% interval and its n. A response's disagreement is the range (highest minus
lowest) of its labels, on the rubric's own scale.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from dashboard.campaigns import campaigns_sql as sql
from dashboard.metrics.estimates import Estimate
from dashboard.store import Store
from scoring import agreement_ci
from scoring.stats import CI

N_RESAMPLES = 1000
SEED = 0
N_DISAGREED = 20


@dataclass(frozen=True)
class PeoplePair:
    a: str
    b: str
    exact: Estimate
    kappa_quadratic: Estimate


@dataclass(frozen=True)
class Disagreement:
    response_id: str
    n_people: int
    low: float
    high: float

    @property
    def spread(self) -> float:
        return self.high - self.low


@dataclass(frozen=True)
class PeopleAgreement:
    campaign: str
    alpha_ordinal: Estimate
    pairs: tuple[PeoplePair, ...]
    disagreed: tuple[Disagreement, ...]


def _pair(units: dict[str, dict[str, float]], a: str, b: str, labels: list[float]) -> PeoplePair:
    shared = [(r[a], r[b]) for r in units.values() if a in r and b in r]
    x = np.array([s[0] for s in shared], dtype=float)
    y = np.array([s[1] for s in shared], dtype=float)
    found = agreement_ci.paired_agreement_ci(
        x, y, labels=labels, n_resamples=N_RESAMPLES, seed=SEED
    )
    return PeoplePair(
        a,
        b,
        Estimate.of(found.exact, found.n),
        Estimate.of(found.kappa_quadratic, found.n),
    )


def people_agreement(store: Store, name: str, *, scale: tuple[float, float]) -> PeopleAgreement:
    """Agreement between the people of a campaign (`scale`: its rubric's (low, high))."""
    with store.connection() as con:
        campaign = sql.get_campaign(con, name)
        rows = sql.campaign_labels(con, campaign) if campaign else []
    labels = [float(v) for v in range(math.ceil(scale[0]), math.floor(scale[1]) + 1)]
    units: dict[str, dict[str, float]] = defaultdict(dict)
    for row in rows:
        units[row.response_id][row.rater] = float(row.value)
    people = sorted({row.rater for row in rows})
    pairs = tuple(
        _pair(units, a, b, labels)
        for i, a in enumerate(people)
        for b in people[i + 1 :]
        if any(a in r and b in r for r in units.values())
    )
    unit_ids = sorted(units)
    matrix = np.array([[units[u].get(p, np.nan) for u in unit_ids] for p in people], dtype=float)
    pairable = sum(1 for u in unit_ids if len(units[u]) >= 2)
    alpha = (
        agreement_ci.krippendorff_alpha_ci(
            agreement_ci.snap(matrix, labels),
            level="ordinal",
            values=labels,
            n_resamples=N_RESAMPLES,
            seed=SEED,
        )
        if pairable
        else CI(math.nan, math.nan, math.nan)
    )
    disagreed = sorted(
        (
            Disagreement(u, len(r), min(r.values()), max(r.values()))
            for u, r in units.items()
            if len(r) >= 2
        ),
        key=lambda d: (-d.spread, -d.n_people, d.response_id),
    )
    worst = tuple(d for d in disagreed if d.spread > 0)[:N_DISAGREED]
    return PeopleAgreement(name, Estimate.of(alpha, pairable), pairs, worst)
