"""The SQL of `judge --batch`: the batches submitted to a provider and not yet finished.

`judge_batches` is append-only (migration 19): a 'submitted' row when the provider accepts a
batch, a 'finished' row once its results are recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dashboard.ids import utc_now
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class PendingBatch:
    """A batch submitted and not finished: its id, its judge, the cache keys it answers."""

    batch_id: str
    judge: str
    model: str
    n_requests: int
    cache_keys: tuple[str, ...]


def add_submitted(
    con: Connection,
    *,
    batch_id: str,
    judge: str,
    model: str,
    run_id: str,
    input_file_id: str,
    cache_keys: Sequence[str],
) -> None:
    con.execute(
        "INSERT INTO judge_batches (batch_id, event, judge, model, run_id, input_file_id, "
        "n_requests, cache_keys, created_utc) VALUES (?, 'submitted', ?, ?, ?, ?, ?, ?, ?)",
        [
            batch_id,
            judge,
            model,
            run_id,
            input_file_id,
            len(cache_keys),
            list(cache_keys),
            utc_now(),
        ],
    )


def add_finished(
    con: Connection, *, batch_id: str, judge: str, model: str, run_id: str, status: str
) -> None:
    con.execute(
        "INSERT INTO judge_batches (batch_id, event, judge, model, run_id, n_requests, status, "
        "created_utc) VALUES (?, 'finished', ?, ?, ?, 0, ?, ?)",
        [batch_id, judge, model, run_id, status, utc_now()],
    )


def pending_batches(con: Connection, judges: Sequence[str]) -> list[PendingBatch]:
    """The batches of these judges submitted and not finished, oldest first."""
    if not judges:
        return []
    return fetch(
        con.execute(
            "SELECT s.batch_id, s.judge, s.model, s.n_requests, s.cache_keys "
            "FROM judge_batches s WHERE s.event = 'submitted' "
            "AND s.judge IN (SELECT unnest(?::VARCHAR[])) "
            "AND NOT EXISTS (SELECT 1 FROM judge_batches f "
            "WHERE f.batch_id = s.batch_id AND f.event = 'finished') "
            "ORDER BY s.created_utc",
            [list(judges)],
        ),
        PendingBatch,
        convert={"cache_keys": lambda keys: tuple(keys or ())},
    )
