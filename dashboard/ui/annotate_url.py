"""The Annotate page's place in the URL: its filters and the open answer (`st.query_params`).

A reload, or a link sent to someone, opens the same rubric, order, seed, campaign, blind
setting, dataset and answer. The filters are read from the URL whenever their widget has no
value in this session yet; the answer only on the session's first run of the page.
"""

from __future__ import annotations

import streamlit as st

from dashboard import ui
from dashboard.ui import labelling

# URL parameter -> the widget's session key.
PARAMS: dict[str, str] = {
    "rubric": "annotate_rubric",
    "order": "annotate_order",
    "seed": "annotate_seed",
    "campaign": "annotate_campaign",
    "blind": "annotate_blind",
}
ITEM = "item"
_ITEM_READ = "annotate_url_item_read"


def _parse(param: str, text: str) -> object:
    if param == "seed":
        return int(text) if text.isdigit() else 0
    if param == "blind":
        return text != "0"
    return text


def restore() -> None:
    """Before the page's widgets are drawn: take the URL's values they do not have yet."""
    params = st.query_params
    for param, key in PARAMS.items():
        if key not in st.session_state and param in params:
            st.session_state[key] = _parse(param, params[param])
    if not st.session_state.get(_ITEM_READ):
        st.session_state[_ITEM_READ] = True
        if item := params.get(ITEM):
            labelling.open_by_hand(item, "Opened from the link")


def save(item: labelling.OpenItem | None) -> None:
    """After the page is drawn: write its filters and open answer into the URL."""
    values: dict[str, str | None] = {}
    for param, key in PARAMS.items():
        value = st.session_state.get(key)
        if isinstance(value, bool):
            values[param] = "1" if value else "0"
        else:
            values[param] = None if value is None else str(value)
    values["dataset"] = ui.filters().dataset
    values[ITEM] = item.response_id if item else None
    for param, value in values.items():
        if value is None:
            if param in st.query_params:
                del st.query_params[param]
        elif st.query_params.get(param) != value:
            st.query_params[param] = value
