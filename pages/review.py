"""Review: a campaign's answers whose people disagree beyond its threshold, adjudicated by a
reviewer (or an admin)."""

from __future__ import annotations

import streamlit as st

from dashboard import ui
from dashboard.campaigns import adjudication, campaigns
from dashboard.ui import review

st.title("Review")
st.caption(
    "The answers of a campaign whose labels differ by more than the campaign's threshold "
    "(highest minus lowest label; 0: any disagreement). See each person's label and comment, "
    "then set the adjudicated label; people's own labels are kept as they are."
)
chosen = ui.filters()
if not ui.may_review("adjudicate"):
    st.stop()
found = ui.cached(campaigns.list_campaigns)
if not found:
    st.info("No campaign yet: an admin creates one on the Campaigns page.")
    st.stop()
name = st.selectbox("Campaign", [c.name for c in found], key="review_campaign")
if name is None:
    st.stop()
queue = ui.cached(adjudication.review_queue, name, actor=ui.actor())
st.text(
    f"{len(queue.items)} answers differ by more than {queue.review_spread:g}; "
    f"{queue.n_open} to adjudicate."
)
if not chosen.annotator:
    st.warning("Type your name in the sidebar: an adjudication is saved with it.")
for item in queue.items:
    state = "adjudicated" if item.adjudication else "to adjudicate"
    with st.expander(
        f"{item.response_id[:12]} · labels {item.spread:g} apart · {state}",
        expanded=item.adjudication is None and item is queue.items[0],
    ):
        review.show_item(name, item, chosen.annotator)
