"""A session's judge run on the Run judges page: the process's one background event loop that
runs go to, the plan shown for a request, the run going on, and its last summary."""

from __future__ import annotations

import time

import streamlit as st

from dashboard import ui
from dashboard.judging import (
    BackgroundLoop,
    Panel,
    RunPlan,
    RunProgress,
    RunSummary,
    launcher,
    run_plan,
)


@st.cache_resource(show_spinner=False)
def background_loop() -> BackgroundLoop:
    """The process's one event loop for judge runs (see dashboard/judging/loop.py)."""
    return BackgroundLoop()


# A session's judge run: the plan shown for a request, the run going on, the last summary.
PLAN_KEY, RUN_KEY, SUMMARY_KEY = "jb_run_plan", "jb_run_future", "jb_run_summary"
POLL_S = 0.2


def keep_plan(request: launcher.RunRequest, plan: RunPlan) -> None:
    st.session_state[PLAN_KEY] = (request, plan)


def kept_plan(request: launcher.RunRequest) -> RunPlan | None:
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
    ui.get_store().let_go()  # no file held while the judges work: the CLI may need it
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
        return launcher.redact(str(error), panel)
    return None


def last_run() -> tuple[RunSummary, Panel] | None:
    return st.session_state.get(SUMMARY_KEY)
