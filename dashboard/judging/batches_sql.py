"""The SQL of `judge --batch`: the batches submitted to a provider and not yet finished, and
the batches a run was about to create and may not have recorded.

`judge_batches` is append-only (migration 19): a 'submitted' row when the provider accepts a
batch, a 'finished' row once its results are recorded. `judge_batch_intents` is append-only
too (migration 22): an 'intended' row before the create call, then 'created' (with the batch's
'submitted' row, in one transaction) or 'absent' (the provider has no batch of that intent).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from dashboard.ids import utc_now
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class OpenIntent:
    """A batch a run was about to create and that is neither recorded nor known absent: its
    intent id (the batch's metadata at the provider), its judge, the cache keys it answers."""

    intent_id: str
    judge: str
    model: str
    created_utc: datetime
    cache_keys: tuple[str, ...]


@dataclass(frozen=True)
class PendingBatch:
    """A batch submitted and not finished: its id, its judge, the cache keys it answers."""

    batch_id: str
    judge: str
    model: str
    n_requests: int
    cache_keys: tuple[str, ...]


def add_intent(
    con: Connection,
    *,
    intent_id: str,
    judge: str,
    model: str,
    run_id: str,
    cache_keys: Sequence[str],
) -> None:
    """Before the create call: the batch about to be created and the keys it will answer."""
    con.execute(
        "INSERT INTO judge_batch_intents (intent_id, event, judge, model, run_id, n_requests, "
        "cache_keys, created_utc) VALUES (?, 'intended', ?, ?, ?, ?, ?, ?)",
        [intent_id, judge, model, run_id, len(cache_keys), list(cache_keys), utc_now()],
    )


def close_intent(
    con: Connection,
    *,
    intent_id: str,
    judge: str,
    model: str,
    run_id: str,
    batch_id: str | None,
) -> None:
    """The intent's batch is recorded ('created', with its id; the caller writes its
    `judge_batches` row in the same transaction) or the provider has none ('absent')."""
    con.execute(
        "INSERT INTO judge_batch_intents (intent_id, event, judge, model, run_id, batch_id, "
        "n_requests, created_utc) VALUES (?, ?, ?, ?, ?, ?, 0, ?)",
        [
            intent_id,
            "absent" if batch_id is None else "created",
            judge,
            model,
            run_id,
            batch_id,
            utc_now(),
        ],
    )


def open_intents(con: Connection, judges: Sequence[str]) -> list[OpenIntent]:
    """The intents of these judges neither created nor absent, oldest first."""
    if not judges:
        return []
    return fetch(
        con.execute(
            "SELECT i.intent_id, i.judge, i.model, i.created_utc, i.cache_keys "
            "FROM judge_batch_intents i WHERE i.event = 'intended' "
            "AND i.judge IN (SELECT unnest(?::VARCHAR[])) "
            "AND NOT EXISTS (SELECT 1 FROM judge_batch_intents c "
            "WHERE c.intent_id = i.intent_id AND c.event <> 'intended') "
            "ORDER BY i.created_utc",
            [list(judges)],
        ),
        OpenIntent,
        convert={"cache_keys": lambda keys: tuple(keys or ())},
    )


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
