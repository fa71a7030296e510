"""The "Add or fix the reference" box under an answer (Annotate, Failures): a person's
corrected references of the item, kept with provenance (`dashboard/review/gold.py`)."""

from __future__ import annotations

import streamlit as st

from dashboard import ui
from dashboard.review import gold
from dashboard.review.detail import ResponseDetail

BOX = "Add or fix the reference"


def _history(detail: ResponseDetail) -> None:
    item = detail.item
    edits = ui.cached(gold.reference_history, item.item_id, item.dataset)
    for edit in reversed(edits):
        why = f": {edit.reason}" if edit.reason else ""
        st.text(f"Corrected by {edit.author} on {edit.created_utc:%Y-%m-%d %H:%M} UTC{why}")
    if edits:
        first = edits[0].previous
        st.caption("Imported reference: " + (" | ".join(first) if first else "none"))


def reference_box(detail: ResponseDetail, *, author: str, campaign: str | None = None) -> None:
    """The box: the item's current references in a text area (several separated by a line
    of ---), a reason, and Save; the item's corrections listed above it."""
    item = detail.item
    with st.expander(BOX, expanded=False):
        _history(detail)
        with st.form(f"gold_{item.dataset}_{item.item_id}"):
            text = st.text_area(
                "Reference answers (the whole list; separate several with a line of ---)",
                value=gold.references_text(item.reference_answers),
                key="gold_text",
            )
            reason = st.text_input("Why (optional)", key="gold_reason")
            if not st.form_submit_button("Save the reference"):
                return
    try:
        ui.write(
            gold.correct_reference,
            item.item_id,
            item.dataset,
            gold.parse_references(text or ""),
            author=author,
            reason=reason,
            response_id=detail.response.response_id,
            campaign=campaign,
            actor=ui.actor(),
        )
    except gold.GoldError as error:
        st.error(ui.md_escape(error))
        return
    st.success("Saved the corrected reference; EM and F1 now use it.")
