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
from dashboard.campaigns import campaigns, tags as tags_api
from dashboard.judging import Rubric
from dashboard.review import annotation

_SEEN = "jb_instructions_seen"
_SAVED = "jb_instructions_saved"


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


def tags(name: str | None) -> list[campaigns.CampaignTag]:
    """The tags people may tick on an answer of the campaign (none without one)."""
    found = ui.cached(campaigns.find_campaign, name) if name else None
    return campaigns.tags_of(found) if found is not None else []


def ticked(
    response_id: str, person: str, campaign: str | None, *, labelled: bool
) -> frozenset[str]:
    """The tags the person ticked on the answer when they labelled it (none before)."""
    if not labelled or not campaign:
        return frozenset()
    return ui.cached(tags_api.ticked_by, response_id, person, campaign)


def legend(rubric: Rubric, name: str | None) -> str:
    """The scale's legend, with what each point means in the campaign after the rubric's."""
    found = ui.cached(campaigns.find_campaign, name) if name else None
    notes = campaigns.point_notes(found) if found is not None else {}
    return annotation.scale_legend(rubric, notes=notes)


def edit_form(found: campaigns.Campaign, rubric: Rubric) -> None:
    """An admin's form to change a campaign's instructions and point notes (no one else sees
    it: a labeller is not offered it)."""
    user = ui.actor()
    if user is not None and not user.is_admin:
        return
    if st.session_state.get(_SAVED) == found.name:
        st.session_state.pop(_SAVED)
        st.success("Saved the instructions; people see them with their next answer.")
    notes = "\n".join(f"{p}: {n}" for p, n in campaigns.point_notes(found).items())
    with st.form(f"campaign_edit_{found.name}"):
        guide = st.text_area(
            "Instructions (Markdown)", value=found.instructions or "", key=f"edit_{found.name}"
        )
        points = st.text_area(
            "What each point means here", value=notes, key=f"edit_points_{found.name}"
        )
        if not st.form_submit_button("Save the instructions"):
            return
    try:
        ui.write(
            campaigns.set_instructions,
            found.name,
            rubric,
            instructions=guide,
            point_notes=campaigns.parse_point_notes(points or ""),
            actor=user,
        )
    except campaigns.CampaignError as error:
        st.error(ui.md_escape(error))
        return
    st.session_state[_SAVED] = found.name
    st.rerun()  # the page above was drawn with the old text
