"""The Overview's and the Calibration's numbers once per slice of the items by a field.

A slice is a `Selection` whose `slice` names the field's value (`selection.Slice`); every
metric query reads the selection through `selection_sql.SELECTED`, so each slice's numbers
are the same functions on fewer items. The slices of a field cover the whole selection: the
items without the field are a slice of their own (`selection.NO_VALUE`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from dashboard.metrics import (
    calibration as calibration_module,
    choices,
    overview as overview_module,
    panels,
)
from dashboard.metrics.calibration import Calibration
from dashboard.metrics.overview import Overview
from dashboard.metrics.selection import Selection, Slice
from dashboard.store import Store


@dataclass(frozen=True)
class OverviewSlice:
    slice: Slice
    n_items: int
    overview: Overview


@dataclass(frozen=True)
class CalibrationSlice:
    slice: Slice
    n_items: int
    calibration: Calibration


def _pieces(store: Store, selection: Selection, field: str) -> list[tuple[Selection, int]]:
    """The selection of each slice by `field`, with the default rubric of the whole (so
    every slice is rated under the same rubric), and its number of items."""
    resolved = panels.with_panel(store, selection)
    return [
        (dataclasses.replace(resolved, slice=piece), n_items)
        for piece, n_items in choices.slices_of(store, resolved, field)
    ]


def overview_by(
    store: Store, selection: Selection, field: str, *, pool_raters: bool = False
) -> tuple[OverviewSlice, ...]:
    """The Overview of each slice of the selection by the item field `field`."""
    return tuple(
        OverviewSlice(
            piece.slice,
            n_items,
            overview_module.overview(store, piece, pool_raters=pool_raters),
        )
        for piece, n_items in _pieces(store, selection, field)
        if piece.slice is not None
    )


def calibration_by(store: Store, selection: Selection, field: str) -> tuple[CalibrationSlice, ...]:
    """The Calibration of each slice of the selection by the item field `field`."""
    return tuple(
        CalibrationSlice(piece.slice, n_items, calibration_module.calibration(store, piece))
        for piece, n_items in _pieces(store, selection, field)
        if piece.slice is not None
    )
