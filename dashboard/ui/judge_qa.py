"""The Judge QA page's sections (bias, self-consistency, probes, drift) and the Run judges
page's "only where people rated", few-shot and epochs options: each a function, so that a page
calls it in a line or two."""

from __future__ import annotations

import streamlit as st

from dashboard import ui
from dashboard.judging import PanelError, PlanError, RubricError, launcher
from dashboard.judging.few_shot import MAX_EXAMPLES
from dashboard.judging.probes import DEFAULT_SAMPLE, ORDER, PADDING, PADDING_SENTENCE, plan_probe
from dashboard.metrics import judge_qa, registry
from dashboard.metrics.judge_qa import (
    EPOCHS_COMMAND,
    bias_rows,
    consistency_convention,
    consistency_rows,
    drift_rows,
)
from dashboard.metrics.selection import Selection
from dashboard.ui import pickers, runs, tables_fit
from scoring.workbench import EPOCH_REDUCERS

PROBE_KEY = "jb_qa_probe"
MAX_EPOCHS = 20  # the page's bound (the CLI has none): each epoch is a paid call per answer
# How to get a repeated run when there is none: the command, and the page's options.
EPOCHS_HINT = (
    "No judge has been asked more than once per answer here, so there is no self-consistency "
    f"to show. Run one with epochs: `{EPOCHS_COMMAND}` (with your panel, rubric and dataset), "
    "or **Epochs** and **Temperature** on **Run judges**."
)


def labelled_only_checkbox(*, key: str = "jb_run_labelled_only") -> bool:
    """Run judges: judge only the responses people rated."""
    return st.checkbox(
        "Only the responses people rated",
        key=key,
        help="A new rubric version then costs a few calls, and its agreement with people "
        "shows on the Calibration page at once (same as `judgeboard judge --labelled-only`).",
    )


def few_shot_inputs(*, key: str = "jb_run_few_shot") -> tuple[int, int]:
    """Run judges: how many of people's labels to show as examples, and the draw's seed."""
    left, right = st.columns(2)
    n = left.number_input(
        "Few-shot examples from people's labels",
        min_value=0,
        max_value=MAX_EXAMPLES,
        value=0,
        key=key,
        help="A seeded draw of people's ratings of this rubric, shown in every prompt (the "
        "answer and the person's rating). The rubric version then names the draw, and its "
        "agreement is reported on the other labels only (`judgeboard judge --few-shot N`).",
    )
    seed = right.number_input("Seed of the draw", min_value=0, value=0, key=f"{key}_seed")
    return int(n), int(seed)


def epochs_inputs(*, key: str = "jb_run_epochs") -> tuple[int, str, float | None, int | None]:
    """Run judges: repeated judging (`judge --epochs N --reduce R --temperature T --seed S`):
    the asks per answer, how their ratings become one, and the sampling that lets them
    differ (left empty: each judge's own)."""
    a, b, c, d = st.columns(4)
    n = int(
        a.number_input(
            "Epochs (asks per answer)",
            min_value=1,
            max_value=MAX_EPOCHS,
            value=1,
            key=key,
            help="Each judge is asked N times per answer, each ask cached on its own; the "
            "rating is their reducer, and the run reports the judge's self-consistency with "
            "its interval (`judgeboard judge --epochs N`).",
        )
    )
    how = b.selectbox("Rating of the N", EPOCH_REDUCERS, key=f"{key}_reduce", disabled=n == 1)
    temperature = c.number_input(
        "Temperature",
        min_value=0.0,
        max_value=2.0,
        value=None,
        step=0.1,
        key=f"{key}_temperature",
        help="Above 0 the N asks can differ; empty: each judge's own (default 0).",
    )
    seed = d.number_input(
        "Seed", min_value=0, value=None, step=1, key=f"{key}_seed", help="sent + the epoch"
    )
    return (
        n,
        str(how),
        None if temperature is None else float(temperature),
        None if seed is None else int(seed),
    )


def bias_section(selection: Selection) -> judge_qa.Bias:
    """Each judge's bias with its 95% interval and n, and the warnings that go with it."""
    st.subheader("Bias")
    found = ui.cached(judge_qa.bias, selection)
    if not found.judges:
        st.info("No judge has rated or compared answers here; run one on **Run judges**.")
        return found
    st.caption(
        "Each cell: estimate [95% bootstrap interval], in scale points (position: a share, "
        "0.5 is none). Length is per 100 words beyond people's ratings of the same answers; "
        "self-preference needs the judge's family and the systems' in a panel file "
        "(docs/judge-qa.md); padding comes from the padding probe below."
    )
    tables_fit.fitted_tables(bias_rows(found), registry.BIAS_METRICS)
    for name, text in found.warnings.items():
        st.warning(f"{ui.md_escape(name)}: {ui.md_escape(text)}")
    return found


def consistency_section(selection: Selection) -> None:
    """Each judge's self-consistency from repeated judging (`judge --epochs N`), with its
    interval, n and how to read it; without a repeated run, how to make one."""
    st.subheader("Self-consistency (repeated judging)")
    found = ui.cached(judge_qa.consistencies, selection)
    if not found:
        st.info(EPOCHS_HINT)
        return
    st.caption(consistency_convention())  # the registry's text, not user input
    pickers.table(consistency_rows(found))


def _probe_inputs(dataset: str | None) -> tuple[str, str, int, tuple[str, str] | None] | None:
    names = launcher.panel_names()
    left, middle, right = st.columns(3)
    panel = left.selectbox(
        "Panel file",
        names,
        key=f"{PROBE_KEY}_panel",
        index=names.index("offline") if "offline" in names else 0,
    )
    kind = middle.radio("Probe", [PADDING, ORDER], horizontal=True, key=f"{PROBE_KEY}_kind")
    size = right.number_input(
        "Sample", min_value=1, value=DEFAULT_SAMPLE, step=10, key=f"{PROBE_KEY}_size"
    )
    pairwise = None
    if kind == ORDER:
        options = ui.dataset_systems(dataset)
        if len(options) < 2:
            st.info("The order probe compares two systems; this dataset has fewer.")
            return None
        a, b = st.columns(2)
        pairwise = (
            a.selectbox("System A", options, index=0, key=f"{PROBE_KEY}_a"),
            b.selectbox("System B", options, index=1, key=f"{PROBE_KEY}_b"),
        )
    return panel, kind, int(size), pairwise


def probe_section(dataset: str | None, rubric: str | None) -> None:
    """Run a probe: a seeded sample re-judged, perturbed, through the runner and its cache;
    the page's `rubric` is the default one."""
    st.subheader("Probes")
    if not ui.may_administer("run probes (their judge calls are paid for)"):
        return
    st.caption(
        f"Padding adds one fixed sentence to each answer (“{ui.md_escape(PADDING_SENTENCE)}”); "
        "order asks each pair in both orders. Results are kept apart from real ratings and "
        "never enter a system's numbers; a probe run again is served from the cache."
    )
    chosen = _probe_inputs(dataset)
    if chosen is None:
        return
    panel_name, kind, size, pairwise = chosen
    rubric_names = [r.name for r in ui.rubrics() if r.is_pairwise == (kind == ORDER)]
    rubric_name = st.selectbox(
        "Probe rubric",
        rubric_names,
        key=f"{PROBE_KEY}_rubric",
        index=rubric_names.index(rubric) if rubric in rubric_names else 0,
        help="The padding probe is read against the judge's ratings of the same rubric.",
    )
    if st.button("Run probe", key=f"{PROBE_KEY}_run", disabled=not rubric_name):
        try:
            panel = launcher.build_panel(panel_name, source=launcher.PANEL_FILE)
            chosen_rubric = next(r for r in ui.rubrics() if r.name == rubric_name)
            if panel is None:  # a panel file always gives one; typed strings are not offered
                raise PanelError("choose a panel file")
            plan = ui.call(
                plan_probe,
                panel,
                chosen_rubric,
                kind=kind,
                dataset=dataset,
                pairwise=pairwise,
                sample_size=size,
            )
            runs.start_run(plan, panel)
        except (PanelError, PlanError, RubricError) as error:
            st.error(ui.md_escape(error))
        else:
            if (stopped := runs.follow_run()) is not None:
                st.error(ui.md_escape(stopped))
                return
            st.rerun()  # the bias table above shows the probe's results
    if (summary := runs.session_run()) is not None:
        st.success(
            f"Probe run {summary.run_id[:12]}: {summary.calls_made:,} calls made, "
            f"{sum(j.cache_hits for j in summary.judges):,} from the cache."
        )


def drift_section(dataset: str | None, rubric: str | None) -> None:
    """Anchor items, and each judge's shift between its two latest versions."""
    st.subheader("Drift on anchor items")
    found = ui.cached(judge_qa.drift, rubric=rubric, dataset=dataset)
    st.caption(
        f"{found.n_anchors:,} anchor responses. Re-judge them whenever a judge, its model "
        "version or the rubric version changes (Run judges, or `judgeboard judge` with the "
        "new panel or rubric); a judge's version is its rubric version and the model version "
        "its provider reported."
    )
    if ui.may_administer("add anchors"):
        size = st.number_input("Seeded sample", min_value=1, value=30, key="jb_qa_anchor_size")
        if st.button("Add a seeded sample as anchors", key="jb_qa_anchor_add"):
            ui.write(judge_qa.add_anchors, dataset=dataset, sample_size=int(size), actor=ui.actor())
            st.rerun()
    if found.judges:
        pickers.table(drift_rows(found))
    else:
        st.info("No judge has rated under two versions yet.")
