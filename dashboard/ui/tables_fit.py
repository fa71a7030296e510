"""Tables that fit a 1400-pixel window: column widths, a pinned first column, short headers
with the metric's description as their tooltip, and the Overview's scores split by kind.

Widths are in pixels, measured on Streamlit's table font: an estimate "0.62 [0.57, 0.66]"
needs about 120, one with three decimals about 134 (its sign included), a count 58.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from dashboard.metrics import registry
from dashboard.metrics.registry import COUNT, Metric

Row = dict[str, Any]
COUNT_PX, ESTIMATE_PX, WIDE_ESTIMATE_PX, NAME_PX = 58, 128, 134, 110

# The Overview's groups of columns, in the order they are shown.
RATINGS, PAIRWISE, REFERENCES = "Ratings", "Pairwise", "Against the references"


@dataclass(frozen=True)
class ColumnGroup:
    title: str
    rows: list[Row]


def _label_pattern(metric: Metric) -> re.Pattern[str]:
    parts = re.split(r"(<[a-z_]+>)", metric.label)
    return re.compile("".join(".+" if p.startswith("<") else re.escape(p) for p in parts))


def metric_of(label: str, metrics: Sequence[Metric]) -> Metric | None:
    """The declaration whose label heads a column named `label` ("judge: j1" → judge: <judge>)."""
    return next((m for m in metrics if _label_pattern(m).fullmatch(label)), None)


def _group(label: str) -> str:
    metric = metric_of(label, registry.SYSTEM_METRICS)
    if metric is None:
        counted = next((m for m in registry.SYSTEM_METRICS if m.n_label == label), None)
        return RATINGS if counted is None else _group(counted.label)
    if metric.reference is not None:
        return REFERENCES
    if ".win_rate" in metric.name or ".bradley_terry" in metric.name:
        return PAIRWISE
    return RATINGS


def split_columns(
    rows: Sequence[Row], *, lead: int = 1, shared: Sequence[str] = ()
) -> list[ColumnGroup]:
    """The Overview's rows as one table per kind of column (ratings, pairwise standings,
    reference-based scores), each led by the first `lead` columns and the `shared` ones; a
    kind with no column is left out, so a dataset without ratings shows no empty table."""
    if not rows:
        return []
    names = list(dict.fromkeys(name for row in rows for name in row))  # slices may differ
    leading = [*names[:lead], *(n for n in shared if n in names)]
    groups: dict[str, list[str]] = {RATINGS: [], PAIRWISE: [], REFERENCES: []}
    for name in names:
        if name not in leading:
            groups[_group(name)].append(name)
    return [
        ColumnGroup(title, [{n: row.get(n) for n in [*leading, *columns]} for row in rows])
        for title, columns in groups.items()
        if columns
    ]


def column_config(
    rows: Sequence[Row], metrics: Sequence[Metric] = (), *, estimate_px: int = ESTIMATE_PX
) -> dict[str, Any]:
    """Widths for every column, the first pinned, and each metric's description as the
    tooltip of its header."""
    if not rows:
        return {}
    config: dict[str, Any] = {}
    for index, (name, value) in enumerate(rows[0].items()):
        metric = metric_of(name, metrics)
        counted = next((m for m in metrics if m.n_label == name), None)
        help_text = metric.description if metric else None
        if counted is not None:
            help_text = f"How many values the {counted.label} column averages."
        if index == 0:
            config[name] = st.column_config.Column(width=NAME_PX, pinned=True, help=help_text)
        elif isinstance(value, int) or (metric is not None and metric.style == COUNT):
            config[name] = st.column_config.NumberColumn(width=COUNT_PX, help=help_text)
        else:
            config[name] = st.column_config.Column(width=estimate_px, help=help_text)
    return config


def fitted_table(
    rows: Sequence[Row], metrics: Sequence[Metric] = (), *, estimate_px: int = ESTIMATE_PX
) -> None:
    """A read-only table of display rows with `column_config`'s widths and tooltips."""
    st.dataframe(
        list(rows),
        hide_index=True,
        width="stretch",
        column_config=column_config(rows, metrics, estimate_px=estimate_px),
    )


# Streamlit's wide layout keeps 5rem on each side of the page; 2rem leaves the tables room.
PAGE_CSS = (
    '<style>[data-testid="stMainBlockContainer"]{padding-left:2rem;padding-right:2rem}</style>'
)


def page_style() -> None:
    """Once per run (app.py): the page's margins."""
    st.html(PAGE_CSS)
