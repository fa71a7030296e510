"""The Failures list: one page of answers at a time, worst score first, with its filters.

The Failures and Annotate pages call these through `ui.cached`; the SQL is in
`failures_sql.py` and returns one page of rows at a time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dashboard.review import failures_sql as sql
from dashboard.review.failures_sql import FailureFilter
from dashboard.store import Store

__all__ = [
    "FailureFilter",
    "FailurePage",
    "FailureRow",
    "FilterOptions",
    "failures",
    "filter_options",
]

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


def failures(
    store: Store, selection: FailureFilter, *, page: int = 1, page_size: int = PAGE_SIZE
) -> FailurePage:
    """One page of the Failures list, worst first; an out-of-range page is clamped."""
    page = max(1, page)
    with store.connection() as con:
        rows, total = sql.failure_rows(
            con, selection, limit=page_size, offset=(page - 1) * page_size
        )
        if total is None:  # an empty page: past the end (clamp to the last page), or no match
            total = sql.count_failures(con, selection) if page > 1 else 0
            page = max(1, math.ceil(total / page_size))
            if total:
                rows, _ = sql.failure_rows(
                    con, selection, limit=page_size, offset=(page - 1) * page_size
                )
    return FailurePage(tuple(FailureRow(**row) for row in rows), total, page, page_size)


def filter_options(
    store: Store, *, dataset: str | None, rubric: str | None = None
) -> FilterOptions:
    with store.connection() as con:
        found = sql.filter_options(con, dataset=dataset, rubric=rubric)
    return FilterOptions(
        tuple(found["systems"]), tuple(found["task_types"]), tuple(found["judges"])
    )
