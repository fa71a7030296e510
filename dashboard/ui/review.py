"""The Review page's parts: a campaign's review queue, each answer with its people's labels
and comments, and the form that sets the adjudicated label (`campaigns/adjudication.py`)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import ui
from dashboard.campaigns import adjudication
from dashboard.campaigns.adjudication import ReviewItem
from dashboard.campaigns.campaigns import CampaignError
from dashboard.review.detail import response_detail
from dashboard.ui import widgets


def _labels(item: ReviewItem) -> None:
    st.dataframe(
        pd.DataFrame(
            [{"person": x.rater, "label": x.value, "comment": x.comment or ""} for x in item.labels]
        ),
        hide_index=True,
    )
    if item.adjudication is not None:
        done = item.adjudication
        why = f": {done.reason}" if done.reason else ""
        st.text(
            f"Adjudicated {done.value:g} by {done.reviewer} on "
            f"{done.created_utc:%Y-%m-%d %H:%M} UTC{why}"
        )


def _form(campaign: str, item: ReviewItem, reviewer: str) -> None:
    low, high = item.scale
    points = [float(p) for p in range(int(low), int(high) + 1)]
    current = item.adjudication.value if item.adjudication else None
    with st.form(f"adjudicate_{item.response_id}"):
        value = st.radio(
            "Adjudicated label",
            points,
            index=points.index(current) if current in points else None,
            format_func=lambda p: f"{p:g}",
            horizontal=True,
            key=f"adjudicate_value_{item.response_id}",
        )
        reason = st.text_input("Why (optional)", key=f"adjudicate_reason_{item.response_id}")
        if not st.form_submit_button("Save the adjudicated label", type="primary"):
            return
    if value is None:
        st.error("Pick a label first.")
        return
    try:
        ui.write(
            adjudication.adjudicate,
            campaign,
            item.response_id,
            float(value),
            reviewer=reviewer,
            reason=reason,
            actor=ui.actor(),
        )
    except CampaignError as error:
        st.error(ui.md_escape(error))
        return
    st.success(f"Saved the adjudicated label {value:g}.")


def show_item(campaign: str, item: ReviewItem, reviewer: str) -> None:
    """One answer of the queue: the question and answer, each label and comment, the form."""
    detail = ui.cached(response_detail, item.response_id)
    if detail is not None:
        widgets.show_detail(detail, ratings=False)
    _labels(item)
    _form(campaign, item, reviewer)
