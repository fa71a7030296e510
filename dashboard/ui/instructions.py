"""A campaign's instructions on the labelling page: its admin's Markdown beside every answer
(open on the first answer of the campaign in a session, folded after), and what each rating
point means in it under the scale.

The instructions are the one text of a person that renders as Markdown, on purpose: an admin
writes them to format them. Raw HTML in them is never rendered (`st.markdown` without
`unsafe_allow_html` shows it as text).
"""

from __future__ import annotations

import streamlit as st

from dashboard import ui
from dashboard.campaigns import campaigns
from dashboard.judging import Rubric
from dashboard.review import annotation

_SEEN = "jb_instructions_seen"


def show(name: str | None) -> None:
    """The campaign's instructions, if it has any (nothing without a campaign)."""
    found = ui.cached(campaigns.find_campaign, name) if name else None
    if found is None or not found.instructions:
        return
    seen: set[str] = st.session_state.setdefault(_SEEN, set())
    first = name not in seen
    seen.add(found.name)
    with st.expander("Instructions for this campaign", expanded=first):
        st.markdown(found.instructions)


def legend(rubric: Rubric, name: str | None) -> str:
    """The scale's legend, with what each point means in the campaign after the rubric's."""
    found = ui.cached(campaigns.find_campaign, name) if name else None
    notes = campaigns.point_notes(found) if found is not None else {}
    return annotation.scale_legend(rubric, notes=notes)
