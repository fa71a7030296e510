"""Query results as named rows: each query's columns become the fields of a record, by name."""

from __future__ import annotations

from typing import Any


def dicts(cursor: Any) -> list[dict[str, Any]]:
    """Every row of an executed statement as a dict keyed by column name."""
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]
