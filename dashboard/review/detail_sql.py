"""The SQL of one answer's detail: the response with its item's fields, and its whole rating
history (superseded rows and overrides included).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dashboard.store.connection import Connection
from dashboard.store.rows import dicts
from dashboard.types import ITEM_FIELDS

# The item's fields under their file names (`dashboard.types.ITEM_FIELDS`), JSON as text.
_ITEM_COLUMNS = ", ".join(
    f"i.{f.name}{'::VARCHAR' if f.sql_type == 'JSON' else ''} AS {f.file_column}"
    for f in ITEM_FIELDS
)
_DETAIL_COLUMNS = f"""
    {_ITEM_COLUMNS},
    r.response_id, r.system, r.answer, r.contexts, r.metadata::VARCHAR AS response_metadata"""


def response_rows(con: Connection, response_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Each response with its item's fields, in no particular order."""
    return dicts(
        con.execute(
            f"SELECT {_DETAIL_COLUMNS} FROM responses r "
            "JOIN items i ON i.item_id = r.item_id AND i.dataset = r.dataset "
            "WHERE list_contains($ids, r.response_id)",
            {"ids": list(response_ids)},
        )
    )


def rating_history(con: Connection, response_id: str) -> list[dict[str, Any]]:
    """Every rating row of one response, superseded ones included, oldest first, with the
    row that supersedes it and the people's ratings that override it."""
    return dicts(
        con.execute(
            """
        WITH mine AS (SELECT * FROM ratings WHERE response_id = $id)
        SELECT g.*, s.rating_id AS superseded_by,
               coalesce(o.ids, []) AS overridden_by
        FROM mine g
        LEFT JOIN mine s ON s.supersedes = g.rating_id
        LEFT JOIN (SELECT overrides, list(rating_id ORDER BY created_utc) AS ids FROM mine
                   WHERE overrides IS NOT NULL GROUP BY overrides) o
               ON o.overrides = g.rating_id
        ORDER BY g.created_utc, g.rating_id""",
            {"id": response_id},
        )
    )
