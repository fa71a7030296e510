"""The SQL of one answer's detail: the response with its item's fields, and its whole rating
history (superseded rows and overrides included).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dashboard.review.gold_sql import CURRENT_ITEMS
from dashboard.store import keys
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch
from dashboard.store.writes import RATING_COLUMNS
from dashboard.types import ITEM_FIELDS, Rating


@dataclass(frozen=True)
class ResponseRow:
    """A response with its item's fields as stored: lists may be NULL, JSON comes as text."""

    item_id: str
    dataset: str
    task_type: str
    question: str
    reference_answers: list[str] | None
    reference_context: str | None
    document: str | None
    candidate_answer: str | None
    options: list[str] | None
    gold_letters: list[str] | None
    hallucination_gold: bool | None
    history: str | None
    external_id: str | None
    item_metadata: str | None
    response_id: str
    system: str
    answer: str
    contexts: list[str] | None
    response_metadata: str | None


@dataclass(frozen=True)
class RatingEntry:
    """A stored rating with where it stands in its history.

    `current` is False once a later row of the same rater supersedes it; `overridden_by`
    lists the people's ratings that contradict this (judge) rating.
    """

    rating: Rating
    current: bool
    superseded_by: str | None = None
    overridden_by: tuple[str, ...] = ()

    @property
    def normalized(self) -> float | None:
        r = self.rating
        if r.value is None or r.scale_high == r.scale_low:
            return None
        return (r.value - r.scale_low) / (r.scale_high - r.scale_low)


# The item's fields under their file names (`dashboard.types.ITEM_FIELDS`), JSON as text.
_ITEM_COLUMNS = ", ".join(
    f"i.{f.name}{'::VARCHAR' if f.sql_type == 'JSON' else ''} AS {f.file_column}"
    for f in ITEM_FIELDS
)
_DETAIL_COLUMNS = f"""
    {_ITEM_COLUMNS},
    r.response_id, r.system, r.answer, r.contexts, r.metadata::VARCHAR AS response_metadata"""

# The fields of a rating row as one struct, named as those of `Rating`.
_RATING_FIELDS = ", ".join(f"{c} := g.{c}" for c in RATING_COLUMNS)


def response_rows(con: Connection, response_ids: Sequence[str]) -> list[ResponseRow]:
    """Each response with its item's fields, in no particular order.

    The responses and their items are filtered by id lists (`keys.among`), which a
    PostgreSQL store answers from its indexes rather than by reading both tables."""
    with keys.by_key(con):
        found: list[ResponseRow] = []
        for responses, params in keys.filters("r.response_id", "id", response_ids):
            item_ids = [
                row[0]
                for row in con.execute(
                    f"SELECT DISTINCT item_id FROM responses r WHERE {responses}", params
                ).fetchall()
            ]
            items, item_params = keys.among("i.item_id", "item", item_ids)
            found += fetch(
                con.execute(
                    f"SELECT {_DETAIL_COLUMNS} FROM responses r "
                    f"JOIN ({CURRENT_ITEMS}) i ON i.item_id = r.item_id AND i.dataset = r.dataset "
                    f"WHERE {responses} AND {items}",
                    params | item_params,
                ),
                ResponseRow,
            )
        return found


def _rating(fields: dict[str, Any]) -> Rating:
    return Rating(**fields)


def rating_history(con: Connection, response_id: str) -> list[RatingEntry]:
    """Every rating row of one response, superseded ones included, oldest first, with the
    row that supersedes it and the people's ratings that override it."""
    with keys.by_key(con):
        return _history(con, response_id)


def _history(con: Connection, response_id: str) -> list[RatingEntry]:
    return fetch(
        con.execute(
            f"""
        WITH mine AS (SELECT * FROM ratings WHERE response_id = $id)
        SELECT struct_pack({_RATING_FIELDS}) AS rating, s.rating_id IS NULL AS current,
               s.rating_id AS superseded_by, coalesce(o.ids, []) AS overridden_by
        FROM mine g
        LEFT JOIN mine s ON s.supersedes = g.rating_id
        LEFT JOIN (SELECT overrides, list(rating_id ORDER BY created_utc) AS ids FROM mine
                   WHERE overrides IS NOT NULL GROUP BY overrides) o
               ON o.overrides = g.rating_id
        ORDER BY g.created_utc, g.rating_id""",
            {"id": response_id},
        ),
        RatingEntry,
        convert={"rating": _rating, "overridden_by": tuple},
    )
