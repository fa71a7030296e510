"""The one paging rule of the Failures list and the two queues: a window past the end of the
list moves back to the last page (or the last item); an empty list gives nothing at 0."""

from __future__ import annotations

import pytest

from dashboard.review.paging import Paged, paged
from dashboard.store.rows import Window


class Listing:
    """A list of `n` numbers served in windows, like a window query; it records its calls."""

    def __init__(self, n: int) -> None:
        self.values = list(range(n))
        self.calls: list[tuple[str, ...]] = []

    def fetch(self, offset: int, limit: int) -> Window[int]:
        self.calls.append(("fetch", str(offset), str(limit)))
        rows = tuple(self.values[offset : offset + limit])
        return Window(rows, len(self.values) if rows else None)

    def count(self) -> int:
        self.calls.append(("count",))
        return len(self.values)


def _paged(listing: Listing, *, offset: int, limit: int, step: int = 1) -> Paged[int]:
    return paged(listing.fetch, listing.count, offset=offset, limit=limit, step=step)


def test_an_empty_list_gives_no_rows_at_offset_0() -> None:
    for offset in (0, 5):
        assert _paged(Listing(0), offset=offset, limit=3, step=3) == Paged((), 0, 0)
    assert _paged(Listing(0), offset=2, limit=1) == Paged((), 0, 0)


def test_a_window_in_range_costs_one_query() -> None:
    listing = Listing(7)
    assert _paged(listing, offset=3, limit=3, step=3) == Paged((3, 4, 5), 7, 3)
    assert listing.calls == [("fetch", "3", "3")]
    # The last, short page.
    assert _paged(Listing(7), offset=6, limit=3, step=3) == Paged((6,), 7, 6)


@pytest.mark.parametrize("offset", [-4, 0])
def test_a_negative_offset_is_the_start(offset: int) -> None:
    assert _paged(Listing(7), offset=offset, limit=2) == Paged((0, 1), 7, 0)


def test_past_the_end_of_pages_shows_the_last_page() -> None:
    # 7 rows in pages of 3: pages start at 0, 3 and 6, so the last page is row 6 alone.
    listing = Listing(7)
    assert _paged(listing, offset=30, limit=3, step=3) == Paged((6,), 7, 6)
    assert listing.calls == [("fetch", "30", "3"), ("count",), ("fetch", "6", "3")]
    # 6 rows: the last page is full (rows 3 to 5).
    assert _paged(Listing(6), offset=6, limit=3, step=3) == Paged((3, 4, 5), 6, 3)


def test_past_the_end_of_a_queue_shows_the_last_item() -> None:
    assert _paged(Listing(5), offset=9, limit=1) == Paged((4,), 5, 4)
    # A longer window still starts at the last item.
    assert _paged(Listing(5), offset=9, limit=20) == Paged((4,), 5, 4)
