"""The latest judge run as the store records it, for any browser tab (or process) to show:
its summary, its failures and the calls a retry would make again."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from dashboard.judging import last_run_sql
from dashboard.judging.summary import JudgeSummary, RunSummary
from dashboard.store import Store


@dataclass(frozen=True)
class StoredRun:
    """The latest run as recorded, and when its summary was recorded (naive UTC)."""

    summary: RunSummary
    finished_utc: datetime


def latest_run(store: Store) -> StoredRun | None:
    """The run that finished last, rebuilt from `judge_runs` and `judge_calls` (None: no run
    recorded). Not recorded there: whether it was cancelled, each judge's self-consistency."""
    with store.connection() as con:
        rows = last_run_sql.latest_run(con)
    if not rows:
        return None
    judges = tuple(
        JudgeSummary(
            r.judge,
            r.model,
            r.calls_planned,
            r.calls_made,
            r.cache_hits,
            r.failures,
            r.parse_failures,
            r.attempts,
            r.retries,
            r.prompt_tokens or 0,
            r.completion_tokens or 0,
            r.cost_usd,
            r.cost_unknown_calls,
            r.last_error,
            r.flip_rate,
            r.n_pairs or 0,
        )
        for r in rows
    )
    first = rows[0]
    wall_s = (first.finished_utc - first.started_utc).total_seconds()
    failed = tuple(sorted({key for r in rows for key in r.failed_keys or ()}))
    summary = RunSummary(
        first.run_id, first.rubric, first.rubric_version, judges, wall_s, failed_keys=failed
    )
    return StoredRun(summary, first.finished_utc)
