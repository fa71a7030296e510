"""Retry only what failed: a plan of the targets whose latest call, in a run, failed.

The targets of the failed calls are planned again for the judges that failed them, through
the same cache: a call another run has made since (status "ok", same cache key) is not made
again, and a judge that failed nothing is left out of the retry.
"""

from __future__ import annotations

import dataclasses

from dashboard.judging.plan import Rendered, RunPlan, plan_rendered
from dashboard.judging.summary import RunSummary
from dashboard.store import Store


def retry_plan(store: Store, plan: RunPlan, summary: RunSummary) -> RunPlan | None:
    """The plan that retries the calls of `plan` that failed in `summary`'s run (None when
    none failed)."""
    failed = set(summary.failed_keys)
    specs = [spec for spec in plan.calls if spec.cache_key in failed]
    if not specs:
        return None
    judges = {spec.judge for spec in specs}
    panel = dataclasses.replace(
        plan.panel, judges=tuple(j for j in plan.panel.judges if j.name in judges)
    )
    seen: set[object] = set()
    rendered: list[Rendered] = []
    for spec in specs:
        for target in spec.targets:
            if target not in seen:
                seen.add(target)
                rendered.append((target, spec.messages, spec.case))
    # With epochs, every epoch of a failed answer is planned: the cached ones cost nothing,
    # and the answer's reduced rating needs them all.
    return plan_rendered(
        store,
        panel,
        plan.rubric,
        plan.selection,
        rendered,
        probe=plan.probe,
        epochs=plan.epochs,
        reduce=plan.reduce,
    )
