"""The Failures list: one page of answers at a time, worst score first, with its filters.

The Failures and Annotate pages call these through `ui.cached`; the SQL is in
`failures_sql.py` and returns one page of rows at a time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dashboard.review import failures_sql as sql
from dashboard.review.failures_sql import FailureRow, FilterOptions
from dashboard.review.paging import paged
from dashboard.review.requests import FailureFilter
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


def failures(
    store: Store, selection: FailureFilter, *, page: int = 1, page_size: int = PAGE_SIZE
) -> FailurePage:
    """One page of the Failures list, worst first; an out-of-range page is clamped (past
    the end: the last page)."""
    with store.connection() as con:
        found = paged(
            lambda offset, limit: sql.failure_rows(con, selection, limit=limit, offset=offset),
            lambda: sql.count_failures(con, selection),
            offset=(max(1, page) - 1) * page_size,
            limit=page_size,
            step=page_size,
        )
    return FailurePage(found.rows, found.total, found.offset // page_size + 1, page_size)


def filter_options(
    store: Store, *, dataset: str | None, rubric: str | None = None
) -> FilterOptions:
    with store.connection() as con:
        return sql.filter_options(con, dataset=dataset, rubric=rubric)
