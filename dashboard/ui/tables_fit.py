"""Tables that fit a 1400-pixel window: column widths, a pinned first column, short headers
with the metric's description as their tooltip, the Overview's scores split by kind, and
any table still wider than the page split into tables one under the other (`fitted_tables`).

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
from dashboard.metrics.tables import EMPTY

Row = dict[str, Any]
COUNT_PX, ESTIMATE_PX, WIDE_ESTIMATE_PX, NAME_PX = 58, 128, 134, 110
# A text column: about CHAR_PX a character and PAD_PX of padding, at most TEXT_PX.
CHAR_PX, PAD_PX, TEXT_PX = 6.5, 16, 190
# The widest a table's columns may be: a grid's width at a 1400-px window with the sidebar
# open (measured in Chromium: 1034 px; the Failures list's 990 px leaves its row boxes room).
TABLE_PX = 1034

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


def _counted(name: str, metrics: Sequence[Metric]) -> Metric | None:
    """The metric whose n a column named `name` holds: its declared `n_label`, or the
    "n (<label>)" of the Judge QA tables."""
    declared = next((m for m in metrics if m.n_label == name), None)
    if declared is None and name.startswith("n (") and name.endswith(")"):
        return metric_of(name[3:-1], metrics)
    return declared


def _is_count(name: str, rows: Sequence[Row], metric: Metric | None) -> bool:
    """Every value of the column is a whole number (or missing): a count, however named."""
    if metric is not None and metric.style == COUNT:
        return True
    values = [row.get(name) for row in rows if row.get(name) not in (None, EMPTY)]
    return bool(values) and all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def _text_px(name: str, rows: Sequence[Row]) -> int:
    """A text column as wide as its longest value or header, at most TEXT_PX: a long text is
    cut there (a question or an answer is read in full in its detail)."""
    longest = max(len(str(text)) for text in [name, *(row.get(name) for row in rows)])
    return max(COUNT_PX, min(TEXT_PX, PAD_PX + round(longest * CHAR_PX)))


def column_config(
    rows: Sequence[Row], metrics: Sequence[Metric] = (), *, estimate_px: int = ESTIMATE_PX
) -> dict[str, Any]:
    """Widths for every column, the first pinned, and each metric's description as the
    tooltip of its header (a count's: what it counts)."""
    if not rows:
        return {}
    config: dict[str, Any] = {}
    for index, name in enumerate(rows[0]):
        metric = metric_of(name, metrics)
        counted = _counted(name, metrics)
        help_text = metric.description if metric else None
        if counted is not None:
            help_text = f"The n of the {counted.label} column: how many values it is computed from."
        if index == 0:
            config[name] = st.column_config.Column(width=NAME_PX, pinned=True, help=help_text)
        elif counted is not None or _is_count(name, rows, metric):
            config[name] = st.column_config.NumberColumn(width=COUNT_PX, help=help_text)
        elif metric is None:
            config[name] = st.column_config.TextColumn(width=_text_px(name, rows))
        else:
            config[name] = st.column_config.Column(width=estimate_px, help=help_text)
    return config


def split_to_fit(
    rows: Sequence[Row],
    metrics: Sequence[Metric] = (),
    *,
    lead: int = 1,
    estimate_px: int = ESTIMATE_PX,
    width_px: int = TABLE_PX,
) -> list[list[Row]]:
    """The rows as few tables as fit `width_px` each: every one led by the first `lead`
    columns, the others in their order, a metric's n column kept beside it."""
    if not rows:
        return []
    config = column_config(rows, metrics, estimate_px=estimate_px)
    names = list(config)
    leading = names[:lead]
    units: list[list[str]] = []
    for name in names[lead:]:
        counted = _counted(name, metrics)
        if units and counted is not None and counted.label == units[-1][-1]:
            units[-1].append(name)  # its metric's n: never on a table of its own
        else:
            units.append([name])
    lead_px = sum(config[n]["width"] for n in leading)
    parts: list[list[str]] = []
    for unit in units:
        unit_px = sum(config[n]["width"] for n in unit)
        if parts and lead_px + sum(config[n]["width"] for n in parts[-1]) + unit_px <= width_px:
            parts[-1].extend(unit)
        else:
            parts.append(list(unit))
    return [[{n: row.get(n) for n in [*leading, *part]} for row in rows] for part in parts]


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


def fitted_tables(
    rows: Sequence[Row],
    metrics: Sequence[Metric] = (),
    *,
    lead: int = 1,
    estimate_px: int = ESTIMATE_PX,
) -> None:
    """`fitted_table`, as several tables one under the other when the columns are wider than
    the page (`split_to_fit`)."""
    for part in split_to_fit(rows, metrics, lead=lead, estimate_px=estimate_px):
        fitted_table(part, metrics, estimate_px=estimate_px)


# Streamlit's wide layout keeps 5rem on each side of the page; 2rem leaves the tables room.
PAGE_CSS = (
    '<style>[data-testid="stMainBlockContainer"]{padding-left:2rem;padding-right:2rem}</style>'
)


def page_style() -> None:
    """Once per run (app.py): the page's margins."""
    st.html(PAGE_CSS)
