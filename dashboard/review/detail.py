"""One answer's full detail: the item, the response and its whole rating history.

The detail keeps the whole rating history of a response: superseded rows stay, and a
person's override sits beside the judge's rating it contradicts, which remains visible.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dashboard.review import detail_sql as sql
from dashboard.store import Store
from dashboard.types import Item, Rating, Response


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


@dataclass(frozen=True)
class ResponseDetail:
    item: Item
    response: Response
    ratings: tuple[RatingEntry, ...]  # oldest first

    @property
    def judge_ratings(self) -> tuple[RatingEntry, ...]:
        return tuple(e for e in self.ratings if e.rating.rater_kind == "llm")

    @property
    def human_ratings(self) -> tuple[RatingEntry, ...]:
        return tuple(e for e in self.ratings if e.rating.rater_kind == "human")

    def find(self, rating_id: str) -> RatingEntry | None:
        return next((e for e in self.ratings if e.rating.rating_id == rating_id), None)


def _json(text: str | None, default: Any) -> Any:
    return json.loads(text) if text else default


def item_and_response(row: Mapping[str, Any]) -> tuple[Item, Response]:
    """The records of a `browse_sql.response_rows` row."""
    item = Item(
        item_id=row["item_id"],
        dataset=row["dataset"],
        task_type=row["task_type"],
        question=row["question"],
        reference_answers=tuple(row["reference_answers"] or ()),
        reference_context=row["reference_context"],
        document=row["document"],
        candidate_answer=row["candidate_answer"],
        options=tuple(row["options"] or ()),
        gold_letters=tuple(row["gold_letters"] or ()),
        hallucination_gold=row["hallucination_gold"],
        history=tuple(_json(row["history"], ())),
        external_id=row["external_id"],
        metadata=_json(row["item_metadata"], {}) or {},
    )
    response = Response(
        row["response_id"],
        row["item_id"],
        row["dataset"],
        row["system"],
        row["answer"],
        tuple(row["contexts"] or ()),
        _json(row["response_metadata"], {}) or {},
    )
    return item, response


_RATING_FIELDS = tuple(Rating.__dataclass_fields__)


def _entry(row: Mapping[str, Any]) -> RatingEntry:
    rating = Rating(**{name: row[name] for name in _RATING_FIELDS})
    return RatingEntry(
        rating,
        row["superseded_by"] is None,
        row["superseded_by"],
        tuple(row["overridden_by"] or ()),
    )


def response_detail(store: Store, response_id: str) -> ResponseDetail | None:
    """The item, the answer and every rating of it (None if there is no such response)."""
    with store.connection() as con:
        rows = sql.response_rows(con, [response_id])
        history = sql.rating_history(con, response_id) if rows else []
    if not rows:
        return None
    item, response = item_and_response(rows[0])
    return ResponseDetail(item, response, tuple(_entry(row) for row in history))


def describe_time(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") + " UTC" if moment else ""
