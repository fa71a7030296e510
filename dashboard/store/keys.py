"""Lookups by key that an index serves on PostgreSQL, and the indexes they reach.

A write looks rows up by id: is this rating stored already, which row is the current one of
its stream, which rows does it supersede. On a DuckDB file, scanning the id column with a
bound list is milliseconds. On PostgreSQL, DuckDB's extension sends to the server only the
filters it can write as PostgreSQL SQL: `col = 'x'` (compared `COLLATE "C"`) and
`col IN ('x', 'y')` (compared under the column's collation); a semi-join with a bound list
(`col IN (SELECT unnest($ids))`) is not one of them, so the whole table was copied out of
PostgreSQL for each lookup (2-7 s on 4M ratings, a save 10-22 s).

So a lookup by key is written here once, as IN lists of bound values (`among`, `filters`),
at most `CHUNK` values a statement, which both stores filter while scanning (a file scans
5,000 as fast as with the semi-join); and on PostgreSQL migration 27 (`m027_server_keys`)
gives the key columns of the large tables the "C" collation (so that both forms of the filter
compare as the index does; ids compare the same under any deterministic collation) and an
index each. A DuckDB file needs neither: the migration is recorded there and does nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from dashboard.store.rows import fetch

R = TypeVar("R")

# The name under which every process's DuckDB attaches a PostgreSQL store (`server.py`).
ALIAS = "pg"
# What a NUL character in a text becomes on PostgreSQL (its text type cannot hold one).
NUL_REPLACEMENT = "\ufffd"
# Values of one IN list: DuckDB pushes lists of this size to PostgreSQL as they are.
CHUNK = 5000

# The columns looked up by key, per table: each gets an index on PostgreSQL.
KEYED: dict[str, tuple[str, ...]] = {
    "items": ("item_id", "dataset"),
    "responses": ("response_id", "item_id", "dataset"),
    "ratings": ("rating_id", "response_id", "supersedes"),
    "preferences": ("preference_id", "item_id", "supersedes"),
    "judge_calls": ("call_id", "response_id", "item_id"),
    "auto_scores": ("response_id",),
    "epoch_ratings": ("epoch_rating_id", "response_id"),
    "tag_labels": ("tag_id", "response_id", "supersedes"),
    "campaign_items": ("campaign", "response_id"),
    "campaign_holds": ("campaign", "response_id"),
}


def chunks(values: Sequence[Any], size: int = CHUNK) -> Iterator[list[Any]]:
    """The values in lists of at most `size` (none for no values)."""
    for start in range(0, len(values), size):
        yield list(values[start : start + size])


def filters(column: str, name: str, values: Iterable[Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """`among` for each chunk of the distinct values, in order (none for no values)."""
    for part in chunks(sorted(set(values))):
        yield among(column, name, part)


def among(column: str, name: str, values: Sequence[Any]) -> tuple[str, dict[str, Any]]:
    """`column IN ($name_0, …)` and its parameters, for at most `CHUNK` values (see `chunks`);
    `name` is code, never input. No values: a filter that holds for no row."""
    if len(values) > CHUNK:
        raise ValueError(f"an IN list of {len(values)} values: split it with chunks()")
    if not values:
        return "false", {}
    names = [f"{name}_{i}" for i in range(len(values))]
    sql = f"{column} IN ({', '.join('$' + n for n in names)})"
    return sql, dict(zip(names, values, strict=True))


def on_server(con: Any) -> bool:
    """Whether this connection's tables are a PostgreSQL store's."""
    return bool(con.execute("SELECT current_database() = ?", [ALIAS]).fetchone()[0])


@contextmanager
def by_key(con: Any) -> Iterator[None]:
    """The block's reads are lookups by key: on a server, each scan is one query
    (`pg_use_ctid_scan` off) rather than one a range of 1,000 pages.

    DuckDB's extension reads a PostgreSQL table in ranges of pages (`ctid BETWEEN …`) that
    its threads share, and PostgreSQL answers a range with the key filter by reading the
    range, not the index: 250 ranges, about 2 s, to find one response's ratings among 4M,
    where one query is one index scan (2 ms). A whole-table read keeps its ranges (a plan of
    the Overview's took minutes without them), so this is for lookups only: writes (every
    `transaction`) and the reads of one answer or a few."""
    if not on_server(con):
        yield
        return
    con.execute("SET pg_use_ctid_scan = false")
    try:
        yield
    finally:
        con.execute("SET pg_use_ctid_scan = true")


def fetch_by_key(
    con: Any,
    query: str,
    column: str,
    values: Iterable[Any],
    record: type[R],
    params: dict[str, Any] | None = None,
) -> list[R]:
    """The rows of `query` whose `column` is among `values`, as `record`s: its `{among}`
    placeholder takes the filter, a chunk at a time, in a block of lookups by key
    (`by_key`); `query` and `column` are code, never input."""
    with by_key(con):
        return [
            row
            for among_sql, bound in filters(column, "id", values)
            for row in fetch(
                con.execute(query.format(among=among_sql), (params or {}) | bound), record
            )
        ]


def set_flag(con: Any, table: str, flag: str, column: str, values: Iterable[str]) -> None:
    """`UPDATE table SET flag = true WHERE column IN values AND NOT flag`, in the caller's
    transaction; `table`, `flag` and `column` are code, never input.

    DuckDB's extension updates PostgreSQL rows by joining them on `ctid` to a table of the
    new values, which PostgreSQL runs as a scan of the whole table (1-2 s on 4M ratings); so
    on a server the statement is sent as PostgreSQL's own SQL, which the index answers."""
    server = on_server(con)
    for among_sql, params in filters(column, "v", values):
        statement = f"UPDATE {table} SET {flag} = true WHERE {among_sql} AND NOT {flag}"
        if not server:
            con.execute(statement, params)
            continue
        listed = ", ".join(_literal(str(v)) for v in params.values())
        statement = f"UPDATE {table} SET {flag} = true WHERE {column} IN ({listed}) AND NOT {flag}"
        con.execute("CALL postgres_execute(?, ?)", [ALIAS, statement])


def _literal(value: str) -> str:
    """A PostgreSQL string literal of `value`, quoted as the extension quotes the filters it
    sends (standard-conforming strings: a quote doubled, a backslash as it is); a NUL is
    stored as `NUL_REPLACEMENT` on a server, so it is looked up as one."""
    return "'" + value.replace("\x00", NUL_REPLACEMENT).replace("'", "''") + "'"


def statements() -> list[str]:
    """PostgreSQL's own SQL that makes the key columns "C"-collated and indexed (each
    statement may run again)."""
    found = []
    for table, columns in KEYED.items():
        collated = ", ".join(
            f'ALTER COLUMN {column} TYPE varchar COLLATE "C"' for column in columns
        )
        found.append(f"ALTER TABLE {table} {collated}")
        for column in columns:
            found.append(f"CREATE INDEX IF NOT EXISTS {table}_{column}_key ON {table} ({column})")
    return found


def m027_server_keys(con: Any) -> None:
    # Indexes for lookups by key on a PostgreSQL store (this module). A DuckDB file needs
    # none: the migration is recorded there and does nothing.
    on_server = getattr(con, "postgres_execute", None)
    if on_server is None:
        return
    for statement in statements():
        on_server(statement)
