"""A PostgreSQL store's fingerprint reads change counts, not rows (`store/changes.py`), on a real
server: it moves with every committed write to a large table and only then, it never moves for
a write that changed nothing, and PostgreSQL's plan for it scans none of the large tables."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import psycopg

from dashboard.store import Store
from dashboard.store.changes import COUNTED
from dashboard.store.reads import POSTGRES_TEXTS
from dashboard.store.server import FINGERPRINT_SQL
from dashboard.types import Rating

T0 = datetime(2026, 12, 7, 12, 0, tzinfo=UTC).replace(tzinfo=None)


def _rating(rating_id: str, value: float) -> Rating:
    return Rating(
        rating_id=rating_id,
        response_id="r1",
        rater_kind="human",
        rater="ana",
        rubric="likert",
        rubric_version="1",
        value=value,
        scale_low=1.0,
        scale_high=5.0,
        created_utc=T0,
    )


def test_the_fingerprint_moves_with_each_committed_write_and_only_then(pg_url: str) -> None:
    store = Store(pg_url)
    first = store.fingerprint()
    assert store.add_ratings([_rating("x1", 4.0)]).added == 1
    second = store.fingerprint()
    assert second != first and second.n_ratings > first.n_ratings

    # A replayed rating is skipped before any statement: nothing moves.
    assert store.add_ratings([_rating("x1", 4.0)]).added == 0
    assert store.fingerprint() == second

    with psycopg.connect(pg_url) as con:
        # A statement that changed no row moves nothing either.
        con.execute("UPDATE ratings SET comment = 'x' WHERE rating_id = 'none such'")
        con.commit()
        assert store.fingerprint() == second
        # An uncommitted change is not seen; its commit is.
        con.execute("UPDATE ratings SET comment = 'seen' WHERE rating_id = 'x1'")
        assert store.fingerprint() == second
        con.commit()
    third = store.fingerprint()
    assert third != second

    with psycopg.connect(pg_url) as con:  # a delete, then a row in its place: counts stay
        con.execute("DELETE FROM ratings WHERE rating_id = 'x1'")
    fourth = store.fingerprint()
    assert store.add_ratings([_rating("x2", 4.0)]).added == 1
    assert len({third, fourth, store.fingerprint()}) == 3
    store.close()


def test_every_large_table_is_counted_and_none_is_scanned(pg_url: str) -> None:
    store = Store(pg_url)
    store.list_datasets()  # migrated
    store.close()
    with psycopg.connect(pg_url) as con:
        triggers = {
            (table, event)
            for table, event in con.execute(
                "SELECT event_object_table, event_manipulation FROM information_schema.triggers "
                "WHERE trigger_name LIKE 'judgeboard_%_counted'"
            ).fetchall()
        }
        con.execute("ANALYZE responses")  # never analyzed, the responses are counted exactly
        explained = con.execute(
            "EXPLAIN (ANALYZE, FORMAT JSON) " + FINGERPRINT_SQL.format(texts=POSTGRES_TEXTS)
        ).fetchone()
    assert explained is not None
    plan = explained[0]
    assert triggers == {(t, e) for t in COUNTED for e in ("INSERT", "UPDATE", "DELETE")}
    scanned = {
        node["Relation Name"]
        for node in _nodes(plan[0]["Plan"])
        if "Relation Name" in node and node["Actual Loops"]
    }
    assert scanned.isdisjoint(COUNTED), scanned
    assert "store_changes" in scanned and "datasets" in scanned


def _nodes(node: dict) -> list[dict]:
    found = [node]
    for child in node.get("Plans", []):
        found.extend(_nodes(child))
    return found


def test_one_save_of_a_label_counts_one_change(pg_url: str) -> None:
    store = Store(pg_url)
    store.add_ratings([_rating("x1", 4.0)])
    store.close()
    with psycopg.connect(pg_url) as con:
        rows = con.execute("SELECT table_name, n FROM store_changes").fetchall()
    assert json.dumps(sorted(rows)) == json.dumps([["ratings", 1]])
