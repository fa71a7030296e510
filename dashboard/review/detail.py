"""One answer's full detail: the item, the response and its whole rating history.

The detail keeps the whole rating history of a response: superseded rows stay, and a
person's override sits beside the judge's rating it contradicts, which remains visible.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dashboard.review import detail_sql as sql
from dashboard.review.detail_sql import RatingEntry as RatingEntry, ResponseRow
from dashboard.store import Store
from dashboard.types import Item, Response


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


def item_and_response(row: ResponseRow) -> tuple[Item, Response]:
    """The records of a `detail_sql.response_rows` row."""
    item = Item(
        item_id=row.item_id,
        dataset=row.dataset,
        task_type=row.task_type,
        question=row.question,
        reference_answers=tuple(row.reference_answers or ()),
        reference_context=row.reference_context,
        document=row.document,
        candidate_answer=row.candidate_answer,
        options=tuple(row.options or ()),
        gold_letters=tuple(row.gold_letters or ()),
        hallucination_gold=row.hallucination_gold,
        history=tuple(_json(row.history, ())),
        external_id=row.external_id,
        metadata=_json(row.item_metadata, {}) or {},
    )
    response = Response(
        response_id=row.response_id,
        item_id=row.item_id,
        dataset=row.dataset,
        system=row.system,
        answer=row.answer,
        contexts=tuple(row.contexts or ()),
        metadata=_json(row.response_metadata, {}) or {},
    )
    return item, response


def response_detail(store: Store, response_id: str) -> ResponseDetail | None:
    """The item, the answer and every rating of it (None if there is no such response)."""
    with store.connection() as con:
        rows = sql.response_rows(con, [response_id])
        history = sql.rating_history(con, response_id) if rows else []
    if not rows:
        return None
    item, response = item_and_response(rows[0])
    return ResponseDetail(item, response, tuple(history))


def describe_time(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") + " UTC" if moment else ""
