"""Streamlit pickers and tables that several pages share: the rubric, the systems, the item
field to group by, and whose standings to show."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from dashboard import ui
from dashboard.metrics import choices, panels
from dashboard.metrics.overview import Pairwise, Standings
from dashboard.metrics.selection import Selection

# The rubric picked on one page is the default on the others (the widget's own state is
# dropped by Streamlit when the page that drew it is left).
RUBRIC_KEY = "jb_rubric"


def rubric_selector(dataset: str | None, *, page: str) -> choices.RatedRubric | None:
    """Pick one of the rubrics rated on the dataset; the default is the most used one
    (`choices.default_rubric`). None when nothing is rated."""
    rubrics = ui.cached(choices.rated_rubrics, dataset=dataset)
    if not rubrics:
        return None
    by_name = {r.name: r for r in rubrics}
    key = f"{RUBRIC_KEY}_{page}"
    if st.session_state.get(key) not in by_name:
        remembered = st.session_state.get(RUBRIC_KEY)
        st.session_state[key] = remembered if remembered in by_name else rubrics[0].name
    name = st.selectbox("Rubric", list(by_name), key=key, format_func=lambda n: by_name[n].label)
    st.session_state[RUBRIC_KEY] = name
    return by_name[name]


def systems_selector(dataset: str | None, *, key: str) -> tuple[str, ...] | None:
    """A subset of the dataset's systems; None (every system) when none is picked."""
    options = ui.dataset_systems(dataset)
    st.session_state[key] = [s for s in st.session_state.get(key, []) if s in options]
    chosen = st.multiselect("Systems", options, key=key, placeholder="every system")
    return tuple(chosen) if chosen else None


def table(rows: Sequence[dict[str, Any]], **options: Any) -> None:
    """A read-only table of display rows, as wide as the page."""
    st.dataframe(list(rows), hide_index=True, width="stretch", **options)


# The metric pages' rubric choice: None is the default (the most used rubric's ratings, every
# rubric's pairwise verdicts); a rubric's name counts that rubric's ratings and verdicts alone.
METRIC_RUBRIC_KEY = "jb_metric_rubric"


def metric_rubric_selector(dataset: str | None, *, page: str) -> str | None:
    """Pick the rubric of a metric page (Overview, Calibration): the default, or one rubric
    with ratings or pairwise verdicts on the dataset. None is the default."""
    found = ui.cached(choices.rubric_choices, dataset=dataset)
    by_name = {r.name: r for r in found}
    options: list[str | None] = [None, *by_name]
    key = f"{METRIC_RUBRIC_KEY}_{page}"
    if st.session_state.get(key) not in options:
        remembered = st.session_state.get(METRIC_RUBRIC_KEY)
        st.session_state[key] = remembered if remembered in options else None
    rated = next((r.name for r in found if r.n_ratings), None)

    def label(name: str | None) -> str:
        if name is None:
            return f"default: {rated or 'no'} ratings, every rubric's pairwise verdicts"
        return by_name[name].label

    name = st.selectbox(
        "Rubric",
        options,
        key=key,
        format_func=label,
        help="A rubric counts its own ratings and pairwise verdicts only. The default counts "
        "the ratings of the rubric with the most ratings and the verdicts of every rubric.",
    )
    st.session_state[METRIC_RUBRIC_KEY] = name
    return name


def verdict_rubric_selector(dataset: str | None, *, key: str) -> str | None:
    """Pick the rubric whose pairwise verdicts count: every rubric's (None) or one."""
    judged = [r.name for r in ui.cached(choices.rubric_choices, dataset=dataset) if r.n_verdicts]
    options: list[str | None] = [None, *judged]
    if st.session_state.get(key) not in options:
        st.session_state[key] = None
    return st.selectbox(
        "Verdicts under",
        options,
        key=key,
        format_func=lambda name: "every rubric" if name is None else name,
    )


def group_by_selector(dataset: str | None, *, key: str) -> str | None:
    """Pick an item field to split the numbers by (None: no split): the item columns and
    the metadata keys present on the dataset's items."""
    fields = ui.cached(choices.slice_fields, Selection(dataset))
    options: list[str | None] = [None, *fields]
    if st.session_state.get(key) not in options:
        st.session_state[key] = None
    return st.selectbox(
        "Group by",
        options,
        key=key,
        format_func=lambda f: "nothing (every item)" if f is None else f,
        help="Split every number by an item field: the dataset, the task type, or a key of "
        "the items' metadata (category, turn, ...). A table per slice, in one table with "
        "the slice in its first column.",
    )


def pool_checkbox(*, key: str) -> bool:
    return st.checkbox(
        "Pool people and judges",
        key=key,
        help="Also show win rates and Bradley–Terry ratings over everyone's verdicts "
        "together. By default they are per rater kind (judges, people) and per judge.",
    )


def raters_selector(pairwise: Pairwise, *, key: str) -> Standings | None:
    """Pick whose standings to show: the judges, people, one judge, or the pool."""
    groups = {g.raters: g for g in pairwise.groups}
    if not groups:
        return None
    if st.session_state.get(key) not in groups:
        st.session_state[key] = next(iter(groups))
    chosen = st.selectbox(
        "Verdicts of", list(groups), key=key, format_func=lambda r: groups[r].label
    )
    return groups[chosen]


# The panel picked on one page is the default on the others, as the rubric is.
PANEL_KEY = "jb_panel"


def panel_selector(
    dataset: str | None,
    rubric: str | None,
    *,
    page: str,
    systems: tuple[str, ...] | None = None,
) -> str | None:
    """Pick the panel of a metric page: the default (`metrics.panels`), a panel file, or
    every judge. None is the default."""
    found = ui.cached(panels.panel_choices, Selection(dataset, rubric))
    by_name = {p.name: p for p in found}
    options: list[str | None] = [None, *by_name]
    key = f"{PANEL_KEY}_{page}"
    if st.session_state.get(key) not in options:
        remembered = st.session_state.get(PANEL_KEY)
        st.session_state[key] = remembered if remembered in options else None
    # The default named as the numbers below resolve it (`panels.with_panel`), so that the box
    # and the caption under the table never disagree.
    default = ui.cached(panels.with_panel, Selection(dataset, rubric, systems)).panel

    def label(name: str | None) -> str:
        return f"default: {default}" if name is None else by_name[name].label

    name = st.selectbox(
        "Panel",
        options,
        key=key,
        format_func=label,
        help="The judges whose ratings make the panel's numbers (the panel score, the "
        "calibration's panel row, the corrected estimates). Other judges keep their own "
        "columns. The default is the panel file whose judges gave the most ratings here.",
    )
    st.session_state[PANEL_KEY] = name
    return name
