"""The window of a list that a page shows, kept inside the list.

The Failures list pages through its rows; the annotation and pairwise queues step through
theirs one at a time. A list can shrink between two reruns of a page (a person labels an
answer elsewhere, a filter changes), so an offset past the end is moved back into the list:
to the last page, or to the last item. Each window query also returns the length of the
whole list (`rows.fetch_window`), so only an empty window costs a second query, the count.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from dashboard.store.rows import Window

R = TypeVar("R")


@dataclass(frozen=True)
class Paged(Generic[R]):
    """The rows shown, how many the whole list has, and the offset of the first one."""

    rows: tuple[R, ...]
    total: int
    offset: int


def paged(
    fetch: Callable[[int, int], Window[R]],
    count: Callable[[], int],
    *,
    offset: int,
    limit: int,
    step: int = 1,
) -> Paged[R]:
    """The window of `limit` rows at `offset` (a negative offset counts as 0), read with
    `fetch(offset, limit)`.

    Past the end, the window moves back to the last multiple of `step` inside the list: with
    `step` the page size, that is the last page; with 1, the last item. An empty list gives
    no rows, a total of 0 and an offset of 0. `count()` is called only for an empty window
    past the first row, where no row carried the total.
    """
    offset = max(0, offset)
    window = fetch(offset, limit)
    if window.total is not None:
        return Paged(window.rows, window.total, offset)
    total = count() if offset else 0
    last = max(0, math.ceil(total / step) - 1) * step
    rows = fetch(last, limit).rows if total else ()
    return Paged(rows, total, last)
