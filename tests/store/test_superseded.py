"""The `superseded` flag of ratings and preferences: every writer keeps it equal to its
definition (some row names the row in `supersedes`), which the current views read."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from pathlib import Path

import pytest

from dashboard.ids import content_id
from dashboard.ingest import import_path
from dashboard.store import Store, WriteConflict, writes
from dashboard.store.writes import record_row
from dashboard.types import Preference, Rating
from tests.conftest import DB_NAME
from tests.ingest.conftest import rating_record, write_jsonl
from tests.store.test_store import T0, _rating as rating_at, add_answers

TABLES = (
    ("ratings", "rating_id", "current_ratings"),
    ("preferences", "preference_id", "current_preferences"),
)


def _wrong_flags(store: Store) -> dict[str, list[str]]:
    """Per table, the ids whose flag disagrees with the chain, and the ids the current view
    shows that the chain does not (or the reverse): both empty when the flag is right."""
    wrong = {}
    with store.connection() as con:
        for table, id_column, view in TABLES:
            named = f"SELECT supersedes FROM {table} WHERE supersedes IS NOT NULL"
            ids = con.execute(
                f"SELECT {id_column} FROM {table} "
                f"WHERE superseded <> ({id_column} IN ({named})) ORDER BY ALL"
            ).fetchall()
            shown = con.execute(
                f"""(SELECT {id_column} FROM {view} EXCEPT SELECT {id_column} FROM {table}
                     WHERE {id_column} NOT IN ({named}))
                UNION ALL (SELECT {id_column} FROM {table} WHERE {id_column} NOT IN ({named})
                     EXCEPT SELECT {id_column} FROM {view})"""
            ).fetchall()
            wrong[table] = [row[0] for row in ids + shown]
    return wrong


def _rating(
    value: float, *, minutes: int, rater: str = "ana", supersedes: str | None = None
) -> Rating:
    """`test_store`'s person's rating of r1, `minutes` after T0, naming `supersedes`."""
    rating = rating_at(value, at=T0 + timedelta(minutes=minutes), rater=rater)
    return dataclasses.replace(rating, supersedes=supersedes)


def _current_values(store: Store) -> list[float]:
    with store.connection() as con:
        rows = con.execute("SELECT value FROM current_ratings ORDER BY value").fetchall()
    return [row[0] for row in rows]


def test_store_writes_keep_the_flag(store: Store) -> None:
    first, second = _rating(1, minutes=0), _rating(2, minutes=1)
    store.add_ratings([first])
    store.add_ratings([second, _rating(5, minutes=0, rater="bo")])  # second supersedes first
    assert _current_values(store) == [2, 5]
    # A row that names a row written only later: the later row arrives superseded.
    later = _rating(4, minutes=3, rater="cy")
    store.add_ratings([_rating(3, minutes=4, rater="cy", supersedes=later.rating_id)])
    store.add_ratings([later])
    shown = [
        Preference(
            content_id("p", str(n)),
            "i1",
            "a",
            "b",
            "llm",
            "j",
            "pref",
            "1",
            verdict,
            "A",
            created_utc=T0 + timedelta(minutes=n),
        )
        for n, verdict in enumerate(("A", "B", "tie"))
    ]
    store.add_preferences(shown[:1])
    store.add_preferences(shown[1:])  # one stream: each supersedes the one before
    assert _wrong_flags(store) == {"ratings": [], "preferences": []}
    with store.connection() as con:
        verdicts = con.execute("SELECT verdict FROM current_preferences").fetchall()
        superseded = con.execute("SELECT count(*) FROM ratings WHERE superseded").fetchone()
    assert verdicts == [("tie",)]
    assert superseded == (3,)  # first; later (named by cy's 3); cy's 3 (chained by later)


def test_imports_keep_the_flag(store: Store, tmp_path: Path) -> None:
    def path(name: str, **extra: object) -> Path:
        return write_jsonl(tmp_path / name, [rating_record(**extra)])

    import_path(store, path("r1.jsonl", value=2), dataset="d")
    import_path(store, path("r2.jsonl", value=4), dataset="d")  # supersedes the 2
    assert _current_values(store) == [4]
    # A file naming a rating that another file brings later (its id is a content hash).
    scratch = Store(tmp_path / "scratch" / DB_NAME)
    ahead = path("r4.jsonl", value=1, rater="bo", created_utc="2024-01-01T00:00:00")
    import_path(scratch, ahead, dataset="d")
    with scratch.connection() as con:
        (ahead_id,) = con.execute("SELECT rating_id FROM ratings").fetchone()
    import_path(store, path("r3.jsonl", value=5, rater="bo", supersedes=ahead_id), dataset="d")
    import_path(store, ahead, dataset="d")
    assert _wrong_flags(store) == {"ratings": [], "preferences": []}
    # The row brought later names the stream's current row in turn (as imports always chain),
    # so neither of bo's two is current: the chain says so, and so do the flags.
    assert _current_values(store) == [4]


@pytest.mark.file_store
def test_an_older_file_is_flagged_when_it_is_upgraded(store: Store) -> None:
    store.add_ratings([_rating(1, minutes=0), _rating(2, minutes=1), _rating(3, minutes=2)])
    with store.connection() as con:  # the schema before the flag (migration 10)
        for table, id_column, view in TABLES:
            con.execute(f"""CREATE OR REPLACE VIEW {view} AS SELECT r.* FROM {table} r
                ANTI JOIN {table} s ON s.supersedes = r.{id_column}""")
            con.execute(f"ALTER TABLE {table} DROP COLUMN superseded")
        con.execute("DELETE FROM _migrations WHERE version = 10")
    upgraded = Store(store.path)
    assert _wrong_flags(upgraded) == {"ratings": [], "preferences": []}
    assert _current_values(upgraded) == [3]


@pytest.mark.file_store
def test_a_save_that_conflicts_with_another_write_goes_to_the_journal(store: Store) -> None:
    # An import (another transaction of this process) supersedes ana's label; a save of her
    # next label, at the same moment, would supersede it too: DuckDB refuses the second
    # change of that row, and the save is kept in the journal, then applied after the import.
    add_answers(store, "r1")  # a journal row of an answer not in the database is an orphan
    first = _rating(1, minutes=0)
    store.add_ratings([first])
    with store.connection() as importer:
        importer.execute("BEGIN TRANSACTION")
        writes.insert_rows(importer, "ratings", [record_row(_rating(2, minutes=1))])
        saved = store.add_ratings([_rating(3, minutes=2)])
        assert saved.added == 0 and saved.pending is not None
        with store.connection():  # a read meanwhile tries the journal: it conflicts too
            pass
        assert saved.pending.exists()  # and stays for a later try
        with pytest.raises(WriteConflict):  # what a judge run's merge meets: it tries later
            store.apply_pending()
        assert saved.pending.exists()
        importer.execute("COMMIT")
    assert store.apply_pending() == 1
    assert _current_values(store) == [3]
    assert _wrong_flags(store) == {"ratings": [], "preferences": []}


@pytest.mark.file_store
def test_an_import_that_conflicts_says_so_and_writes_nothing(store: Store, tmp_path: Path) -> None:
    import_path(store, write_jsonl(tmp_path / "r1.jsonl", [rating_record(value=2)]), dataset="d")
    with store.connection() as con:
        (stored,) = con.execute("SELECT * FROM current_ratings").fetchall()
        columns = [d[0] for d in con.description]
    label = dict(zip(columns, stored, strict=True))
    with store.connection() as saver:  # a save of ana's next label, not yet committed
        saver.execute("BEGIN TRANSACTION")
        fix = {**label, "rating_id": "fix", "value": 5.0, "supersedes": None, "created_utc": None}
        writes.insert_rows(saver, "ratings", [fix])
        later = write_jsonl(tmp_path / "r2.jsonl", [rating_record(value=4)])
        with pytest.raises(WriteConflict) as caught:
            import_path(store, later, dataset="d")
        saver.execute("ROLLBACK")
    assert str(caught.value) == (
        f"Another change to the same ratings or verdicts in {store.path} was being saved at "
        "the same moment, so nothing of this one was saved. Run it again."
    )
    assert _current_values(store) == [2]
    with store.connection() as con:
        assert con.execute("SELECT count(*) FROM ratings").fetchone() == (1,)
