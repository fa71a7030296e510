"""Batched, idempotent writes of ratings, preferences and judge calls.

Every write takes a list of rows and inserts them with one INSERT … SELECT from an Arrow
table: single-row INSERTs run at about 2k rows/s, a registered batch at millions. Rows whose id
is already stored are skipped, which makes replaying a spool file or a journal harmless.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

import pyarrow as pa

from dashboard.ids import utc_now
from dashboard.store import keys, shelved
from dashboard.store.connection import Connection
from dashboard.store.rows import dicts
from dashboard.types import (
    Anchor,
    Dataset,
    EpochRating,
    Item,
    JudgeCall,
    Preference,
    Probe,
    Rating,
    Response,
    TagLabel,
)

Row = Mapping[str, Any]

# Column lists are code constants: SQL identifiers never come from input.
RATING_COLUMNS = tuple(f.name for f in dataclasses.fields(Rating))
PREFERENCE_COLUMNS = tuple(f.name for f in dataclasses.fields(Preference))
JUDGE_CALL_COLUMNS = tuple(f.name for f in dataclasses.fields(JudgeCall))

ITEM_COLUMNS = tuple(f.name for f in dataclasses.fields(Item)) + ("created_utc",)
RESPONSE_COLUMNS = tuple(f.name for f in dataclasses.fields(Response)) + ("created_utc",)
JSON_COLUMNS = frozenset({"metadata", "history"})
# Immutable values a row may hold as they are (`record_row`); anything else is deep-copied.
_PLAIN = frozenset({str, int, float, bool, type(None), datetime})
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}  # by record class, read once


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


class Table(NamedTuple):
    """A table that writes fill: the id that makes a row new or stored, and its columns."""

    id_column: str
    columns: tuple[str, ...]


TABLES: dict[str, Table] = {
    "items": Table("item_id", ITEM_COLUMNS),
    "responses": Table("response_id", RESPONSE_COLUMNS),
    "ratings": Table("rating_id", RATING_COLUMNS),
    "preferences": Table("preference_id", PREFERENCE_COLUMNS),
    "judge_calls": Table("call_id", JUDGE_CALL_COLUMNS),
    "probes": Table("probe_id", tuple(f.name for f in dataclasses.fields(Probe))),
    "anchors": Table("anchor_id", tuple(f.name for f in dataclasses.fields(Anchor))),
    "epoch_ratings": Table(
        "epoch_rating_id", tuple(f.name for f in dataclasses.fields(EpochRating))
    ),
    "tag_labels": Table("tag_id", tuple(f.name for f in dataclasses.fields(TagLabel))),
}
# The stream a rating or preference belongs to: a new row supersedes the current row of its stream.
STREAM_KEYS: dict[str, tuple[str, ...]] = {
    "ratings": ("response_id", "rater_kind", "rater", "rubric"),
    "preferences": (
        "item_id",
        "response_a",
        "response_b",
        "rater_kind",
        "rater",
        "rubric",
        "shown_first",
    ),
    "tag_labels": ("response_id", "rater_kind", "rater", "campaign", "tag"),
}


def record_row(record: Any) -> dict[str, Any]:
    """A dataclass record as a row, with created_utc filled in. A record of plain values is
    read field by field (what `dataclasses.asdict` gives it, without its deep copy)."""
    row = {name: getattr(record, name) for name in _field_names(type(record))}
    if not all(type(value) in _PLAIN for value in row.values()):
        row = dataclasses.asdict(record)
    if row.get("created_utc") is None:
        row["created_utc"] = utc_now()
    return row


def _arrow(rows: Sequence[Row], columns: Sequence[str]) -> pa.Table:
    data = {}
    for column in columns:
        values = [row.get(column) for row in rows]
        if column in JSON_COLUMNS:
            values = [v if v is None or isinstance(v, str) else json.dumps(v) for v in values]
        elif any(isinstance(v, tuple) for v in values):
            values = [None if v is None else list(v) for v in values]
        data[column] = values
    return pa.table(data)


def _workbench_versions(con: Connection, table: str) -> frozenset[tuple[str, str]]:
    """The rubric versions made in the judge workbench (`rubric_versions`), as (rubric,
    version): a judge's rating under one is a draft's until adopted, so it supersedes only an
    earlier rating of that version, and a rating under any other version never supersedes it
    (the current view then shows the version in force, `store/shelved.py`)."""
    if table != "ratings":
        return frozenset()
    found = con.execute("SELECT rubric, rubric_version FROM rubric_versions").fetchall()
    return frozenset((str(r[0]), str(r[1])) for r in found)


def _stream(row: Row, stream_keys: Sequence[str], workbench: frozenset[tuple[str, str]]) -> tuple:
    """The stream a row belongs to: its keys, and its rubric version when that is one of the
    workbench's and a judge gave it (None: a file version, where a newer version's rating
    supersedes an older one's)."""
    lane = None
    if row.get("rater_kind") == "llm" and (row.get("rubric"), row.get("rubric_version")) in (
        workbench
    ):
        lane = row["rubric_version"]
    return (*(row[k] for k in stream_keys), lane)


def _current_ids(
    con: Connection, table: str, rows: Sequence[Row], workbench: frozenset[tuple[str, str]]
) -> dict[tuple, str]:
    """The current row id of each stream the batch touches.

    Candidates are found by the stream's first key (a response, or an item) through bound
    lists (`keys.filters`), which both stores filter while scanning, instead of computing the
    current view of millions of rows.
    """
    stream_keys = STREAM_KEYS[table]
    id_column = TABLES[table].id_column
    wanted = {_stream(row, stream_keys, workbench) for row in rows}
    version = ", rubric_version" if table == "ratings" else ""
    # The stream's key columns vary with the table, hence rows by column name, not records.
    # A stream's rows share its first key, so each chunk of first keys holds whole streams.
    current: dict[tuple, str] = {}
    for among, params in keys.filters(stream_keys[0], "first", [k[0] for k in wanted]):
        found = dicts(
            con.execute(
                f"""
            SELECT {", ".join(stream_keys)}{version}, {id_column}, created_utc FROM {table}
            WHERE {among} AND NOT superseded
            ORDER BY created_utc""",
                params,
            )
        )
        for row in found:
            stream = _stream(row, stream_keys, workbench)
            if stream in wanted:
                current[stream] = row[id_column]
    return current


def _chain_supersedes(con: Connection, table: str, rows: list[dict[str, Any]]) -> None:
    """Point each new row at the row it replaces: the stream's current row, or an earlier row
    of the same batch."""
    stream_keys = STREAM_KEYS[table]
    id_column = TABLES[table].id_column
    workbench = _workbench_versions(con, table)
    latest = _current_ids(con, table, rows, workbench)
    for row in sorted(rows, key=lambda r: r["created_utc"]):
        stream = _stream(row, stream_keys, workbench)
        previous = latest.get(stream)
        if row.get("supersedes") is None and previous is not None and previous != row[id_column]:
            row["supersedes"] = previous
        latest[stream] = row[id_column]


def _timestamp(row: Row) -> datetime:
    value = row.get("created_utc")
    if value is None:
        return utc_now()
    return datetime.fromisoformat(value) if isinstance(value, str) else value


def insert_rows(con: Connection, table: str, rows: Sequence[Row]) -> int:
    """Insert rows not yet stored; return how many were new. The caller owns the transaction."""
    if not rows:
        return 0
    id_column, columns = TABLES[table]
    # Only rows that are new count: a replayed row must not re-chain its stream.
    stored = _stored_ids(con, table, [row[id_column] for row in rows])
    unique: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row[id_column] not in stored:
            unique.setdefault(row[id_column], {**row, "created_utc": _timestamp(row)})
    fresh = list(unique.values())
    if not fresh:
        return 0
    if table in STREAM_KEYS:
        _chain_supersedes(con, table, fresh)
    con.register("_batch", _arrow(fresh, columns))
    try:
        names = ", ".join(columns)
        con.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM _batch")
    finally:
        con.unregister("_batch")
    if table in STREAM_KEYS:
        named = {row["supersedes"] for row in fresh if row.get("supersedes") is not None}
        mark_superseded(con, table, ids=sorted(named | {row[id_column] for row in fresh}))
    if table == "ratings":
        shelve(con, fresh)
    return len(fresh)


def shelve(con: Connection, rows: Sequence[Row]) -> None:
    """Keep the `shelved` flag (`store/shelved.py`) of the streams these judge ratings join."""
    judged: dict[str, set[str]] = {}
    for row in rows:
        if row.get("rater_kind") == "llm":
            judged.setdefault(row["rubric"], set()).add(row["response_id"])
    for rubric, response_ids in sorted(judged.items()):
        shelved.refresh(con, rubric=rubric, response_ids=sorted(response_ids))


def mark_superseded(
    con: Connection, table: str, *, ids: Sequence[str] | None = None, relation: str | None = None
) -> None:
    """Set `superseded` on the rows of `table` ("ratings", "preferences") that a row names in
    `supersedes`, after a write: the current views (`migrations_late.m010_superseded_flag`) read
    the flag, so every writer of those tables calls this in the write's transaction.

    Only rows named by or naming the rows written can change: `ids` are those rows' ids and
    the ids they name, or `relation` (code, never input) is a table of the rows written, with
    the id column and `supersedes`; neither: the whole table (a bulk insert in SQL). A row
    written before the row it names is in the first case too. With `ids`, bound lists
    (`keys.filters`) filter the columns as both stores scan them (milliseconds on 4M ratings,
    where a join reads the whole id column)."""
    id_column = TABLES[table].id_column
    if ids is not None:
        named = [
            row[0]
            for among, params in keys.filters("supersedes", "id", ids)
            for row in con.execute(
                f"SELECT DISTINCT supersedes FROM {table} WHERE {among}", params
            ).fetchall()
        ]
        keys.set_flag(con, table, "superseded", id_column, named)
        return
    among = "true"
    if relation is not None:
        among = f"""supersedes IN (
            SELECT {id_column} FROM {relation} UNION ALL SELECT supersedes FROM {relation})"""
    con.execute(
        f"""UPDATE {table} SET superseded = true WHERE NOT superseded AND {id_column} IN (
            SELECT supersedes FROM {table} WHERE supersedes IS NOT NULL AND {among})"""
    )


def _stored_ids(con: Connection, table: str, ids: Sequence[str]) -> set[str]:
    id_column = TABLES[table].id_column
    # Bound lists let both stores filter the id column as they scan (8 ms on 4M ratings in a
    # file), where a join with a registered Arrow table reads the whole column (160 ms).
    return {
        row[0]
        for among, params in keys.filters(id_column, "id", ids)
        for row in con.execute(f"SELECT {id_column} FROM {table} WHERE {among}", params).fetchall()
    }


def ensure_dataset(con: Connection, dataset: Dataset) -> None:
    con.execute(
        "INSERT INTO datasets (name, description, source, created_utc) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (name) DO NOTHING",
        [dataset.name, dataset.description, dataset.source, utc_now()],
    )


def add_items(con: Connection, items: Sequence[Item]) -> int:
    """Small batches of items from code (tests, the UI); files go through the importer."""
    for name in sorted({item.dataset for item in items}):
        ensure_dataset(con, Dataset(name))
    return insert_rows(con, "items", [record_row(i) for i in items])


def add_responses(con: Connection, responses: Sequence[Response]) -> int:
    return insert_rows(con, "responses", [record_row(r) for r in responses])


def add_ratings(con: Connection, ratings: Sequence[Rating]) -> int:
    return insert_rows(con, "ratings", [record_row(r) for r in ratings])


def add_preferences(con: Connection, preferences: Sequence[Preference]) -> int:
    return insert_rows(con, "preferences", [record_row(p) for p in preferences])


def add_judge_calls(con: Connection, calls: Sequence[JudgeCall]) -> int:
    return insert_rows(con, "judge_calls", [record_row(c) for c in calls])


def delete_dataset(con: Connection, name: str) -> None:
    """Remove a dataset and everything that hangs off it. The caller owns the transaction."""
    con.execute(
        "DELETE FROM ratings WHERE response_id IN "
        "(SELECT response_id FROM responses WHERE dataset = ?)",
        [name],
    )
    con.execute(
        "DELETE FROM preferences WHERE item_id IN (SELECT item_id FROM items WHERE dataset = ?)",
        [name],
    )
    con.execute(
        "DELETE FROM judge_calls WHERE response_id IN "
        "(SELECT response_id FROM responses WHERE dataset = ?) "
        "OR item_id IN (SELECT item_id FROM items WHERE dataset = ?)",
        [name, name],
    )
    con.execute(
        "DELETE FROM probes WHERE item_id IN (SELECT item_id FROM items WHERE dataset = ?)",
        [name],
    )
    con.execute(
        "DELETE FROM anchors WHERE response_id IN "
        "(SELECT response_id FROM responses WHERE dataset = ?)",
        [name],
    )
    con.execute(
        "DELETE FROM epoch_ratings WHERE response_id IN "
        "(SELECT response_id FROM responses WHERE dataset = ?)",
        [name],
    )
    con.execute(
        "DELETE FROM tag_labels WHERE response_id IN "
        "(SELECT response_id FROM responses WHERE dataset = ?)",
        [name],
    )
    con.execute(
        "DELETE FROM auto_scores WHERE response_id IN "
        "(SELECT response_id FROM responses WHERE dataset = ?)",
        [name],
    )
    con.execute("DELETE FROM reference_rules WHERE dataset = ?", [name])
    con.execute("DELETE FROM responses WHERE dataset = ?", [name])
    con.execute("DELETE FROM items WHERE dataset = ?", [name])
    con.execute("DELETE FROM datasets WHERE name = ?", [name])


# The answers a row of each table names (a preference names two). A row naming an answer the
# database does not have (its dataset deleted meanwhile) is an orphan.
RESPONSE_REFERENCES: dict[str, tuple[str, ...]] = {
    "ratings": ("response_id",),
    "preferences": ("response_a", "response_b"),
    "judge_calls": ("response_id", "response_a", "response_b"),
    "probes": ("response_id", "response_a", "response_b"),
    "anchors": ("response_id",),
    "epoch_ratings": ("response_id",),
    "tag_labels": ("response_id",),
}


def split_orphans(
    con: Connection, grouped: Mapping[str, Sequence[Row]]
) -> tuple[dict[str, list[Row]], dict[str, list[Row]]]:
    """The rows whose answers exist, and the orphans, by table."""
    named = {
        row[column]
        for table, rows in grouped.items()
        for row in rows
        for column in RESPONSE_REFERENCES.get(table, ())
        if row.get(column) is not None
    }
    found = {
        r[0]
        for among, params in keys.filters("response_id", "id", named)
        for r in con.execute(f"SELECT response_id FROM responses WHERE {among}", params).fetchall()
    }
    kept: dict[str, list[Row]] = {}
    orphans: dict[str, list[Row]] = {}
    for table, rows in grouped.items():
        for row in rows:
            missing = any(
                row.get(c) is not None and row[c] not in found
                for c in RESPONSE_REFERENCES.get(table, ())
            )
            (orphans if missing else kept).setdefault(table, []).append(row)
    return kept, orphans
