"""Calibration's drill-down: from a cell of a confusion table (or every judge-versus-person
disagreement) to the list the Judge lab shows of its disagreements (`ui/disagreements.py`),
and a link to the Judge lab on that judge. The page calls `drilldown_section`."""

from __future__ import annotations

import streamlit as st

from dashboard import ui
from dashboard.metrics import calibration
from dashboard.metrics.calibration import Calibration
from dashboard.metrics.selection import Selection
from dashboard.ui import disagreements
from dashboard.workbench import lab

KEY = "jb_cal_cell"
DISAGREE = "every disagreement"


def drilldown_section(result: Calibration, selection: Selection) -> None:
    """Pick a judge and a cell (judge's rating, person's rating), or every disagreement, and
    list the compared pairs behind it."""
    if not result.judges:
        return
    st.markdown("**Behind a cell of the confusion table**")
    if not ui.may_administer("see which person gave which label"):
        return
    judges = [j.judge for j in result.judges]
    left, middle, right = st.columns(3)
    judge = left.selectbox("Judge", judges, key=f"{KEY}_judge")
    labels = next(j.confusion.labels for j in result.judges if j.judge == judge)
    options = [DISAGREE, *(f"{a:g}" for a in labels)]
    judge_value = middle.selectbox("Judge's rating", options, key=f"{KEY}_judge_value")
    person_value = right.selectbox(
        "Person's rating",
        [f"{a:g}" for a in labels],
        key=f"{KEY}_person_value",
        disabled=judge_value == DISAGREE,
    )
    if judge_value == DISAGREE:
        pairs = ui.cached(calibration.disagreements, selection, judge, actor=ui.actor())
        st.caption(f"{len(pairs):,} pairs where {ui.md_escape(judge)} and a person disagree.")
    else:
        pairs = ui.cached(
            calibration.cell_pairs,
            selection,
            judge,
            judge_value=float(judge_value),
            person_value=float(person_value),
            actor=ui.actor(),
        )
        st.caption(
            f"{len(pairs):,} pairs in the cell: {ui.md_escape(judge)} said {judge_value}, "
            f"the person {person_value}."
        )
    rubric = selection.rubric or result.selection.rubric
    if rubric is None:
        return
    lab_url = disagreements.judge_lab_url(
        judge=None if judge == calibration.PANEL else judge,
        rubric=rubric,
        dataset=selection.dataset,
    )
    st.markdown(f"[Work on this judge in the Judge lab]({lab_url})")
    if pairs:
        found = ui.cached(
            lab.cell_disagreements,
            rubric=rubric,
            judge=judge,
            pairs=tuple((p.response_id, p.person, p.judge_value, p.person_value) for p in pairs),
            actor=ui.actor(),
        )
        disagreements.table(found, rubric=rubric, dataset=selection.dataset, key=f"{KEY}_table")
