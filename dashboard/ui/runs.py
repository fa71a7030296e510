"""A session's judge run on the Run judges page: the process's one background event loop that
runs go to, the plan shown for a request, the run going on, and its last summary."""

from __future__ import annotations

import time
from typing import Any

import streamlit as st

from dashboard import ui
from dashboard.ids import utc_now
from dashboard.judging import (
    BackgroundLoop,
    Panel,
    RunPlan,
    RunProgress,
    RunSummary,
    launcher,
    run_plan,
)
from dashboard.judging.few_shot import record_examples
from dashboard.judging.last_run import latest_run
from dashboard.judging.retry import retry_plan


@st.cache_resource(show_spinner=False)
def background_loop() -> BackgroundLoop:
    """The process's one event loop for judge runs (see dashboard/judging/loop.py)."""
    return BackgroundLoop()


@st.cache_resource(show_spinner=False)
def _held_plans() -> dict[str, tuple[RunPlan, Panel]]:
    """The plans of the runs this process made, by run id, newest last: what Retry needs in a
    tab other than the one that started the run (the store holds the run, not its prompts)."""
    return {}


HELD_PLANS = 20


def _hold(run_id: str, plan: RunPlan, panel: Panel) -> None:
    held = _held_plans()
    held[run_id] = (plan, panel)
    for old in list(held)[:-HELD_PLANS]:
        held.pop(old, None)


# A session's judge run: the plan shown for a request, the run going on, the last summary.
PLAN_KEY, RUN_KEY, SUMMARY_KEY = "jb_run_plan", "jb_run_future", "jb_run_summary"
CANCEL_KEY, RETRY_KEY = "jb_run_cancel", "jb_run_retry"
POLL_S = 0.2
SHOWN_FAILURES = 5  # the latest failures listed while a run goes


def keep_plan(request: launcher.RunRequest, plan: RunPlan) -> None:
    st.session_state[PLAN_KEY] = (request, plan)


def kept_plan(request: launcher.RunRequest) -> RunPlan | None:
    """The plan made for this very request; a changed widget makes it stale."""
    stored = st.session_state.get(PLAN_KEY)
    return stored[1] if stored and stored[0] == request else None


def start_run(plan: RunPlan, panel: Panel) -> None:
    """Send the plan to the background loop; `follow_run` shows its progress. A few-shot
    rubric's examples are recorded first."""
    if plan.rubric.examples:
        ui.write(record_examples, plan.rubric, actor=ui.actor())
    progress = RunProgress()
    coroutine = run_plan(
        ui.get_store(),
        plan,
        on_progress=progress,
        on_failure=progress.failed,
        cancel=progress.cancel_event,
        actor=ui.actor(),
    )
    future = background_loop().submit(coroutine)
    st.session_state[RUN_KEY] = (future, progress, panel, plan)
    st.session_state.pop(PLAN_KEY, None)
    st.session_state.pop(SUMMARY_KEY, None)


def follow_run() -> str | None:
    """Draw the progress of this session's run until it ends, then keep its summary; the
    error text (keys removed) when it stopped. A click elsewhere ends this script run, not
    the judges: the next run of the page follows it again."""
    running = st.session_state.get(RUN_KEY)
    if running is None:
        return None
    future, progress, panel, plan = running
    ui.get_store().let_go()  # no file held while the judges work: the CLI may need it
    cancel_slot = st.empty()  # emptied when the run ends: no Cancel button for a past run
    if cancel_slot.button("Cancel the run", key=CANCEL_KEY, disabled=progress.cancelled):
        progress.cancel()  # the runner starts no further call; those in flight finish
    bar, failures = st.progress(0.0, text="starting…"), st.empty()
    while not future.done():
        done, total = progress.counts
        bar.progress(progress.fraction, text=f"{done:,} of {total:,} calls")
        _show_failures(failures, progress.failures, panel)
        time.sleep(POLL_S)
    bar.empty()
    failures.empty()
    cancel_slot.empty()
    del st.session_state[RUN_KEY]
    ui.after_write()
    try:
        summary = future.result()
        st.session_state[SUMMARY_KEY] = (summary, panel, plan, utc_now())
        _hold(summary.run_id, plan, panel)
    except Exception as error:  # noqa: BLE001 (shown to the user, with keys removed)
        return launcher.redact(str(error), panel)
    return None


def _show_failures(slot: Any, failed: list[tuple[str, str]], panel: Panel) -> None:
    """The failed calls so far: how many, and the latest few, one readable line each."""
    if not failed:
        return
    latest = "\n".join(
        f"{judge}: {launcher.redact(line, panel)}" for judge, line in failed[-SHOWN_FAILURES:]
    )
    with slot.container():
        st.error(f"{len(failed):,} call(s) failed so far; the latest:")
        ui.show_text(latest)


def _last() -> tuple[RunSummary, Panel | None, RunPlan | None] | None:
    """The latest run: as the store has it (whichever tab or process ran it), or as this
    session ran it unless the store holds a run recorded after it (the session knows more: a
    cancel, self-consistency, writes left in the spool); with its panel and plan where this
    process holds them. The store's read is cached until the database changes, and a run
    made wholly from the cache changes only `judge_runs`: so this session's own run wins
    unless the stored one is a different run recorded later."""
    mine = st.session_state.get(SUMMARY_KEY)
    stored = ui.cached(latest_run)
    if mine is not None and (
        stored is None or stored.summary.run_id == mine[0].run_id or stored.finished_utc <= mine[3]
    ):
        return mine[0], mine[1], mine[2]
    if stored is None:
        return None
    plan, panel = _held_plans().get(stored.summary.run_id, (None, None))
    return stored.summary, panel, plan


def session_run() -> RunSummary | None:
    """The run this session made last, if any (Judge QA's probe: not another tab's run)."""
    mine = st.session_state.get(SUMMARY_KEY)
    return mine[0] if mine is not None else None


def last_run() -> tuple[RunSummary, Panel | None] | None:
    found = _last()
    return (found[0], found[1]) if found else None


def retry_failed() -> None:
    """After a run: that it was cancelled, and a button that retries only its failed calls
    (through the cache: a call made since is not made again)."""
    found = _last()
    if found is None:
        return
    summary, panel, plan = found
    if summary.cancelled:
        st.warning("The run was cancelled: the calls it had not started were not made.")
    if not summary.failed_keys:
        return
    if plan is None or panel is None:
        st.caption(
            "Retry is offered by the dashboard process that made the run. Here: Plan and Run "
            "again; the calls that succeeded are cached and not made again."
        )
        return
    label = f"Retry the {len(summary.failed_keys):,} failed call(s)"
    if st.button(label, key=RETRY_KEY):
        again = ui.call(retry_plan, plan, summary)
        if again is not None:
            start_run(again, panel)
            st.rerun()
