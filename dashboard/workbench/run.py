"""Run a rubric version on the labelled answers only, with the plan (calls, cached calls,
cost bound) first; calls already made are never made again (the judge runner's cache)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from dashboard.auth.roles import User
from dashboard.judging import BackgroundLoop, Panel, RunPlan, RunSummary, plan_run, run_plan
from dashboard.judging.launcher import MODEL_STRINGS, PANEL_FILE, build_panel, panel_names
from dashboard.judging.panel import PanelError
from dashboard.judging.plan import labelled_only
from dashboard.judging.rubrics import Rubric
from dashboard.store import Store


def judges_panel(spec: str) -> Panel:
    """A panel file's name (data/panels or the user's folder) or LiteLLM model strings
    separated by commas; never a path, so a dashboard user cannot make the server read one."""
    source = PANEL_FILE if spec in panel_names() else MODEL_STRINGS
    panel = build_panel(spec, source=source)
    if panel is None:
        raise PanelError("no judge given: name a panel file or type LiteLLM model strings")
    return panel


def plan_version(
    store: Store,
    *,
    judges: str | Panel,
    rubric: Rubric,
    dataset: str,
    every_answer: bool = False,
    only: Sequence[str] | None = None,
) -> RunPlan:
    """The plan of judging the responses people rated with the rubric on the dataset (with
    `every_answer`, all of the dataset's: an adopted version then covers the panel's answers;
    with `only`, those of them: the dev split's, for a proposal scored on dev);
    `judges` a panel, or a spec for `judges_panel`."""
    panel = judges_panel(judges) if isinstance(judges, str) else judges
    if only is not None:
        labelled = set(labelled_only(store, rubric, dataset=dataset, systems=None) or ())
        only = [r for r in only if r in labelled]
    elif not every_answer:
        only = labelled_only(store, rubric, dataset=dataset, systems=None)
    return plan_run(store, panel, rubric, dataset=dataset, response_ids=only)


def run_version(
    store: Store,
    plan: RunPlan,
    *,
    loop: BackgroundLoop | None = None,
    actor: User | None = None,
) -> RunSummary:
    """Make the plan's calls (on `loop` in the Streamlit process, else `asyncio.run`); paid
    calls, so a signed-in labeller is refused (`run_plan` checks `actor`)."""
    coroutine = run_plan(store, plan, actor=actor)
    if loop is not None:
        return loop.run(coroutine)
    return asyncio.run(coroutine)
