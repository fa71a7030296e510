"""The SQL of importing files: read with DuckDB's own readers, check, then insert what is new.

A file is read into a TEMP staging table inside the import's transaction (`stage_sql.py`
builds the statement for the known formats, `adapters/` for the real public sets).
Every stage has the same column names — item fields, `item_id`, response fields, and rating or
preference fields — so the inserters here serve them all: each skips ids already stored
(an anti-join, no index) and, for ratings and preferences, points a new row at the current row
of its stream the way `writes.insert_rows` does. The caller owns the transaction.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from dashboard.ingest import imports_sql
from dashboard.ingest.read_sql import columns_of, execute
from dashboard.store import shelved
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch, fetch_one, scalar
from dashboard.store.writes import STREAM_KEYS, mark_superseded
from dashboard.types import ITEM_FIELDS, Preference, Rating

ITEM_COLUMNS = tuple(f.name for f in ITEM_FIELDS)
RESPONSE_COLUMNS = ("response_id", "item_id", "dataset", "system", "answer", "contexts", "metadata")
# The rating and preference stages carry their records' fields (those of `Judgement` shared).
RATING_COLUMNS = tuple(f.name for f in fields(Rating))
PREFERENCE_COLUMNS = tuple(f.name for f in fields(Preference))
_STREAMS = STREAM_KEYS  # the same streams as every other writer
# The rows an imported row may supersede: a stream's current row, never a judge's rating under
# a workbench version (those chain only among themselves, as in `writes._stream`).
_CURRENT = {
    "ratings": """(SELECT * FROM ratings g WHERE NOT g.superseded AND NOT (g.rater_kind = 'llm'
        AND EXISTS (SELECT 1 FROM rubric_versions v
                    WHERE v.rubric = g.rubric AND v.rubric_version = g.rubric_version)))""",
    "preferences": "current_preferences",
}


@dataclass(frozen=True)
class Inserted:
    added: int
    offered: int  # distinct rows the file holds; offered - added were already stored
    # New ratings / preferences that took the place of an earlier row of their stream (a
    # stored one, or an earlier one of the file) without the record saying so.
    superseded: int = 0

    @property
    def skipped(self) -> int:
        return self.offered - self.added


@dataclass(frozen=True)
class Rows:
    """Staged rows and how to number them in file order (for messages; error paths only)."""

    relation: str  # a table, or a parenthesized subquery
    index: str  # SQL for a row's 0-based index in the file
    params: Mapping[str, Any] = field(default_factory=dict)


def ordered_stage(table: str = "_stage") -> Rows:
    """A stage built in file order. A table created inside a transaction numbers its rows from
    a large offset until commit, contiguously in insertion order, so the index is the rowid
    less the table's first rowid."""
    return Rows(table, f"(rowid - (SELECT min(rowid) FROM {table}))")


def reread(select_sql: str, params: Mapping[str, Any]) -> Rows:
    """The staging SELECT run again in file order, numbered. For a stage built without
    preserving order (faster, and lighter on memory); run under `preserve_insertion_order`."""
    return Rows(f"(SELECT row_number() OVER () - 1 AS _rn, * FROM ({select_sql}))", "_rn", params)


@contextmanager
def unordered(con: Connection) -> Iterator[None]:
    """Let DuckDB build the next table in any order. When the statement fails, the setting is
    left to `read_sql.bulk_write_settings`, which resets it after the rollback: in the aborted
    transaction a RESET would fail too, and its "Current transaction is aborted" would take the
    place of the real reason."""
    con.execute("SET preserve_insertion_order = false")
    yield
    con.execute("RESET preserve_insertion_order")


def has_problem(con: Connection, stage: str = "_stage") -> bool:
    return (
        con.execute(f"SELECT 1 FROM {stage} WHERE _problem IS NOT NULL LIMIT 1").fetchone()
        is not None
    )


@dataclass(frozen=True)
class Problem:
    """The first bad record of a stage: its 0-based index in the file, and its `_problem`,
    "<field>\\x1f<message>"."""

    index: int
    problem: str


def first_problem(con: Connection, rows: Rows) -> Problem | None:
    return fetch_one(
        execute(
            con,
            f"SELECT {rows.index} AS index, _problem AS problem FROM {rows.relation} "
            "WHERE _problem IS NOT NULL ORDER BY index LIMIT 1",
            rows.params,
        ),
        Problem,
    )


def record_count(con: Connection, stage: str = "_stage") -> int:
    return int(scalar(con.execute(f"SELECT count(*) FROM {stage}")))


def has_conflict(con: Connection, stage: str = "_stage") -> bool:
    """Whether two records of a dataset, or a record and a stored item, share an external id
    but not their content."""
    within = con.execute(f"""
        SELECT 1 FROM {stage} WHERE external_id IS NOT NULL
        GROUP BY dataset, external_id HAVING count(DISTINCT item_id) > 1 LIMIT 1""").fetchone()
    stored = con.execute(f"""
        SELECT 1 FROM {stage} s JOIN items i
            ON i.dataset = s.dataset AND i.external_id = s.external_id
        WHERE i.item_id <> s.item_id LIMIT 1""").fetchone()
    return within is not None or stored is not None


@dataclass(frozen=True)
class IdConflict:
    """A record whose external id an earlier record (or a stored item) of its dataset uses
    with different content: the 0-based indexes of the record and of the earlier one (-1 for
    a stored item), and the id."""

    index: int
    earlier_index: int
    external_id: str


def conflicting_id(con: Connection, rows: Rows) -> IdConflict | None:
    """The first record whose external id names other content in its dataset, if any."""
    first = f"OVER (PARTITION BY dataset, external_id ORDER BY {rows.index})"
    within = fetch_one(
        execute(
            con,
            f"""
            SELECT i AS index, first_index AS earlier_index, external_id FROM (
                SELECT {rows.index} AS i, external_id,
                       first_value({rows.index}) {first} AS first_index,
                       item_id <> first_value(item_id) {first} AS differs
                FROM {rows.relation} WHERE external_id IS NOT NULL)
            WHERE differs ORDER BY i LIMIT 1""",
            rows.params,
        ),
        IdConflict,
    )
    if within is not None:
        return within
    return fetch_one(
        execute(
            con,
            f"""
            SELECT s.i AS index, -1 AS earlier_index, s.external_id
            FROM (SELECT {rows.index} AS i, * FROM {rows.relation}) s
            JOIN items t ON t.dataset = s.dataset AND t.external_id = s.external_id
            WHERE s.external_id IS NOT NULL AND t.item_id <> s.item_id
            ORDER BY s.i LIMIT 1""",
            rows.params,
        ),
        IdConflict,
    )


def has_external_ids(con: Connection, stage: str = "_stage") -> bool:
    return scalar(con.execute(f"SELECT count(external_id) > 0 FROM {stage}")) is True


@dataclass(frozen=True)
class _Counted:
    rows: int
    ids: int  # distinct ids among the rows


def _select(
    columns: tuple[str, ...],
    present: set[str],
    *,
    json_columns: tuple[str, ...] = (),
    prefix: str = "s.",
    sources: Mapping[str, str] | None = None,
) -> str:
    """`columns` from the stage; `sources` names a stage column to read one from instead."""
    parts = []
    for column in columns:
        source = (sources or {}).get(column, column)
        if source not in present:
            parts.append(f"NULL AS {column}")
        elif column in json_columns:
            parts.append(f"to_json({prefix}{source}) AS {column}")
        else:
            parts.append(f"{prefix}{source} AS {column}")
    return ", ".join(parts)


def _insert_new(
    con: Connection,
    table: str,
    id_column: str,
    columns: tuple[str, ...],
    rows_sql: str,
    now: datetime,
) -> Inserted:
    """Insert one row of each id in `rows_sql` that is not stored yet.

    Rows with one id have the same content (the id is its hash) except what the id leaves
    out, such as metadata; the row whose leftovers sort first wins, so the choice does not
    depend on the order in which a parallel reader staged the rows.
    """
    [counted] = fetch(
        con.execute(
            f"SELECT count(*) AS rows, count(DISTINCT {id_column}) AS ids FROM ({rows_sql})"
        ),
        _Counted,
    )
    tiebreak = ", ".join(
        f"CAST({c} AS VARCHAR) NULLS FIRST" for c in ("contexts", "metadata") if c in columns
    )
    rows = (
        rows_sql
        if counted.rows == counted.ids
        else (
            f"SELECT DISTINCT ON ({id_column}) * FROM ({rows_sql}) "
            f"ORDER BY {id_column}, {tiebreak}, _ord"
        )
    )
    names = ", ".join(columns)
    added = scalar(
        con.execute(
            f"INSERT INTO {table} ({names}, created_utc) "
            f"SELECT {', '.join('s.' + c for c in columns)}, $now FROM ({rows}) s "
            f"ANTI JOIN {table} t ON t.{id_column} = s.{id_column}",
            {"now": now},
        )
    )
    imports_sql.note_rows(con, table, rows_sql, id_column)
    return Inserted(int(added), int(counted.ids))


def insert_items(con: Connection, relation: str, *, now: datetime) -> Inserted:
    present = columns_of(con, relation)
    body = _select(ITEM_COLUMNS, present, json_columns=("history",))
    rows = f"SELECT {body}, s.rowid AS _ord FROM {relation} s"
    return _insert_new(con, "items", "item_id", ITEM_COLUMNS, rows, now)


def insert_responses(
    con: Connection, relation: str, *, now: datetime, where: str = "true"
) -> Inserted:
    """One response per row, or two (`response_a`/`_b`, `system_a`/`_b`, ...) for pairs.
    A row's own `response_metadata` (`_a`/`_b`) is the response's metadata when the stage has
    it; otherwise single answers take the row's `metadata`. `where` is code."""
    present = columns_of(con, relation)
    if "response_id" in present:
        own = {"metadata": "response_metadata"} if "response_metadata" in present else {}
        body = _select(RESPONSE_COLUMNS, present, sources=own)
        rows = f"SELECT {body}, s.rowid AS _ord FROM {relation} s WHERE {where}"
    else:
        sides = []
        for n, side in enumerate(("a", "b")):
            given = {
                c: f"s.{c}_{side}" if f"{c}_{side}" in present else "NULL"
                for c in ("contexts", "response_metadata")
            }
            sides.append(
                f"SELECT s.response_{side} AS response_id, s.item_id, s.dataset, "
                f"s.system_{side} AS system, s.answer_{side} AS answer, "
                f"{given['contexts']} AS contexts, {given['response_metadata']} AS metadata, "
                f"s.rowid * 2 + {n} AS _ord FROM {relation} s WHERE {where}"
            )
        rows = " UNION ALL ".join(sides)
    return _insert_new(con, "responses", "response_id", RESPONSE_COLUMNS, rows, now)


def _insert_judgements(
    con: Connection,
    table: str,
    id_column: str,
    columns: tuple[str, ...],
    relation: str,
    now: datetime,
    where: str,
) -> Inserted:
    """Insert new ratings or preferences. A row that does not say what it supersedes replaces
    the previous new row of its stream, or else the stream's current row (as writes.py does)."""
    present = columns_of(con, relation)
    columns = tuple(c for c in columns if c != "created_utc")
    created = "coalesce(s.created_utc, $now)" if "created_utc" in present else "$now"
    body = f"{_select(columns, present)}, {created} AS created_utc, s.rowid AS _ord"
    distinct = scalar(
        con.execute(f"SELECT count(DISTINCT {id_column}) FROM {relation} s WHERE {where}")
    )
    fresh = (
        f"SELECT DISTINCT ON ({id_column}) * FROM (SELECT {body} FROM {relation} s "
        f"WHERE {where}) ORDER BY {id_column}, _ord"
    )
    stream = _STREAMS[table]
    on = " AND ".join(f"c.{k} = f.{k}" for k in stream)
    keys = ", ".join(f"f.{k}" for k in stream)
    earlier = (
        f"coalesce(lag(f.{id_column}) OVER (PARTITION BY {keys} "
        f"ORDER BY f.created_utc, f._ord), c.current_id)"
    )
    # A label whose file does not say where it was written came in by this import.
    derived = {
        "supersedes": f"coalesce(f.supersedes, {earlier}) AS supersedes",
        "source": "coalesce(f.source, 'import') AS source",
    }
    select = ", ".join(derived.get(c, f"f.{c}") for c in columns)
    execute(
        con,
        f"""
        CREATE TEMP TABLE _fresh AS
        SELECT {select}, f.created_utc,
               f.supersedes IS NULL AND {earlier} IS NOT NULL AS _implicit FROM (
            SELECT n.* FROM ({fresh}) n ANTI JOIN {table} t ON t.{id_column} = n.{id_column}) f
        LEFT JOIN (
            SELECT {", ".join("c." + k for k in stream)},
                   arg_max(c.{id_column}, c.created_utc) AS current_id
            FROM {_CURRENT[table]} c
            SEMI JOIN (SELECT DISTINCT {", ".join(stream)} FROM {relation} s WHERE {where}) f
                ON {on}
            GROUP BY ALL) c ON {on}""",
        {"now": now},
    )
    try:
        names = ", ".join(columns)
        added = scalar(
            con.execute(
                f"INSERT INTO {table} ({names}, created_utc) "
                f"SELECT {names}, created_utc FROM _fresh"
            )
        )
        superseded = scalar(con.execute("SELECT count(*) FILTER (WHERE _implicit) FROM _fresh"))
        if added:
            mark_superseded(con, table, relation="_fresh")
            if table == "ratings":
                shelved.refresh_written(con, "_fresh")
    finally:
        con.execute("DROP TABLE IF EXISTS _fresh")
    imports_sql.note_rows(
        con, table, f"SELECT {id_column} FROM {relation} s WHERE {where}", id_column
    )
    return Inserted(int(added), int(distinct), int(superseded))


def insert_ratings(
    con: Connection, relation: str, *, now: datetime, where: str = "true"
) -> Inserted:
    """Ratings from `relation` (a table with the rating stage columns); `where` is code."""
    return _insert_judgements(con, "ratings", "rating_id", RATING_COLUMNS, relation, now, where)


def insert_preferences(
    con: Connection, relation: str, *, now: datetime, where: str = "true"
) -> Inserted:
    return _insert_judgements(
        con, "preferences", "preference_id", PREFERENCE_COLUMNS, relation, now, where
    )


def datasets_of(con: Connection, relation: str) -> list[str]:
    query = f"SELECT DISTINCT dataset FROM {relation} ORDER BY dataset"
    return [dataset for (dataset,) in con.execute(query).fetchall()]
