"""The standings that the Overview and the Pairwise page both show: whose verdicts, where the
win rate and Bradley–Terry disagree, the two charts and the table."""

from __future__ import annotations

import streamlit as st

from dashboard import charts, ui
from dashboard.metrics import tables
from dashboard.metrics.overview import Pairwise
from dashboard.ui import pickers


def show_standings(found: Pairwise, *, key: str) -> None:
    """Every rank disagreement (naming the two systems, and why), a picker of whose
    verdicts, then that group's Bradley–Terry ratings, win rates and standings table."""
    for disagreement in found.disagreements:
        st.warning(ui.md_escape(disagreement.text))
    group = pickers.raters_selector(found, key=key)
    if group is None:
        return
    left, right = st.columns(2)
    with left:
        st.plotly_chart(
            charts.bradley_terry_ratings(group.bradley_terry, raters=group.label),
            width="stretch",
        )
        pickers.table(tables.standings_rows(group))
    with right:
        st.plotly_chart(
            charts.win_rate_matrix(group.head_to_head, raters=group.label), width="stretch"
        )
    if group.note:
        st.caption(ui.md_escape(group.note))
