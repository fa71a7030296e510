"""What the pages offer to choose from: the rubrics rated on a selection, with their scales.

The first rubric, the one with the most current ratings, is the default of every page,
`judgeboard metrics` and the report when no rubric is given.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from dashboard.metrics import selection_sql as sql
from dashboard.metrics.selection import Selection
from dashboard.store import Store


@dataclass(frozen=True)
class RatedRubric:
    name: str
    scale_low: float
    scale_high: float
    n_ratings: int

    @property
    def label(self) -> str:
        return (
            f"{self.name} (scale {self.scale_low:g}–{self.scale_high:g}, "
            f"{self.n_ratings:,} ratings)"
        )


def _rated(store: Store, selection: Selection) -> list[RatedRubric]:
    with store.connection() as con:
        rows = sql.rubric_scales(con, selection)
    return [RatedRubric(r.rubric, r.scale_low, r.scale_high, r.n_ratings) for r in rows]


def rated_rubrics(store: Store, *, dataset: str | None = None) -> list[RatedRubric]:
    """The rubrics with current ratings on the dataset, most used first."""
    return _rated(store, Selection(dataset))


def default_rubric(store: Store, selection: Selection) -> RatedRubric | None:
    """The rubric with the most current ratings on the selection."""
    found = _rated(store, selection)
    return found[0] if found else None


def with_default_rubric(store: Store, selection: Selection) -> Selection:
    """The selection with its rubric filled in (the most used one) when it names none."""
    if selection.rubric is not None:
        return selection
    found = default_rubric(store, selection)
    return dataclasses.replace(selection, rubric=found.name if found else None)
