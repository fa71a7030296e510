"""The Campaigns page's rule fields (a campaign kept filled by a saved filter) and its
assignment section (an admin gives answers to named people and follows their progress, and
may take an answer out of the campaign for good)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import ui
from dashboard.campaigns import assignment, rules
from dashboard.campaigns.assignment import AssignmentError
from dashboard.campaigns.campaigns import Campaign
from dashboard.campaigns.rules import CampaignFilter

FROM_RULE = "rule"  # the "Which answers" choice of a rule-filled campaign
FROM_RULE_TEXT = "Kept filled by a rule (filter below)"
_ANY = "(any)"


def rule_fields(systems: list[str]) -> CampaignFilter:
    """The filter's fields, inside the creation form (used when "Which answers" is a rule)."""
    st.caption(
        "Rule (for a campaign kept filled by a rule): matching answers join now and after "
        "every import or judge run, up to the campaign's size; answers someone skipped or an "
        "admin removed never come back. Scores are on 0 to 1."
    )
    first, second, third, fourth = st.columns(4)
    system = first.selectbox("System", [_ANY, *systems], key="campaign_rule_system")
    low = second.number_input("Judge score from", 0.0, 1.0, 0.0, 0.05, key="campaign_rule_low")
    high = third.number_input("to", 0.0, 1.0, 1.0, 0.05, key="campaign_rule_high")
    unlabelled = fourth.checkbox("Not yet labelled", key="campaign_rule_unlabelled")
    first, second, third = st.columns(3)
    disagree = first.selectbox(
        "Disagreeing",
        [None, *rules.DISAGREEMENTS],
        format_func=lambda d: "(no condition)" if d is None else rules.DISAGREEMENTS[d],
        key="campaign_rule_disagree",
    )
    threshold = second.number_input(
        "by at least", 0.0, 1.0, 0.25, 0.05, key="campaign_rule_threshold"
    )
    tag = third.text_input("Tagged (a tag's name)", key="campaign_rule_tag")
    return CampaignFilter(
        system=None if system in (None, _ANY) else str(system),
        score_low=float(low) if low > 0 else None,
        score_high=float(high) if high < 1 else None,
        disagree=disagree,
        threshold=float(threshold),
        tag=(tag or "").strip() or None,
        unlabelled=bool(unlabelled),
    )


def assign_section(found: Campaign, *, by: str | None) -> None:
    """Who has which answers, and (for an admin) the forms that assign and reassign them.
    The table is drawn above the forms but read after them: an assignment made in this run
    shows at once, as a new campaign is listed at once."""
    table = st.container()
    if ui.may_administer("assign answers"):
        _assign_form(found, by=by)
        people = ui.cached(assignment.people_progress, found.name)
        if people:
            _reassign_form(found, [p.person for p in people], by=by)
        _remove_form(found, by=by)
    progress = ui.cached(assignment.people_progress, found.name)
    if progress:
        with table:
            st.caption("Assigned: each person's answers and how many of them they labelled.")
            st.dataframe(pd.DataFrame([p.__dict__ for p in progress]), hide_index=True)


def _assign_form(found: Campaign, *, by: str | None) -> None:
    key = f"assign_{found.name}"
    with st.form(key):
        people_col, count_col = st.columns([3, 1])
        people = people_col.text_input("Assign to (names, comma-separated)", key=f"{key}_who")
        count = count_col.number_input(
            "How many each (0: share all)", min_value=0, value=0, step=1, key=f"{key}_n"
        )
        if st.form_submit_button("Assign"):
            names = [p for p in (people or "").split(",") if p.strip()]
            try:
                given = ui.write(
                    assignment.assign_answers,
                    found.name,
                    names,
                    count=int(count) or None,
                    actor=ui.actor(),
                    by=by,
                )
            except AssignmentError as error:
                st.error(ui.md_escape(error))
            else:
                st.success(
                    "Assigned: "
                    + ui.md_escape(", ".join(f"{p} {n}" for p, n in given.items()))
                    + "."
                )


def _reassign_form(found: Campaign, people: list[str], *, by: str | None) -> None:
    key = f"reassign_{found.name}"
    with st.form(key):
        from_col, to_col = st.columns(2)
        source = from_col.selectbox("Move the unlabelled answers of", people, key=f"{key}_from")
        target = to_col.text_input("to (empty: back to everyone)", key=f"{key}_to")
        if st.form_submit_button("Reassign") and source:
            try:
                moved = ui.write(
                    assignment.reassign, found.name, source, target, actor=ui.actor(), by=by
                )
            except AssignmentError as error:
                st.error(ui.md_escape(error))
            else:
                st.success(f"Moved {moved} answer(s) of {ui.md_escape(source)}.")


def _answer_text(answer: rules.CampaignAnswer) -> str:
    question = " ".join(answer.question.split())
    if len(question) > 70:
        question = question[:69] + "…"
    return f"{question} · {answer.system} · {answer.response_id}"


def _remove_form(found: Campaign, *, by: str | None) -> None:
    """Take one of the campaign's answers out for good (its rule, if any, never adds it
    back; labels already given stay in the store)."""
    answers = {a.response_id: a for a in ui.cached(rules.list_answers, found.name)}
    if not answers:
        return
    key = f"remove_{found.name}"
    with st.form(key):
        chosen = st.selectbox(
            "Remove an answer from the campaign for good",
            list(answers),
            format_func=lambda r: _answer_text(answers[r]),
            key=f"{key}_answer",
        )
        if st.form_submit_button("Remove") and chosen:
            dropped = ui.write(
                rules.remove_answer, found.name, chosen, actor=ui.actor(), by=by or ""
            )
            if dropped:
                st.success(
                    f"Removed {ui.md_escape(_answer_text(answers[chosen]))}: it does not come back."
                )
