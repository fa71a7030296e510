"""The SQL of the judge panel: what to judge, what is cached, what to reparse, and the record
of each run (`judge_runs`, one row per judge and run).

Every function runs on a connection it is given (see `Store.connection()`); values are bound
parameters and the optional filters are code constants. `Connection` is imported for type
checking only: `migrations.py` imports this module for `m004_judge_runs`, and a runtime import
of `connection.py` here would be circular.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dashboard.store.connection import Connection
else:
    Connection = Any

_TARGET_COLUMNS = (
    "item_id", "dataset", "task_type", "question", "reference_answers", "reference_context",
    "history")
_RESPONSE_COLUMNS = ("response_id", "system", "answer", "contexts")
JUDGE_RUN_COLUMNS = (
    "run_id", "judge", "model", "rubric", "rubric_version", "selection", "calls_planned",
    "calls_made", "cache_hits", "failures", "parse_failures", "attempts", "prompt_tokens",
    "completion_tokens", "cost_usd", "cost_unknown_calls", "flip_rate", "n_pairs", "last_error",
    "started_utc", "finished_utc")


def m004_judge_runs(con: Connection) -> None:
    # One row per judge and run: the run's summary (calls, cache hits, failures and the last
    # error, tokens, cost, the pairwise flip rate) kept beside the judge_calls it made, so that
    # what a run did stays on record after its printed summary is gone.
    con.execute("""
        CREATE TABLE judge_runs (
            run_id             VARCHAR NOT NULL,
            judge              VARCHAR NOT NULL,
            model              VARCHAR NOT NULL,
            rubric             VARCHAR NOT NULL,
            rubric_version     VARCHAR NOT NULL,
            selection          JSON,
            calls_planned      INTEGER NOT NULL,
            calls_made         INTEGER NOT NULL,
            cache_hits         INTEGER NOT NULL,
            failures           INTEGER NOT NULL,
            parse_failures     INTEGER NOT NULL,
            attempts           INTEGER NOT NULL,
            prompt_tokens      BIGINT,
            completion_tokens  BIGINT,
            cost_usd           DOUBLE,
            cost_unknown_calls INTEGER NOT NULL,
            flip_rate          DOUBLE,
            n_pairs            INTEGER,
            last_error         VARCHAR,
            started_utc        TIMESTAMP NOT NULL,
            finished_utc       TIMESTAMP NOT NULL
        )""")


def _rows(cursor: Any) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def select_rating_targets(con: Connection, *, dataset: str | None = None,
                          systems: Sequence[str] | None = None,
                          task_types: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Every response to rate, with the item fields a prompt needs, in a stable order."""
    where, params = ["TRUE"], []
    if dataset is not None:
        where.append("r.dataset = ?")
        params.append(dataset)
    if systems:
        where.append("list_contains(?::VARCHAR[], r.system)")
        params.append(list(systems))
    if task_types:
        where.append("list_contains(?::VARCHAR[], i.task_type)")
        params.append(list(task_types))
    # A response may carry its own history (MT-Bench's turn 2 follows the model's own turn-1
    # answer, which differs per system); else the item's history is the conversation.
    item_columns = [f"i.{c}" for c in _TARGET_COLUMNS if c != "history"]
    columns = ", ".join([*item_columns, "coalesce(r.metadata -> '$.history', i.history) AS history",
                         *(f"r.{c}" for c in _RESPONSE_COLUMNS)])
    return _rows(con.execute(
        f"SELECT {columns} FROM responses r "
        "JOIN items i ON i.item_id = r.item_id AND i.dataset = r.dataset "
        f"WHERE {' AND '.join(where)} ORDER BY r.dataset, i.item_id, r.system, r.response_id",
        params))


def select_pair_targets(con: Connection, *, system_a: str, system_b: str,
                        dataset: str | None = None) -> list[dict[str, Any]]:
    """Every item answered by both systems, with both responses (a_* and b_* columns)."""
    where, params = ["a.system = ?", "b.system = ?"], [system_a, system_b]
    if dataset is not None:
        where.append("a.dataset = ?")
        params.append(dataset)
    columns = ", ".join([*(f"i.{c}" for c in _TARGET_COLUMNS),
                         *(f"a.{c} AS a_{c}" for c in _RESPONSE_COLUMNS),
                         *(f"b.{c} AS b_{c}" for c in _RESPONSE_COLUMNS)])
    return _rows(con.execute(
        f"SELECT {columns} FROM responses a "
        "JOIN responses b ON b.item_id = a.item_id AND b.dataset = a.dataset "
        "JOIN items i ON i.item_id = a.item_id AND i.dataset = a.dataset "
        f"WHERE {' AND '.join(where)} AND a.response_id <> b.response_id "
        "ORDER BY a.dataset, i.item_id, a.response_id, b.response_id", params))


def find_ok_calls(con: Connection, cache_keys: Iterable[str]) -> dict[str, tuple[str, str | None]]:
    """cache_key -> (call_id, raw_output) of the earliest successful call with that key."""
    keys = sorted(set(cache_keys))
    if not keys:
        return {}
    found = con.execute(
        "SELECT cache_key, arg_min(call_id, created_utc), arg_min(raw_output, created_utc) "
        "FROM judge_calls WHERE status = 'ok' AND cache_key IN (SELECT unnest(?::VARCHAR[])) "
        "GROUP BY cache_key", [keys]).fetchall()
    return {key: (call_id, raw) for key, call_id, raw in found}


def rated_by_calls(con: Connection, call_ids: Iterable[str]) -> set[tuple[str, str]]:
    """(call_id, response_id) pairs that already have a rating row from that call."""
    ids = sorted(set(call_ids))
    if not ids:
        return set()
    rows = con.execute(
        "SELECT DISTINCT call_id, response_id FROM ratings "
        "WHERE call_id IN (SELECT unnest(?::VARCHAR[]))", [ids]).fetchall()
    return {(c, r) for c, r in rows}


def preferred_by_calls(con: Connection, call_ids: Iterable[str]) -> set[tuple[str, str, str, str]]:
    """(call_id, response_a, response_b, shown_first) that already have a preference row."""
    ids = sorted(set(call_ids))
    if not ids:
        return set()
    rows = con.execute(
        "SELECT DISTINCT call_id, response_a, response_b, shown_first FROM preferences "
        "WHERE call_id IN (SELECT unnest(?::VARCHAR[]))", [ids]).fetchall()
    return {tuple(row) for row in rows}  # type: ignore[misc]


def _reparse_filters(alias: str, *, rubric: str | None, judge: str | None,
                     dataset: str | None, dataset_sql: str) -> tuple[str, list[Any]]:
    where, params = [f"{alias}.rater_kind = 'llm'", f"{alias}.call_id IS NOT NULL"], []
    for column, value in (("rubric", rubric), ("rater", judge)):
        if value is not None:
            where.append(f"{alias}.{column} = ?")
            params.append(value)
    if dataset is not None:
        where.append(dataset_sql)
        params.append(dataset)
    return " AND ".join(where), params


def unscored_ratings(con: Connection, *, rubric: str | None = None, judge: str | None = None,
                     dataset: str | None = None) -> list[dict[str, Any]]:
    """Current judge ratings without a value, with the raw output of the call behind each."""
    where, params = _reparse_filters(
        "c", rubric=rubric, judge=judge, dataset=dataset,
        dataset_sql="c.response_id IN (SELECT response_id FROM responses WHERE dataset = ?)")
    return _rows(con.execute(
        "SELECT c.rating_id, c.response_id, c.rater, c.rubric, c.rubric_version, c.scale_low, "
        "c.scale_high, c.call_id, c.unscored_reason, coalesce(j.raw_output, c.raw_output) AS raw_output "
        "FROM current_ratings c LEFT JOIN judge_calls j ON j.call_id = c.call_id "
        f"WHERE c.value IS NULL AND {where} ORDER BY c.rating_id", params))


def unscored_preferences(con: Connection, *, rubric: str | None = None,
                         judge: str | None = None,
                         dataset: str | None = None) -> list[dict[str, Any]]:
    """Current judge preferences without a verdict, with the raw output behind each."""
    where, params = _reparse_filters(
        "c", rubric=rubric, judge=judge, dataset=dataset,
        dataset_sql="c.item_id IN (SELECT item_id FROM items WHERE dataset = ?)")
    return _rows(con.execute(
        "SELECT c.preference_id, c.item_id, c.response_a, c.response_b, c.rater, c.rubric, "
        "c.rubric_version, c.shown_first, c.call_id, c.unscored_reason, "
        "coalesce(j.raw_output, c.raw_output) AS raw_output "
        "FROM current_preferences c LEFT JOIN judge_calls j ON j.call_id = c.call_id "
        f"WHERE c.verdict IS NULL AND {where} ORDER BY c.preference_id", params))


def add_judge_runs(con: Connection, rows: Sequence[Mapping[str, Any]]) -> None:
    """Record run summaries (a few rows per run, so plain INSERTs)."""
    placeholders = ", ".join("?" for _ in JUDGE_RUN_COLUMNS)
    for row in rows:
        con.execute(f"INSERT INTO judge_runs ({', '.join(JUDGE_RUN_COLUMNS)}) "
                    f"VALUES ({placeholders})", [row.get(c) for c in JUDGE_RUN_COLUMNS])

