"""The per-item aggregates built in numpy (`corrected_items`) are the rows the SQL form gives
when every item is a cluster of its own: the same rows, in the same order (the bootstrap
draws its resamples by position)."""

from __future__ import annotations

import math

import pytest

from dashboard.metrics.corrected import corrected_sql, systems as corrected
from dashboard.metrics.corrected.corrected_items import EstimateRow
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from tests.builders import item, rating, response
from tests.metrics.corrected.test_corrected import _build

# A cluster field no item has: the SQL form then makes each item its own unit.
EACH_ITEM = "no such field"


def _rows(store: Store, selection: Selection, cluster: str | None) -> list[EstimateRow]:
    resolved = corrected.with_panel(store, selection)
    with store.connection() as con:
        return corrected_sql.estimate_rows(
            con, resolved, pass_at=corrected.PASS_AT, cluster=cluster
        )


def _same(numpy_rows: list[EstimateRow], sql_rows: list[EstimateRow]) -> None:
    assert len(numpy_rows) == len(sql_rows)
    for mine, theirs in zip(numpy_rows, sql_rows, strict=True):
        assert (mine.kind, mine.system_a, mine.system_b, mine.unit, mine.mult) == (
            theirs.kind,
            theirs.system_a,
            theirs.system_b,
            theirs.unit,
            theirs.mult,
        )
        for field in ("a", "b", "c", "d"):
            x, y = getattr(mine, field), getattr(theirs, field)
            assert (x is None) == (y is None), (mine, theirs)
            assert x is None or math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12), (mine, theirs)


def test_the_rows_are_the_sql_rows_of_one_item_clusters(store: Store) -> None:
    _build(store)
    selection = Selection("toy", panel="j1")
    numpy_rows = _rows(store, selection, None)
    assert {r.kind for r in numpy_rows} == {
        "unlabelled",
        "labelled",
        "panel",
        "human",
        "unlabelled_diff",
        "moments",
        "labelled_diff",
    }
    _same(numpy_rows, _rows(store, selection, EACH_ITEM))


@pytest.mark.parametrize("cluster", [None, EACH_ITEM])
def test_every_response_gives_the_rows_of_a_filter_that_keeps_them_all(
    store: Store, cluster: str | None
) -> None:
    # Selecting every response reads `responses` alone; the toy store's one dataset, chosen,
    # goes through the selection's filters: the same responses, so the same rows.
    _build(store)
    every = Selection(panel="j1")
    assert every.selects_every_response
    _same(_rows(store, every, cluster), _rows(store, Selection("toy", panel="j1"), cluster))


@pytest.mark.parametrize("dataset", ["eo-rag", "eo-hallucination", None])
def test_the_sample_gives_the_same_rows(sample_store: Store, dataset: str | None) -> None:
    selection = Selection(dataset)
    if dataset is None:  # every dataset, its conversations too: the SQL form serves it
        with sample_store.connection() as con:
            assert corrected_sql.has_conversations(con, selection)
        return
    _same(_rows(sample_store, selection, None), _rows(sample_store, selection, EACH_ITEM))


def test_missing_scores_and_several_responses_to_an_item(store: Store) -> None:
    # Two answers of "a" to item 0 (their mean is the item's score), an answer of "b" the
    # panel did not score, and a person's label on an answer no judge rated.
    items = [item("d", n) for n in range(4)]
    a = [response(it, "a", f"x {n}") for n, it in enumerate(items)]
    extra = response(items[0], "a", "another answer")
    b = [response(it, "b", f"y {n}") for n, it in enumerate(items)]
    store.add_items(items, [*a, extra, *b])
    ratings = [rating(r, "j", 1 + n % 5) for n, r in enumerate(a)]
    ratings += [rating(extra, "j", 5), rating(b[1], "j", 2), rating(b[2], "j", 4)]
    ratings += [rating(a[0], "p", 4, kind="human", selection="random")]
    ratings += [rating(b[0], "p", 2, kind="human", selection="random")]
    ratings += [rating(b[3], "p", 3, kind="human", selection="random")]
    store.add_ratings(ratings)
    selection = Selection("d")
    _same(_rows(store, selection, None), _rows(store, selection, EACH_ITEM))
