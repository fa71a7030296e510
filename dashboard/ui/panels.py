"""Streamlit pieces that several pages share: the rubric and system pickers, tables, and the
one background event loop that judge runs go to, with a session's plan and run."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import streamlit as st

from dashboard import runs, selections, ui
from dashboard.judging import BackgroundLoop, Panel, RunPlan, RunProgress, RunSummary, run_plan

# The rubric picked on one page is the default on the others (the widget's own state is
# dropped by Streamlit when the page that drew it is left).
RUBRIC_KEY = "jb_rubric"


@st.cache_resource(show_spinner=False)
def background_loop() -> BackgroundLoop:
    """The process's one event loop for judge runs (see dashboard/judging/loop.py)."""
    return BackgroundLoop()


def rubric_selector(dataset: str | None, *, page: str) -> selections.RatedRubric | None:
    """Pick one of the rubrics rated on the dataset; the default is the most used one
    (`metrics.default_rubric`). None when nothing is rated."""
    rubrics = ui.cached(selections.rated_rubrics, dataset=dataset)
    if not rubrics:
        return None
    by_name = {r.name: r for r in rubrics}
    key = f"{RUBRIC_KEY}_{page}"
    if st.session_state.get(key) not in by_name:
        remembered = st.session_state.get(RUBRIC_KEY)
        st.session_state[key] = remembered if remembered in by_name else rubrics[0].name
    name = st.selectbox("Rubric", list(by_name), key=key,
                        format_func=lambda n: by_name[n].label)
    st.session_state[RUBRIC_KEY] = name
    return by_name[name]


def systems_selector(dataset: str | None, *, key: str) -> tuple[str, ...] | None:
    """A subset of the dataset's systems; None (every system) when none is picked."""
    options = ui.cached(selections.dataset_systems, dataset=dataset)
    st.session_state[key] = [s for s in st.session_state.get(key, []) if s in options]
    chosen = st.multiselect("Systems", options, key=key, placeholder="every system")
    return tuple(chosen) if chosen else None


def table(rows: Sequence[dict[str, Any]], **options: Any) -> None:
    """A read-only table of display rows, as wide as the page."""
    st.dataframe(list(rows), hide_index=True, width="stretch", **options)


# A session's judge run: the plan shown for a request, the run going on, the last summary.
PLAN_KEY, RUN_KEY, SUMMARY_KEY = "jb_run_plan", "jb_run_future", "jb_run_summary"
POLL_S = 0.2


def keep_plan(request: runs.RunRequest, plan: RunPlan) -> None:
    st.session_state[PLAN_KEY] = (request, plan)


def kept_plan(request: runs.RunRequest) -> RunPlan | None:
    """The plan made for this very request; a changed widget makes it stale."""
    stored = st.session_state.get(PLAN_KEY)
    return stored[1] if stored and stored[0] == request else None


def start_run(plan: RunPlan, panel: Panel) -> None:
    """Send the plan to the background loop; `follow_run` shows its progress."""
    progress = RunProgress()
    future = background_loop().submit(run_plan(ui.get_store(), plan, on_progress=progress))
    st.session_state[RUN_KEY] = (future, progress, panel)
    st.session_state.pop(PLAN_KEY, None)
    st.session_state.pop(SUMMARY_KEY, None)


def follow_run() -> str | None:
    """Draw the progress of this session's run until it ends, then keep its summary; the
    error text (keys removed) when it stopped. A click elsewhere ends this script run, not
    the judges: the next run of the page follows it again."""
    running = st.session_state.get(RUN_KEY)
    if running is None:
        return None
    future, progress, panel = running
    bar = st.progress(0.0, text="starting…")
    while not future.done():
        done, total = progress.counts
        bar.progress(progress.fraction, text=f"{done:,} of {total:,} calls")
        time.sleep(POLL_S)
    bar.empty()
    del st.session_state[RUN_KEY]
    ui.after_write()
    try:
        st.session_state[SUMMARY_KEY] = (future.result(), panel)
    except Exception as error:  # noqa: BLE001 (shown to the user, with keys removed)
        return runs.redact(str(error), panel)
    return None


def last_run() -> tuple[RunSummary, Panel] | None:
    return st.session_state.get(SUMMARY_KEY)
