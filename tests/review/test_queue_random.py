"""The random annotation queue's window, taken without scoring every response first, is the
one the scored queue gives: the same responses in the same order, the same scores and counts,
the same total, for people with labels, changes and withdrawals, skips, filters and offsets."""

from __future__ import annotations

import dataclasses

import pytest

from dashboard.review import annotation, edits, queue_sql
from dashboard.review.annotation import QueueRequest
from tests import builders

TASKS = ("open_qa", "open_qa_context", "conversational_qa")


@pytest.fixture
def labelled(sample_store):
    """kim rated three answers, changed one and withdrew another; yan rated one of them."""
    request = QueueRequest(rubric="likert-rag", annotator="kim", task_types=TASKS)
    entries = annotation.annotation_queue(sample_store, request, limit=4).entries
    rated = [builders.rating(e, "kim", 1 + n, kind="human") for n, e in enumerate(entries[:3])]
    sample_store.add_ratings(rated)
    sample_store.add_ratings([dataclasses.replace(rated[0], rating_id="kim-change", value=5.0)])
    edits.withdraw(sample_store, rated[1])
    sample_store.add_ratings([builders.rating(entries[3], "yan", 2, kind="human")])
    return sample_store, [e.response_id for e in entries]


@pytest.mark.parametrize("person", ["kim", "yan", "nobody"])
@pytest.mark.parametrize("seed", [0, 7])
@pytest.mark.parametrize(("dataset", "tasks"), [(None, TASKS), ("eo-rag", ()), ("eo-mcqa", ())])
def test_the_random_window_is_the_scored_one(labelled, person, seed, dataset, tasks):
    store, ids = labelled
    request = QueueRequest(
        rubric="likert-rag",
        annotator=person,
        dataset=dataset,
        task_types=tasks,
        seed=seed,
        exclude=(ids[3],),
    )
    with store.connection() as con:
        total = queue_sql.count_queue(con, request)
        scored_total = int(
            con.execute(
                f"SELECT count(*) FROM ({queue_sql.SCORED}) {queue_sql._QUEUE_WHERE}",
                queue_sql._queue_params(request),
            ).fetchone()[0]
        )
        assert total == scored_total
        for offset, limit in ((0, 1), (0, 25), (3, 5), (total, 1)):
            fast = queue_sql.queue_rows(con, request, limit=limit, offset=offset)
            scored = queue_sql.scored_queue_rows(con, request, limit=limit, offset=offset)
            assert fast == scored
            if offset < total:
                assert fast.rows and fast.total == total
        everything = queue_sql.queue_rows(con, request, limit=total + 1, offset=0).rows
    assert len(everything) == total and len({e.response_id for e in everything}) == total
    if person == "kim" and dataset is None:
        # kim's rated, changed and withdrawn answers, and the skipped one, are not offered
        assert total > 0 and not set(ids) & {e.response_id for e in everything}
