"""The SQL of the judge calls: what is cached, what to reparse, and the record of each run
(`judge_runs`, one row per judge and run).

Every function runs on a connection it is given (see `Store.connection()`); values are bound
parameters and the optional filters are code constants.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dashboard.store.connection import Connection
from dashboard.store.rows import fetch

JUDGE_RUN_COLUMNS = (
    "run_id",
    "judge",
    "model",
    "rubric",
    "rubric_version",
    "selection",
    "calls_planned",
    "calls_made",
    "cache_hits",
    "failures",
    "parse_failures",
    "attempts",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "cost_unknown_calls",
    "flip_rate",
    "n_pairs",
    "last_error",
    "started_utc",
    "finished_utc",
)


@dataclass(frozen=True)
class OkCall:
    """The earliest successful call with a cache key: its id and what the judge answered."""

    cache_key: str
    call_id: str
    raw_output: str | None


def find_ok_calls(con: Connection, cache_keys: Iterable[str]) -> dict[str, OkCall]:
    """cache_key -> the earliest successful call with that key."""
    keys = sorted(set(cache_keys))
    if not keys:
        return {}
    found = fetch(
        con.execute(
            "SELECT cache_key, arg_min(call_id, created_utc) AS call_id, "
            "arg_min(raw_output, created_utc) AS raw_output "
            "FROM judge_calls WHERE status = 'ok' "
            "AND cache_key IN (SELECT unnest(?::VARCHAR[])) GROUP BY cache_key",
            [keys],
        ),
        OkCall,
    )
    return {call.cache_key: call for call in found}


@dataclass(frozen=True)
class RatedByCall:
    """A response that already has a rating row from a call."""

    call_id: str
    response_id: str


def rated_by_calls(con: Connection, call_ids: Iterable[str]) -> set[RatedByCall]:
    """The responses each of these calls already rated."""
    ids = sorted(set(call_ids))
    if not ids:
        return set()
    rows = fetch(
        con.execute(
            "SELECT DISTINCT call_id, response_id FROM ratings "
            "WHERE call_id IN (SELECT unnest(?::VARCHAR[]))",
            [ids],
        ),
        RatedByCall,
    )
    return set(rows)


@dataclass(frozen=True)
class PreferredByCall:
    """A pair, shown in one order, that already has a preference row from a call."""

    call_id: str
    response_a: str
    response_b: str
    shown_first: str


def preferred_by_calls(con: Connection, call_ids: Iterable[str]) -> set[PreferredByCall]:
    """The pairs (in their presentation order) each of these calls already judged."""
    ids = sorted(set(call_ids))
    if not ids:
        return set()
    rows = fetch(
        con.execute(
            "SELECT DISTINCT call_id, response_a, response_b, shown_first FROM preferences "
            "WHERE call_id IN (SELECT unnest(?::VARCHAR[]))",
            [ids],
        ),
        PreferredByCall,
    )
    return set(rows)


def probed_by_calls(
    con: Connection, call_ids: Iterable[str], *, kind: str
) -> set[tuple[str, str, str, str, str]]:
    """(call_id, response_id, response_a, response_b, shown_first) of the probe results of
    this kind these calls already have ("" for a missing part)."""
    ids = sorted(set(call_ids))
    if not ids:
        return set()
    rows = con.execute(
        "SELECT DISTINCT call_id, coalesce(response_id, ''), coalesce(response_a, ''), "
        "coalesce(response_b, ''), coalesce(shown_first, '') FROM probes "
        "WHERE kind = ? AND call_id IN (SELECT unnest(?::VARCHAR[]))",
        [kind, ids],
    ).fetchall()
    return {(str(a), str(b), str(c), str(d), str(e)) for a, b, c, d, e in rows}


def _reparse_filters(
    alias: str, *, rubric: str | None, judge: str | None, dataset: str | None, dataset_sql: str
) -> tuple[str, list[Any]]:
    where, params = [f"{alias}.rater_kind = 'llm'", f"{alias}.call_id IS NOT NULL"], []
    for column, value in (("rubric", rubric), ("rater", judge)):
        if value is not None:
            where.append(f"{alias}.{column} = ?")
            params.append(value)
    if dataset is not None:
        where.append(dataset_sql)
        params.append(dataset)
    return " AND ".join(where), params


# A rating reduced from the epochs of `judge --epochs N` cites its first epoch's call, whose
# output alone must not become the rating: a re-run of the same command re-reads every epoch.
_REDUCED = """EXISTS (SELECT 1 FROM epoch_ratings e
    WHERE e.call_id = c.call_id AND e.response_id = c.response_id AND e.epochs > 1)"""


@dataclass(frozen=True)
class UnscoredRating:
    """A current judge rating without a value, with the raw output of the call behind it."""

    rating_id: str
    response_id: str
    rater: str
    rubric: str
    rubric_version: str
    scale_low: float
    scale_high: float
    call_id: str
    unscored_reason: str | None
    raw_output: str | None


def unscored_ratings(
    con: Connection,
    *,
    rubric: str | None = None,
    judge: str | None = None,
    dataset: str | None = None,
) -> list[UnscoredRating]:
    """Current judge ratings without a value, with the raw output of the call behind each
    (current in their stream: a workbench draft's too, which the current view leaves out)."""
    where, params = _reparse_filters(
        "c",
        rubric=rubric,
        judge=judge,
        dataset=dataset,
        dataset_sql="c.response_id IN (SELECT response_id FROM responses WHERE dataset = ?)",
    )
    return fetch(
        con.execute(
            "SELECT c.rating_id, c.response_id, c.rater, c.rubric, c.rubric_version, c.scale_low, "
            "c.scale_high, c.call_id, c.unscored_reason, "
            "coalesce(j.raw_output, c.raw_output) AS raw_output "
            "FROM ratings c LEFT JOIN judge_calls j ON j.call_id = c.call_id "
            f"WHERE NOT c.superseded AND c.value IS NULL AND {where} AND NOT {_REDUCED} "
            "ORDER BY c.rating_id",
            params,
        ),
        UnscoredRating,
    )


@dataclass(frozen=True)
class UnscoredPreference:
    """A current judge preference without a verdict, with the raw output behind it."""

    preference_id: str
    item_id: str
    response_a: str
    response_b: str
    rater: str
    rubric: str
    rubric_version: str
    shown_first: str
    call_id: str
    unscored_reason: str | None
    raw_output: str | None


def unscored_preferences(
    con: Connection,
    *,
    rubric: str | None = None,
    judge: str | None = None,
    dataset: str | None = None,
) -> list[UnscoredPreference]:
    """Current judge preferences without a verdict, with the raw output behind each."""
    where, params = _reparse_filters(
        "c",
        rubric=rubric,
        judge=judge,
        dataset=dataset,
        dataset_sql="c.item_id IN (SELECT item_id FROM items WHERE dataset = ?)",
    )
    return fetch(
        con.execute(
            "SELECT c.preference_id, c.item_id, c.response_a, c.response_b, c.rater, c.rubric, "
            "c.rubric_version, c.shown_first, c.call_id, c.unscored_reason, "
            "coalesce(j.raw_output, c.raw_output) AS raw_output "
            "FROM current_preferences c LEFT JOIN judge_calls j ON j.call_id = c.call_id "
            f"WHERE c.verdict IS NULL AND {where} ORDER BY c.preference_id",
            params,
        ),
        UnscoredPreference,
    )


def add_judge_runs(con: Connection, rows: Sequence[Mapping[str, Any]]) -> None:
    """Record run summaries (a few rows per run, so plain INSERTs)."""
    placeholders = ", ".join("?" for _ in JUDGE_RUN_COLUMNS)
    for row in rows:
        con.execute(
            f"INSERT INTO judge_runs ({', '.join(JUDGE_RUN_COLUMNS)}) VALUES ({placeholders})",
            [row.get(c) for c in JUDGE_RUN_COLUMNS],
        )
