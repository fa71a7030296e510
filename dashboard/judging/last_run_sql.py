"""The SQL of the latest judge run as the store records it: its `judge_runs` rows, each
judge's retries and the cache keys of its failed calls (`judge_calls`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class JudgeRunRow:
    """One judge's part of the latest run, with its retries and failed calls."""

    run_id: str
    judge: str
    model: str
    rubric: str
    rubric_version: str
    calls_planned: int
    calls_made: int
    cache_hits: int
    failures: int
    parse_failures: int
    attempts: int
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None
    cost_unknown_calls: int
    flip_rate: float | None
    n_pairs: int | None
    last_error: str | None
    started_utc: datetime
    finished_utc: datetime
    retries: int
    failed_keys: list[str] | None


def latest_run(con: Connection) -> list[JudgeRunRow]:
    """The judges' rows of the run that finished last (none: no run recorded)."""
    return fetch(
        con.execute("""
        WITH last AS (
            SELECT run_id FROM judge_runs ORDER BY finished_utc DESC, run_id LIMIT 1),
        calls AS (
            SELECT judge, sum(greatest(attempts - 1, 0)) AS retries,
                   list(DISTINCT cache_key ORDER BY cache_key)
                       FILTER (WHERE status = 'failed') AS failed_keys
            FROM judge_calls WHERE run_id IN (SELECT run_id FROM last) GROUP BY judge)
        SELECT r.run_id, r.judge, r.model, r.rubric, r.rubric_version, r.calls_planned,
               r.calls_made, r.cache_hits, r.failures, r.parse_failures, r.attempts,
               r.prompt_tokens, r.completion_tokens, r.cost_usd, r.cost_unknown_calls,
               r.flip_rate, r.n_pairs, r.last_error, r.started_utc, r.finished_utc,
               coalesce(c.retries, 0)::INTEGER AS retries, c.failed_keys
        FROM judge_runs r LEFT JOIN calls c ON c.judge = r.judge
        WHERE r.run_id IN (SELECT run_id FROM last)
        ORDER BY r.judge"""),
        JudgeRunRow,
    )
