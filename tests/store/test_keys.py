"""Lookups by key (`store/keys.py`): IN lists of bound values, which a PostgreSQL store answers
from an index (migration 27) instead of copying whole tables out of the server."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from dashboard.store import Store
from dashboard.store.keys import CHUNK, KEYED, among, chunks, filters
from dashboard.types import Rating

T0 = datetime(2026, 12, 7, 12, 0, tzinfo=UTC).replace(tzinfo=None)


def test_an_in_list_binds_each_value_and_refuses_more_than_a_chunk() -> None:
    sql, params = among("rating_id", "id", ["a", "b'; DROP TABLE ratings; --"])
    assert sql == "rating_id IN ($id_0, $id_1)"
    assert params == {"id_0": "a", "id_1": "b'; DROP TABLE ratings; --"}
    assert among("rating_id", "id", []) == ("false", {})
    with pytest.raises(ValueError, match="chunks"):
        among("rating_id", "id", ["x"] * (CHUNK + 1))
    assert [len(c) for c in chunks(list(range(2 * CHUNK + 3)))] == [CHUNK, CHUNK, 3]
    # Distinct values, sorted, each in exactly one chunk.
    parts = list(filters("rating_id", "id", [f"r{i:05d}" for i in range(CHUNK + 5)] * 2))
    assert len(parts) == 2
    seen = [v for _sql, params in parts for v in params.values()]
    assert seen == sorted(set(seen)) and len(seen) == CHUNK + 5


def test_a_write_of_more_than_a_chunk_finds_every_stored_row(store: Store) -> None:
    """More ids than one IN list holds, on either store (the fixture's): a replay adds
    nothing, and a second judge pass supersedes each first rating, its stream's current row
    found in whichever chunk holds its response."""
    n = CHUNK + 5
    first = [_rating(f"a{i:05d}", f"resp{i:05d}", T0) for i in range(n)]
    assert store.add_ratings(first).added == n
    assert store.add_ratings(first).added == 0
    second = [_rating(f"b{i:05d}", f"resp{i:05d}", T0 + timedelta(minutes=1)) for i in range(n)]
    assert store.add_ratings(second).added == n
    with store.connection() as con:
        chained = con.execute(
            "SELECT count(*) FILTER (WHERE supersedes = 'a' || substr(rating_id, 2)), "
            "count(*) FILTER (WHERE superseded) FROM ratings"
        ).fetchone()
    assert chained == (n, n)


def _rating(rating_id: str, response_id: str, created: datetime, **extra: object) -> Rating:
    return Rating(
        rating_id=rating_id,
        response_id=response_id,
        rater_kind="llm",
        rater="j1",
        rubric="likert",
        rubric_version="1",
        value=4.0,
        scale_low=1.0,
        scale_high=5.0,
        created_utc=created,
        **extra,  # type: ignore[arg-type]
    )


def test_every_key_column_is_collated_c_and_indexed(pg_url: str) -> None:
    Store(pg_url).fingerprint()  # attaches and migrates
    with psycopg.connect(pg_url) as con:
        collations = {
            (table, column): collation
            for table, column, collation in con.execute(
                "SELECT table_name, column_name, collation_name FROM information_schema.columns "
                "WHERE table_schema = 'public'"
            ).fetchall()
        }
        indexed = {
            (table, column)
            for table, column in con.execute(
                """
                SELECT t.relname, a.attname FROM pg_index x
                JOIN pg_class t ON t.oid = x.indrelid
                JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[0]
                WHERE x.indnatts = 1"""
            ).fetchall()
        }
    for table, columns in KEYED.items():
        for column in columns:
            assert collations[(table, column)] == "C", (table, column)
            assert (table, column) in indexed, (table, column)


def _scanned(pg_url: str) -> tuple[int, int]:
    """(rows read by sequential scans, index scans) of `ratings` so far."""
    with psycopg.connect(pg_url) as con:
        row = con.execute(
            "SELECT seq_tup_read, coalesce(idx_scan, 0) FROM pg_stat_user_tables "
            "WHERE relname = 'ratings'"
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def test_a_save_on_postgresql_reads_ratings_by_index_not_by_scanning_them(pg_url: str) -> None:
    n = 20_000
    store = Store(pg_url)
    judged = [_rating(f"j{i:06d}", f"resp{i:06d}", T0) for i in range(n)]
    assert store.add_ratings(judged).added == n
    with psycopg.connect(pg_url, autocommit=True) as con:
        con.execute("ANALYZE ratings")  # what autovacuum does on a server after a large write
    store.close()  # a closed session's statistics are flushed
    before = _wait_for_stats(pg_url)

    # A person's label overriding one judge rating, and its undo-like second save: each looks
    # up its id, its stream's current row and the rows it supersedes.
    label = Rating(
        rating_id="h1",
        response_id="resp000123",
        rater_kind="human",
        rater="ana",
        rubric="likert",
        rubric_version="1",
        value=2.0,
        scale_low=1.0,
        scale_high=5.0,
        created_utc=T0 + timedelta(minutes=1),
        overrides="j000123",
    )
    again = replace(label, rating_id="h2", value=3.0, created_utc=T0 + timedelta(minutes=2))
    assert store.add_ratings([label]).added == 1
    assert store.add_ratings([again]).added == 1
    store.close()
    after = _wait_for_stats(pg_url, after=before)

    # Before migration 27 and the bound lists, each save copied the whole table (3 scans of
    # 20,000 rows a save); now no sequential scan reads more than a few rows.
    assert after[0] - before[0] < n // 10, (before, after)
    assert after[1] > before[1]
    with psycopg.connect(pg_url) as con:
        rows = con.execute(
            "SELECT rating_id, supersedes, superseded FROM ratings WHERE response_id = "
            "'resp000123' AND rater_kind = 'human' ORDER BY rating_id"
        ).fetchall()
    assert rows == [("h1", None, True), ("h2", "h1", False)]


def _wait_for_stats(pg_url: str, after: tuple[int, int] | None = None) -> tuple[int, int]:
    """The table's scan counters, once the ended sessions' statistics have reached them."""
    deadline = time.monotonic() + 15
    found = _scanned(pg_url)
    while time.monotonic() < deadline:
        time.sleep(1.2)  # a session flushes its statistics at most once a second
        again = _scanned(pg_url)
        if again == found and (after is None or again != after):
            return again
        found = again
    return found


def test_a_relabel_flags_the_row_it_replaces_whatever_its_id_holds(store: Store) -> None:
    """The flag of a superseded row is set by id (on a server as PostgreSQL's own SQL, with
    the ids quoted): ids with quotes, backslashes and a semicolon are found like any other."""
    odd = ["o'brien", "back\\slash", "x'); DELETE FROM ratings; --"]
    for n, rating_id in enumerate(odd):
        first = replace(
            _rating(rating_id, f"resp-{n}", T0), rater_kind="human", rater="ana", value=2.0
        )
        second = replace(first, rating_id=f"{rating_id}-2", created_utc=T0 + timedelta(hours=1))
        assert store.add_ratings([first]).added == 1
        assert store.add_ratings([second]).added == 1
    with store.connection() as con:
        rows = con.execute(
            "SELECT rating_id, supersedes, superseded FROM ratings ORDER BY rating_id"
        ).fetchall()
    assert sorted(rows) == sorted(
        [(i, None, True) for i in odd] + [(f"{i}-2", i, False) for i in odd]
    )
