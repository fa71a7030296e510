"""Query results as named rows: each query's columns fill the fields of a frozen record by name.

Every SQL function of a feature returns records (frozen dataclasses or named tuples) that a
caller reads by attribute, never tuples that it indexes by position:

    @dataclass(frozen=True)
    class SystemCount:
        system: str
        n_responses: int

    rows = fetch(con.execute("SELECT system, count(*) AS n_responses ...", params), SystemCount)

A column the record does not name is an error (the query and the record drifted apart), and
so is a field the query does not return, unless the field has a default. `convert` turns a
column's value into the field's type by name (a list into a tuple, a list of structs into
records); a page of rows that also carries the length of the whole list comes as a `Window`,
from a query that `window_sql` writes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

R = TypeVar("R")
Convert = Mapping[str, Callable[[Any], Any]]


def _columns(cursor: Any) -> list[str]:
    return [d[0] for d in cursor.description]


def _field_names(record: type) -> tuple[frozenset[str], frozenset[str]]:
    """(every field, the required fields) of a dataclass or a named tuple."""
    if dataclasses.is_dataclass(record):
        fields = dataclasses.fields(record)
        required = {
            f.name
            for f in fields
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        }
        return frozenset(f.name for f in fields), frozenset(required)
    names = getattr(record, "_fields", None)
    if names is None:
        raise TypeError(f"{record!r} is neither a dataclass nor a named tuple")
    defaults = getattr(record, "_field_defaults", {})
    return frozenset(names), frozenset(n for n in names if n not in defaults)


def _check(columns: Sequence[str], record: type) -> None:
    every, required = _field_names(record)
    extra = [c for c in columns if c not in every]
    missing = sorted(required - set(columns))
    if extra or missing:
        raise TypeError(
            f"query columns do not fit {record.__name__}: "
            f"not fields {extra or 'none'}, not returned {missing or 'none'}"
        )


def _builder(
    columns: Sequence[str], record: type[R], convert: Convert | None
) -> Callable[[Sequence[Any]], R]:
    """A function that makes a `record` of one row of `columns`."""
    _check(columns, record)
    convert = convert or {}
    unknown = sorted(set(convert) - set(columns))
    if unknown:
        raise TypeError(f"cannot convert {unknown}: the query does not return them")

    def build(row: Sequence[Any]) -> R:
        values = dict(zip(columns, row))
        for name, to_field in convert.items():
            values[name] = to_field(values[name])
        return record(**values)

    return build


def fetch(cursor: Any, record: type[R], *, convert: Convert | None = None) -> list[R]:
    """Every row of an executed statement as a `record`, filled by column name; `convert`
    maps a column's name to a function applied to its value first."""
    build = _builder(_columns(cursor), record, convert)
    return [build(row) for row in cursor.fetchall()]


def fetch_one(cursor: Any, record: type[R], *, convert: Convert | None = None) -> R | None:
    """The first row as a `record`, or None when there is none."""
    build = _builder(_columns(cursor), record, convert)
    row = cursor.fetchone()
    return None if row is None else build(row)


@dataclass(frozen=True)
class Window(Generic[R]):
    """Some rows of a list (a LIMIT and OFFSET) and how many rows the whole list has.

    `total` is None when the window is empty: no row was there to carry it."""

    rows: tuple[R, ...]
    total: int | None


def window_sql(listed: str, *, order: str, columns: str = "*") -> str:
    """A query for the rows `$offset` to `$offset + $limit` of the list `listed` (a SELECT) in
    `order`, with `columns` and the length of the whole list in a column `total`: what
    `fetch_window` reads. The list is counted once, by a scalar subquery on the same
    materialized rows, in the same statement, so that a page and its count agree.

    Not `count(*) OVER ()`: DuckDB 1.5.5's window operator now and then fails on such a
    query ("INTERNAL Error: Attempted to access index 0 within vector of size 0" from
    `WindowLocalSourceState::Finalize`, a race between its threads: duckdb/duckdb#22352,
    #25713), and an internal error invalidates the database instance for the process."""
    return (
        f"WITH _listed AS MATERIALIZED ({listed}) "
        f"SELECT {columns}, (SELECT count(*) FROM _listed) AS total FROM _listed "
        f"ORDER BY {order} LIMIT $limit OFFSET $offset"
    )


def fetch_window(cursor: Any, record: type[R], *, convert: Convert | None = None) -> Window[R]:
    """The rows of a window as `record`s, from a query that also returns the length of the
    whole list in a column `total` (a query `window_sql` wrote), so that a page and its
    count cost one query."""
    columns = _columns(cursor)
    if "total" not in columns:
        raise TypeError("the query returns no 'total' column: write it with rows.window_sql")
    fields = [c for c in columns if c != "total"]
    build = _builder(fields, record, convert)
    rows = [dict(zip(columns, row)) for row in cursor.fetchall()]
    return Window(
        tuple(build([row[c] for c in fields]) for row in rows),
        rows[0]["total"] if rows else None,
    )


def scalar(cursor: Any) -> Any:
    """The single value of a statement that returns one row of one column (a count, say).

    A statement that returns no row is a bug in the query, not data: it raises. The result
    is read to its end, so that the connection is free for a relation (`con.sql`) next: this
    DuckDB refuses one while an executed statement has a row left to fetch."""
    rows = cursor.fetchall()
    if not rows:
        raise LookupError("the statement returned no row")
    return rows[0][0]


def dicts(cursor: Any) -> list[dict[str, Any]]:
    """Every row as a dict keyed by column name, for rows whose columns vary (a prompt's
    template values, say); a record with fixed fields uses `fetch`."""
    names = _columns(cursor)
    return [dict(zip(names, row)) for row in cursor.fetchall()]
