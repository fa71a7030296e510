"""Browsing answers: the paged Failures list and one answer's full detail.

The Failures and Annotate pages call these through `ui.cached`; the SQL is in
`store/browse_sql.py` and returns one page of rows at a time. The detail keeps the whole
rating history of a response: superseded rows stay, and a person's override sits beside the
judge's rating it contradicts, which remains visible.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dashboard.store import Store
from dashboard.store import browse_sql as sql
from dashboard.store.browse_sql import FailureFilter
from dashboard.types import Item, Rating, Response

__all__ = ["FailureFilter", "FailurePage", "FailureRow", "FilterOptions", "RatingEntry",
           "ResponseDetail", "failures", "filter_options", "response_detail"]

PAGE_SIZE = 20


@dataclass(frozen=True)
class FailureRow:
    """One line of the Failures list. Scores are normalized onto [0, 1]; None = no rating.

    `score` is what the list is ordered by: the effective score, or the chosen judge's.
    `question` and `answer` are previews (the detail has the full texts).
    """

    response_id: str
    item_id: str
    dataset: str
    system: str
    task_type: str
    question: str
    answer: str
    score: float | None
    effective: float | None
    panel: float | None
    human: float | None
    spread: float | None
    n_judges: int
    n_humans: int
    judge_score: float | None = None


@dataclass(frozen=True)
class FailurePage:
    rows: tuple[FailureRow, ...]
    total: int
    page: int  # 1-based, clamped into [1, n_pages]
    page_size: int

    @property
    def n_pages(self) -> int:
        return max(1, math.ceil(self.total / self.page_size))

    @property
    def first(self) -> int:
        """1-based position of the first row of this page in the whole list."""
        return (self.page - 1) * self.page_size + 1


@dataclass(frozen=True)
class FilterOptions:
    systems: tuple[str, ...]
    task_types: tuple[str, ...]
    judges: tuple[str, ...]  # the judges that rated on the rubric asked about


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


def failures(store: Store, selection: FailureFilter, *, page: int = 1,
             page_size: int = PAGE_SIZE) -> FailurePage:
    """One page of the Failures list, worst first; an out-of-range page is clamped."""
    page = max(1, page)
    with store.connection() as con:
        rows, total = sql.failure_rows(con, selection, limit=page_size,
                                       offset=(page - 1) * page_size)
        if total is None:  # an empty page: past the end (clamp to the last page), or no match
            total = sql.count_failures(con, selection) if page > 1 else 0
            page = max(1, math.ceil(total / page_size))
            if total:
                rows, _ = sql.failure_rows(con, selection, limit=page_size,
                                           offset=(page - 1) * page_size)
    return FailurePage(tuple(FailureRow(**row) for row in rows), total, page, page_size)


def filter_options(store: Store, *, dataset: str | None,
                   rubric: str | None = None) -> FilterOptions:
    with store.connection() as con:
        found = sql.filter_options(con, dataset=dataset, rubric=rubric)
    return FilterOptions(tuple(found["systems"]), tuple(found["task_types"]),
                         tuple(found["judges"]))


def _json(text: str | None, default: Any) -> Any:
    return json.loads(text) if text else default


def item_and_response(row: Mapping[str, Any]) -> tuple[Item, Response]:
    """The records of a `browse_sql.response_rows` row."""
    item = Item(
        item_id=row["item_id"], dataset=row["dataset"], task_type=row["task_type"],
        question=row["question"], reference_answers=tuple(row["reference_answers"] or ()),
        reference_context=row["reference_context"], document=row["document"],
        candidate_answer=row["candidate_answer"], options=tuple(row["options"] or ()),
        gold_letters=tuple(row["gold_letters"] or ()),
        hallucination_gold=row["hallucination_gold"],
        history=tuple(_json(row["history"], ())), external_id=row["external_id"],
        metadata=_json(row["item_metadata"], {}) or {})
    response = Response(row["response_id"], row["item_id"], row["dataset"], row["system"],
                        row["answer"], tuple(row["contexts"] or ()),
                        _json(row["response_metadata"], {}) or {})
    return item, response


_RATING_FIELDS = tuple(Rating.__dataclass_fields__)


def _entry(row: Mapping[str, Any]) -> RatingEntry:
    rating = Rating(**{name: row[name] for name in _RATING_FIELDS})
    return RatingEntry(rating, row["superseded_by"] is None, row["superseded_by"],
                       tuple(row["overridden_by"] or ()))


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
