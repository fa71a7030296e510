"""Streamlit pickers and tables that several pages share: the rubric and the systems."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from dashboard import ui
from dashboard.metrics import choices

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
