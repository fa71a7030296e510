"""The window queries (a page of a list and the length of the whole list) never meet DuckDB
1.5.5's window race: `count(*) OVER ()` over the pair queue, after one person's vote, failed
with "INTERNAL Error: Attempted to access index 0 within vector of size 0" in about 1 run of
200 (with 2 threads or more), and the error invalidated the database for the process. The
queries count the list with `rows.window_sql` instead; this test, on the old SQL, failed in
3 runs of 3 (after 2 to 6 s)."""

from __future__ import annotations

from dashboard.review import votes, votes_sql
from dashboard.review.requests import PairRequest
from dashboard.store import Store

# About 1 run in 200 of the old SQL failed: 1,000 runs miss the race with odds of about
# (199/200)^1000 < 1%.
RUNS = 1000
REQUEST = PairRequest("eo-rag-large", "eo-rag-small", "zoe", "eo-rag")


def test_the_pair_queue_window_stands_a_thousand_runs_on_several_threads(
    sample_store: Store,
) -> None:
    pair = votes.next_pair(sample_store, REQUEST).pair
    assert pair is not None
    votes.vote(sample_store, pair, "tie", annotator="zoe", rubric="pairwise", rubric_version="1")
    with sample_store.connection() as con:
        # The race needs two threads or more; a runner with one core has one by default.
        con.execute("SET threads = 4")
        try:
            expected = votes_sql.count_pairs(con, REQUEST)
            windows = {votes_sql.pair_rows(con, REQUEST, limit=1, offset=0) for _ in range(RUNS)}
            past_the_end = votes_sql.pair_rows(con, REQUEST, limit=1, offset=expected)
        finally:
            con.execute("RESET threads")
    assert expected == 39  # 40 pairs of the two systems on eo-rag, one voted on
    assert len(windows) == 1
    (window,) = windows
    assert window.total == expected and len(window.rows) == 1
    assert past_the_end.rows == () and past_the_end.total is None
