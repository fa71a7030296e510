"""Query results as named rows: each query's columns fill the fields of a frozen record by name.

Every SQL function of a feature returns records (frozen dataclasses or named tuples) that a
caller reads by attribute, never tuples that it indexes by position:

    @dataclass(frozen=True)
    class SystemCount:
        system: str
        n_responses: int

    rows = fetch(con.execute("SELECT system, count(*) AS n_responses ...", params), SystemCount)

A column the record does not name is an error (the query and the record drifted apart), and
so is a field the query does not return, unless the field has a default.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, TypeVar

R = TypeVar("R")


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


def fetch(cursor: Any, record: type[R]) -> list[R]:
    """Every row of an executed statement as a `record`, filled by column name."""
    columns = _columns(cursor)
    _check(columns, record)
    return [record(**dict(zip(columns, row))) for row in cursor.fetchall()]


def fetch_one(cursor: Any, record: type[R]) -> R | None:
    """The first row as a `record`, or None when there is none."""
    columns = _columns(cursor)
    _check(columns, record)
    row = cursor.fetchone()
    return None if row is None else record(**dict(zip(columns, row)))


def scalar(cursor: Any) -> Any:
    """The single value of a statement that returns one row of one column (a count, say).

    A statement that returns no row is a bug in the query, not data: it raises."""
    row = cursor.fetchone()
    if row is None:
        raise LookupError("the statement returned no row")
    return row[0]


def dicts(cursor: Any) -> list[dict[str, Any]]:
    """Every row as a dict keyed by column name, for rows whose columns vary (a prompt's
    template values, say); a record with fixed fields uses `fetch`."""
    names = _columns(cursor)
    return [dict(zip(names, row)) for row in cursor.fetchall()]
