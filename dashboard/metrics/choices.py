"""What the pages and the commands offer to choose from: the rubrics rated (or judged
pairwise) on a selection, and the item fields a selection can be sliced by.

The first rated rubric, the one with the most current ratings, is the default rubric of
ratings on every page, in `judgeboard metrics` and in the report when no rubric is asked for;
pairwise verdicts then count under every rubric (see `selection.py`).
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass

from dashboard.metrics import selection_sql as sql
from dashboard.metrics.selection import ITEM_COLUMNS, Selection, Slice
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


@dataclass(frozen=True)
class RubricChoice:
    """A rubric a metric page can be shown under: its current ratings and pairwise verdicts
    on the selection, and its scale where it has ratings."""

    name: str
    n_ratings: int
    n_verdicts: int
    scale: tuple[float, float] | None = None

    @property
    def label(self) -> str:
        parts = []
        if self.scale is not None:
            parts.append(f"scale {self.scale[0]:g}–{self.scale[1]:g}")
        if self.n_ratings:
            parts.append(f"{self.n_ratings:,} ratings")
        if self.n_verdicts:
            parts.append(f"{self.n_verdicts:,} pairwise verdicts")
        return f"{self.name} ({', '.join(parts)})"


class UnknownChoice(ValueError):
    """A rubric or an item field that the data do not hold; the message lists what exists."""


def _rated(store: Store, selection: Selection) -> list[RatedRubric]:
    with store.connection() as con:
        rows = sql.rubric_scales(con, selection)
    return [RatedRubric(r.rubric, r.scale_low, r.scale_high, r.n_ratings) for r in rows]


def rated_rubrics(store: Store, *, dataset: str | None = None) -> list[RatedRubric]:
    """The rubrics with current ratings on the dataset, most used first."""
    return _rated(store, Selection(dataset))


def rubric_choices(store: Store, *, dataset: str | None = None) -> list[RubricChoice]:
    """The rubrics with current ratings or pairwise verdicts on the dataset: the rated ones
    first (most used first), then those with verdicts alone."""
    selection = Selection(dataset)
    with store.connection() as con:
        rated = sql.rubric_scales(con, selection)
        judged = {r.rubric: r.n for r in sql.verdict_rubrics(con, selection)}
    found = [
        RubricChoice(r.rubric, r.n_ratings, judged.pop(r.rubric, 0), (r.scale_low, r.scale_high))
        for r in rated
    ]
    return found + [RubricChoice(name, 0, n) for name, n in judged.items()]


def default_rubric(store: Store, selection: Selection) -> RatedRubric | None:
    """The rubric with the most current ratings on the selection."""
    found = _rated(store, selection)
    return found[0] if found else None


def with_default_rubric(store: Store, selection: Selection) -> Selection:
    """The selection with its rubric filled in (the most used one, marked as the default, so
    that verdicts of every rubric still count) when it names none."""
    if selection.rubric is not None:
        return selection
    found = default_rubric(store, selection)
    return dataclasses.replace(
        selection, rubric=found.name if found else None, rubric_is_default=True
    )


def _unknown(what: str, name: str, known: list[str]) -> UnknownChoice:
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    hint = f"; closest: {', '.join(close)}" if close else ""
    return UnknownChoice(f"no {what} named {name!r}{hint} ({what}s: {', '.join(known) or 'none'})")


def require_rubric(store: Store, name: str | None) -> None:
    """Raise UnknownChoice, naming the closest rubrics, unless some rating or pairwise
    verdict was given under the rubric `name` (None: the default, always fine)."""
    if name is None:
        return
    with store.connection() as con:
        known = sql.rubric_names(con)
    if name not in known:
        raise _unknown("rubric", name, known)


def slice_fields(store: Store, selection: Selection) -> list[str]:
    """The fields the selection can be sliced by: the item columns, then every metadata key
    that holds a value on some item of the selection."""
    with store.connection() as con:
        keys = sql.item_fields(con, selection)
    return [*ITEM_COLUMNS, *(k for k in keys if k not in ITEM_COLUMNS)]


def require_field(store: Store, selection: Selection, field: str) -> None:
    """Raise UnknownChoice, naming the closest fields and every field there, unless the
    selection can be sliced by `field`."""
    known = slice_fields(store, selection)
    if field not in known:
        raise _unknown("item field", field, known)


def slices_of(store: Store, selection: Selection, field: str) -> list[tuple[Slice, int]]:
    """Each slice of the selection by `field` with its number of items, by value (the items
    without the field last). An unknown field raises UnknownChoice naming the fields."""
    require_field(store, selection, field)
    with store.connection() as con:
        found = sql.slice_values(con, selection, field=field)
    return [(Slice(field, v.value), v.n_items) for v in found]
