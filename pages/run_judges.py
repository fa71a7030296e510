"""Run judges: choose a panel and a rubric, see the plan and its cost, run it, see failures."""

import time

import streamlit as st

from dashboard import runs, selections, ui
from dashboard.judging import (
    PanelError, PlanError, RubricError, RunProgress, load_panel, load_rubric, run_plan,
)
from dashboard.ui import panels

PLAN_KEY, RUN_KEY, SUMMARY_KEY = "jb_run_plan", "jb_run_future", "jb_run_summary"
POLL_S = 0.2

st.title("Run judges")
dataset = ui.filters().dataset
st.caption(f"Dataset: **{dataset or 'every dataset'}** (change it in the sidebar).")

files = {path.stem: str(path) for path in runs.panel_files()}
source = st.radio("Panel", ["A panel file", "Model strings"], horizontal=True,
                  key="jb_run_source")
if source == "A panel file":
    names = list(files)
    spec = files[st.selectbox("Panel file (data/panels/)", names, key="jb_run_panel",
                              index=names.index("offline") if "offline" in names else 0)]
else:
    spec = st.text_input("LiteLLM model strings, comma-separated",
                         placeholder="openai/gpt-4o-mini, judgeboard/baseline",
                         key="jb_run_models")
try:
    panel = load_panel(spec) if spec.strip() else None
except PanelError as error:
    st.error(str(error))
    st.stop()
if panel is None:
    st.info("Type one or more model strings; `judgeboard/baseline` is the offline judge.")
    st.stop()
panels.table(runs.judge_rows(panel))

rubric = load_rubric(st.selectbox("Rubric", runs.rubric_names(), key="jb_run_rubric"))
st.caption(rubric.description)
pairwise = None
if rubric.is_pairwise:
    options = ui.cached(selections.dataset_systems, dataset=dataset)
    if len(options) < 2:
        st.info("A pairwise rubric compares two systems; this dataset has fewer than two.")
        st.stop()
    left, right = st.columns(2)
    pairwise = (left.selectbox("System A", options, index=0, key="jb_run_system_a"),
                right.selectbox("System B", options, index=1, key="jb_run_system_b"))
    systems = None
else:
    systems = panels.systems_selector(dataset, key="jb_run_systems")
request = runs.RunRequest(spec, rubric.name, dataset, systems, pairwise)

n_targets = ui.cached(runs.count_targets, request)
too_big = n_targets > runs.PLAN_LIMIT
if too_big:
    st.warning(f"This selection has {n_targets:,} {'pairs' if pairwise else 'responses'} to "
               f"judge; the dashboard plans at most {runs.PLAN_LIMIT:,} at a time. Narrow it "
               "with the dataset or the systems, or run `judgeboard judge` in a shell.")
if st.button("Plan", key="jb_run_plan_button", disabled=too_big):
    try:
        st.session_state[PLAN_KEY] = (request, runs.make_plan(ui.get_store(), request))
    except (PanelError, PlanError, RubricError) as error:
        st.error(str(error))
stored = st.session_state.get(PLAN_KEY)
plan = stored[1] if stored and stored[0] == request else None
if plan is not None:
    st.subheader("Plan")
    kind = "judgements" if rubric.is_pairwise else "responses"
    st.caption(f"{plan.n_targets:,} {kind}. A cached call is never paid for again; the cost "
               "is a bound (completions priced at max_tokens), or unknown when LiteLLM has "
               "no price for the model.")
    panels.table(runs.plan_rows(plan))
    if not runs.has_work(plan):
        st.success("Everything is cached: nothing to call.")
    elif st.button(f"Run ({plan.calls_needed:,} calls)", type="primary", key="jb_run_button"):
        progress = RunProgress()
        future = panels.background_loop().submit(
            run_plan(ui.get_store(), plan, on_progress=progress))
        st.session_state[RUN_KEY] = (future, progress, panel)
        st.session_state.pop(PLAN_KEY, None)
        st.session_state.pop(SUMMARY_KEY, None)

running = st.session_state.get(RUN_KEY)
if running is not None:
    future, progress, run_panel = running
    bar = st.progress(0.0, text="starting…")
    while not future.done():  # a click elsewhere stops this run of the script, not the judges
        done, total = progress.counts
        bar.progress(progress.fraction, text=f"{done:,} of {total:,} calls")
        time.sleep(POLL_S)
    bar.empty()
    del st.session_state[RUN_KEY]
    ui.after_write()
    try:
        st.session_state[SUMMARY_KEY] = (future.result(), run_panel)
    except Exception as error:  # noqa: BLE001 (shown to the user, with keys removed)
        st.error(f"The run stopped: {runs.redact(str(error), run_panel)}")

finished = st.session_state.get(SUMMARY_KEY)
if finished is not None:
    summary, run_panel = finished
    st.subheader("Last run")
    st.caption(f"Run {summary.run_id[:12]}, rubric {summary.rubric} v{summary.rubric_version}, "
               f"{summary.wall_s:.1f} s.")
    panels.table(runs.summary_rows(summary))
    for title, message in runs.failures(summary, run_panel):
        st.error(title)
        ui.show_text(message, label="last error")
    if summary.pending_writes:
        st.warning("The database was busy: results wait in the spool and are applied the next "
                   "time it is opened.")
