"""The judge panel: rubrics as data, panels of LiteLLM judges, and a cached, resumable runner.

    rubric = load_rubric("likert-rag")
    panel = load_panel("offline")        # a panel file, or "openai/gpt-4o-mini,judgeboard/baseline"
    plan = plan_run(store, panel, rubric, dataset="eo-rag")  # calls needed, cached, cost bound
    summary = asyncio.run(run_plan(store, plan, on_progress=print))
    # or, synchronously: run_judges(store, panel, rubric, dataset="eo-rag")
    scrub_secrets(error_text)   # API keys masked, before any text is stored, logged or shown
    rubric_problems()           # rubric files that list_rubrics() skips, and why

Importing this package does not import LiteLLM; the first judge call does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from dashboard.judging.loop import BackgroundLoop, RunProgress
from dashboard.judging.panel import BASELINE_MODEL, Judge, Panel, PanelError, load_panel
from dashboard.judging.plan import JudgePlan, PlanError, RunPlan, plan_run
from dashboard.judging.reparse import ReparseSummary, reparse
from dashboard.judging.rubrics import (
    Rubric,
    RubricError,
    list_rubrics,
    load_rubric,
    rubric_problems,
)
from dashboard.judging.runner import Progress, run_plan
from dashboard.judging.secrets import scrub_secrets
from dashboard.judging.summary import JudgeSummary, RunSummary, plan_lines, summary_lines
from dashboard.store import Store

__all__ = [
    "BASELINE_MODEL",
    "BackgroundLoop",
    "Judge",
    "JudgePlan",
    "JudgeSummary",
    "Panel",
    "PanelError",
    "PlanError",
    "ReparseSummary",
    "Rubric",
    "RubricError",
    "RunPlan",
    "RunProgress",
    "RunSummary",
    "list_rubrics",
    "load_panel",
    "load_rubric",
    "plan_lines",
    "plan_run",
    "reparse",
    "rubric_problems",
    "run_judges",
    "run_plan",
    "scrub_secrets",
    "summary_lines",
]


def run_judges(
    store: Store,
    panel: Panel | str,
    rubric: Rubric | str,
    *,
    dataset: str | None = None,
    systems: Sequence[str] | None = None,
    pairwise: Sequence[str] | None = None,
    on_progress: Progress | None = None,
    loop: BackgroundLoop | None = None,
) -> RunSummary:
    """Plan and run in one call (the CLI, `ensure_sample`). With `loop`, the run goes to that
    background loop (the Streamlit process); without, it uses `asyncio.run`."""
    panel = load_panel(panel) if isinstance(panel, str) else panel
    rubric = load_rubric(rubric) if isinstance(rubric, str) else rubric
    plan = plan_run(store, panel, rubric, dataset=dataset, systems=systems, pairwise=pairwise)
    coroutine = run_plan(store, plan, on_progress=on_progress)
    if loop is not None:
        return loop.run(coroutine)
    return asyncio.run(coroutine)
