"""The Pairwise page's open pair in the URL (`pair=LEFT,RIGHT`: its two answers' ids as shown).

A reload, or a link sent to someone, opens the same pair on the same sides, whatever is left
in the person's queue. The URL is read on the session's first run of the page only; an older
link's number (a place in the queue, `pair=1`) still opens that place.
"""

from __future__ import annotations

import streamlit as st

from dashboard import ui
from dashboard.review import pair_edits
from dashboard.ui import pair_labelling
from dashboard.ui.pair_labelling import POSITION_KEY, OpenPair

PARAM = "pair"
_READ = "pairwise_url_pair_read"


def restore(*, system_a: str | None) -> None:
    """Before the pair is drawn: open the URL's pair (a number: that place in the queue)."""
    if st.session_state.get(_READ):
        return
    st.session_state[_READ] = True
    text = st.query_params.get(PARAM, "")
    if text.isdigit():
        st.session_state[POSITION_KEY] = int(text)
        return
    left, _, right = text.partition(",")
    if not left or not right:
        return
    view = ui.call(pair_edits.linked_pair, left, right, system_a=system_a or "")
    if view is None:
        st.warning("The link's pair is no longer in the database; the next pair is below.")
        return
    pair_labelling.open_pair(view, "Opened from the link")


def save(current: OpenPair | None) -> None:
    """After the pair is drawn: its answers' ids, as shown, in the URL."""
    value = f"{current.view.left.response_id},{current.view.right.response_id}" if current else None
    if value is None:
        if PARAM in st.query_params:
            del st.query_params[PARAM]
    elif st.query_params.get(PARAM) != value:
        st.query_params[PARAM] = value
