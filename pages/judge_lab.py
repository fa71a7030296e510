"""Judge lab: close the loop from a disagreement to a better judge, on labels it never saw.
The split of people's labels, each version on the test split, the dev disagreements worst
first, an editor with the diff, a run on the labelled answers, a paired comparison with the
version in force, and adoption (docs/judge-qa.md)."""

import streamlit as st

from dashboard import ui
from dashboard.ui import disagreements, judge_lab, judge_propose, links
from dashboard.ui.links import Link
from dashboard.workbench import lab

# Calibration's confusion cells link here with the judge, rubric and dataset chosen.
LINKS = (
    Link("jb_lab_rubric", links.RUBRIC_PARAM),
    Link("jb_lab_judge", disagreements.JUDGE_PARAM),
)

st.title("Judge lab")
links.restore(LINKS)
filters = ui.filters()
if not ui.may_administer(
    "use the judge lab (its runs are paid judge calls, its looks spend the test split, "
    "and it shows each person's labels)"
):
    st.stop()
if not ui.dataset_names():
    st.info("The database is empty. Import a file on the **Data** page.")
    st.stop()
if filters.dataset is None:
    st.info("Pick a dataset in the sidebar: the split of people's labels is per dataset.")
    st.stop()
rating_rubrics = [r.name for r in ui.rubrics() if not r.is_pairwise]
if rating_rubrics and st.session_state.get("jb_lab_rubric") not in rating_rubrics:
    first = "likert-rag" if "likert-rag" in rating_rubrics else rating_rubrics[0]
    st.session_state["jb_lab_rubric"] = first
rubric = st.selectbox("Rubric", rating_rubrics, key="jb_lab_rubric")
state = ui.cached(lab.state, rubric=rubric, dataset=filters.dataset)
judge_lab.header(state)
if not state.judges:
    st.info("No judge rated the answers people labelled yet: run one below.")
    judge_lab.runner(state)
    st.stop()
if st.session_state.get("jb_lab_judge") not in state.judges:
    st.session_state.pop("jb_lab_judge", None)
judge = st.selectbox("Judge", state.judges, key="jb_lab_judge")
links.publish(LINKS)
by = filters.annotator or "anonymous"
judge_lab.looks(state, judge)
judge_lab.card(state, judge)
in_force = state.in_force(judge)
names = [v.version for v in state.versions]
version = st.selectbox(
    "Version for the disagreements",
    names,
    index=names.index(in_force) if in_force in names else 0,
    format_func=judge_lab.version_label(state, judge),
    key="jb_lab_version",
)
judge_lab.test_scores(state, judge, by)
judge_lab.disagreements(state, judge, version)
judge_lab.editor(state, by)
judge_lab.runner(state)
judge_propose.proposer(state, judge, version, by)
judge_propose.shot_search(state, judge, version)
judge_lab.comparer(state, judge, by)
judge_lab.adopter(state, judge, by)
