"""Judge QA: each judge's biases, its rubric versions against people, its self-consistency
when asked several times, probes by perturbation, and drift on anchor items."""

import streamlit as st

from dashboard import ui
from dashboard.metrics.selection import Selection
from dashboard.ui import judge_qa, pickers, rubric_versions

st.title("Judge QA")
dataset = ui.filters().dataset
if not ui.dataset_names():
    st.info("The database is empty. Import a file on the **Data** page.")
    st.stop()
rubric = pickers.metric_rubric_selector(dataset, page="judge_qa")
found = judge_qa.bias_section(Selection(dataset, rubric))
rubric_versions.versions_section(found.selection)
judge_qa.consistency_section(found.selection)
judge_qa.probe_section(dataset, found.selection.rubric)
judge_qa.drift_section(dataset, found.selection.rubric)
