"""Run judges: choose a panel and a rubric, see the plan and its cost, run it, see failures."""

import streamlit as st

from dashboard import ui
from dashboard.judging import (
    PanelError,
    PlanError,
    RubricError,
    launcher,
    proposal as proposal_of,
    rubric_problems,
)
from dashboard.ui import judge_form, judge_qa, links, pickers, runs
from dashboard.ui.links import Link

FILE_CHOICE, MODELS_CHOICE = "A panel file", "Model strings"
LINKS = (
    Link("jb_run_source", "source", default=FILE_CHOICE),
    Link("jb_run_panel", "panel"),
    Link("jb_run_models", "models"),
    Link("jb_run_rubric", "rubric"),
    Link("jb_run_systems", "system", links.LIST),
    Link("jb_run_system_a", "system_a"),
    Link("jb_run_system_b", "system_b"),
)

st.title("Run judges")
links.restore(LINKS)
dataset = ui.filters().dataset
st.caption(f"Dataset: **{ui.md_escape(dataset or 'every dataset')}** (change it in the sidebar).")
if not ui.may_administer("run judges"):
    st.stop()

judge_form.self_hosted_form(
    panel_key="jb_run_panel", source_key="jb_run_source", source_value=FILE_CHOICE
)
source = st.radio("Panel", [FILE_CHOICE, MODELS_CHOICE], horizontal=True, key="jb_run_source")
if source == FILE_CHOICE:
    names = launcher.panel_names()
    if st.session_state.get("jb_run_panel") not in names:
        st.session_state["jb_run_panel"] = "offline" if "offline" in names else names[0]
    spec = st.selectbox("Panel file (data/panels/)", names, key="jb_run_panel")
else:
    spec = st.text_input(
        "LiteLLM model strings, comma-separated",
        placeholder="openai/gpt-4o-mini, judgeboard/baseline",
        key="jb_run_models",
    )
links.publish(LINKS)
kind = launcher.PANEL_FILE if source == FILE_CHOICE else launcher.MODEL_STRINGS
try:
    panel = launcher.build_panel(spec or "", source=kind)
except PanelError as error:
    st.error(ui.md_escape(error))
    st.stop()
if panel is None:
    st.info("Type one or more model strings; `judgeboard/baseline` is the offline judge.")
    st.stop()
pickers.table(launcher.judge_rows(panel))

if problems := rubric_problems():
    st.warning("Some rubric files cannot be used and are left out:")
    st.text("\n".join(message for _, message in problems))
rubrics = {r.name: r for r in ui.rubrics()}
if not rubrics:
    st.info("No rubric file can be used: fix the files above, or add one to data/rubrics/.")
    st.stop()
profile = ui.cached(proposal_of.data_profile, dataset)
proposal = proposal_of.propose_rubric(list(rubrics.values()), profile)
if st.session_state.get("jb_run_rubric") not in rubrics:
    st.session_state["jb_run_rubric"] = proposal.rubric if proposal else next(iter(rubrics))
rubric = rubrics[st.selectbox("Rubric", list(rubrics), key="jb_run_rubric")]
st.caption(ui.md_escape(rubric.description))
if proposal is not None:
    st.caption(
        f"Proposed for this data: **{ui.md_escape(proposal.rubric)}**, because "
        f"{ui.md_escape(proposal.reason)}."
    )
judge_form.rubric_prompt(rubric)
pairwise = systems = None
if rubric.is_pairwise:
    options = ui.dataset_systems(dataset)
    if len(options) < 2:
        st.info("A pairwise rubric compares two systems; this dataset has fewer than two.")
        st.stop()
    left, right = st.columns(2)
    pairwise = (
        left.selectbox("System A", options, index=0, key="jb_run_system_a"),
        right.selectbox("System B", options, index=1, key="jb_run_system_b"),
    )
else:
    systems = pickers.systems_selector(dataset, key="jb_run_systems")
only_labelled = judge_qa.labelled_only_checkbox() if not rubric.is_pairwise else False
few_shot, few_shot_seed = (0, 0) if rubric.is_pairwise else judge_qa.few_shot_inputs()
epochs, reduce, temperature, seed = (
    (1, "mean", None, None) if rubric.is_pairwise else judge_qa.epochs_inputs()
)
links.publish(LINKS)
request = launcher.RunRequest(
    spec,
    rubric.name,
    dataset,
    systems,
    pairwise,
    source=kind,
    labelled_only=only_labelled,
    few_shot=few_shot,
    few_shot_seed=few_shot_seed,
    epochs=epochs,
    reduce=reduce,
    temperature=temperature,
    seed=seed,
)

size = ui.cached(launcher.count_targets, request, task_types=rubric.task_types)
if size.problem:
    (st.info if size.n_targets == 0 else st.warning)(size.problem)
if st.button("Plan", key="jb_run_plan_button", disabled=not size.can_plan):
    try:
        runs.keep_plan(request, ui.call(launcher.make_plan, request, rubric))
    except (PanelError, PlanError, RubricError) as error:
        st.error(ui.md_escape(error))
plan = runs.kept_plan(request)
if plan is not None:
    st.subheader("Plan")
    unit = "judgements" if rubric.is_pairwise else "responses"
    st.caption(
        f"{plan.n_targets:,} {unit}. A cached call is never paid for again; the cost "
        "is a bound (completions priced at max_tokens), or unknown when LiteLLM has "
        "no price for the model."
        + (
            f" {plan.epochs} epochs per answer, rating = their {plan.reduce}."
            if plan.epochs > 1
            else ""
        )
    )
    pickers.table(launcher.plan_rows(plan))
    outcome = launcher.plan_outcome(plan)
    if outcome == "empty":
        st.info("Nothing matches this selection: there is nothing to judge.")
    elif outcome == "cached":
        st.success("Everything is cached: nothing to call.")
    elif st.button(f"Run ({plan.calls_needed:,} calls)", type="primary", key="jb_run_button"):
        runs.start_run(plan, panel)

if (stopped := runs.follow_run()) is not None:
    st.error("The run stopped.")
    ui.show_text(stopped, label="error")

if (finished := runs.last_run()) is not None:
    summary, run_panel = finished
    # One element: the next run's progress replaces all of it at once, so no failure box of
    # this run stays on the screen beside the next run's (Streamlit keeps a previous run's
    # elements until they are drawn over).
    with st.container():
        st.subheader("Last run")
        st.caption(
            f"Run {summary.run_id[:12]}, rubric {ui.md_escape(summary.rubric)} "
            f"v{ui.md_escape(summary.rubric_version)}, {summary.wall_s:.1f} s."
        )
        pickers.table(launcher.summary_rows(summary))
        for failed in launcher.failures(summary, run_panel):
            st.error(
                f"{ui.md_escape(failed.judge)}: {failed.failures} call(s) failed, the last with: "
                f"{ui.md_escape(failed.last_error)}"
            )
        runs.retry_failed()
        if summary.pending_writes:
            st.warning(
                "The database was busy: results wait in the spool and are applied the next "
                "time it is opened."
            )
