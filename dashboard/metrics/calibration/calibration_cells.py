"""Calibration's drill-down: the (judge rating, person rating) pairs behind one cell of a
judge's confusion table, and every pair where the judge and a person disagree.

A pair is one judge rating and one human rating of the same response, with the judge's
rating (for the panel: the mean of its judges) snapped to the nearest scale point (a tie goes
up), exactly as the confusion table counts them (`agreement.py`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from dashboard.auth.roles import User, require_admin
from dashboard.metrics import selection_sql
from dashboard.metrics.calibration import calibration_sql as sql
from dashboard.metrics.calibration.agreement import PANEL
from dashboard.metrics.choices import with_default_rubric
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from scoring import agreement_ci


@dataclass(frozen=True)
class CellPair:
    """One compared pair: the response, the person, and both ratings on the scale."""

    response_id: str
    person: str
    judge_value: float  # snapped to the scale
    person_value: float


def compared_pairs(store: Store, selection: Selection, judge: str) -> list[CellPair]:
    """Every (judge, person) pair of `judge` (a judge's name or "panel") on the selection."""
    selection = with_default_rubric(store, selection)
    if selection.rubric is None:
        return []
    with store.connection() as con:
        scale = selection_sql.rubric_scale(con, selection.rubric)
        rows = sql.labelled_ratings(con, selection)
    if scale is None:
        return []
    labels = [float(v) for v in np.arange(scale[0], scale[1] + 1)]
    judged: dict[str, list[float]] = defaultdict(list)
    people: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for r in rows:
        if r.value is None:
            continue
        if r.rater_kind == "human":
            people[r.response_id].append((r.rater, r.value))
        elif judge == PANEL or r.rater == judge:
            judged[r.response_id].append(r.value)
    found = []
    for response_id in sorted(set(judged) & set(people)):
        value = float(agreement_ci.snap([np.mean(judged[response_id])], labels)[0])
        for person, given in sorted(people[response_id]):
            found.append(CellPair(response_id, person, value, float(given)))
    return found


def cell_pairs(
    store: Store,
    selection: Selection,
    judge: str,
    *,
    judge_value: float,
    person_value: float,
    actor: User | None = None,
) -> list[CellPair]:
    """The pairs one cell of the judge's confusion table counts. They name each person's
    label: an admin's to see (`actor`)."""
    require_admin(actor, "see which person gave which label")
    return [
        p
        for p in compared_pairs(store, selection, judge)
        if p.judge_value == judge_value and p.person_value == person_value
    ]


def disagreements(
    store: Store, selection: Selection, judge: str, *, actor: User | None = None
) -> list[CellPair]:
    """The pairs where the judge's (snapped) rating differs from the person's; an admin's to
    see (`actor`), like `cell_pairs`."""
    require_admin(actor, "see which person gave which label")
    return [p for p in compared_pairs(store, selection, judge) if p.judge_value != p.person_value]
