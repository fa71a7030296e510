"""Unit tests of the store: schema, supersedes chains, idempotent writes and the spool."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from dashboard.ids import content_id
from dashboard.store import Store, migrations
from dashboard.store.journal import Batch
from dashboard.store.writes import record_row
from dashboard.types import (
    Anchor,
    EpochRating,
    Item,
    JudgeCall,
    Preference,
    Probe,
    Rating,
    Response,
)
from tests.support.locks import database_held, release

T0 = datetime(2024, 1, 1, 12, 0, 0)


def _columns(store: Store, table: str) -> list[str]:
    with store.connection() as con:
        return [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]


def _fields(record: type) -> list[str]:
    return [f.name for f in dataclasses.fields(record)]


def test_migrations_produce_the_record_columns(store: Store) -> None:
    assert _columns(store, "items") == _fields(Item) + ["created_utc"]
    assert _columns(store, "responses") == _fields(Response) + ["created_utc"]
    for table, record in (
        ("judge_calls", JudgeCall),
        ("probes", Probe),
        ("anchors", Anchor),
        ("epoch_ratings", EpochRating),
    ):
        assert sorted(_columns(store, table)) == sorted(_fields(record)), table
    # Ratings and preferences also keep whether a later row supersedes the row, ratings
    # whether the current view shelves it (a workbench draft's); their current views show
    # the record's columns alone.
    flags = {"ratings": ["superseded", "shelved"], "preferences": ["superseded"]}
    for table, record in (("ratings", Rating), ("preferences", Preference)):
        assert sorted(_columns(store, table)) == sorted([*_fields(record), *flags[table]])
        assert _columns(store, f"current_{table}") == [
            c for c in _columns(store, table) if c not in flags[table]
        ]
    assert _columns(store, "datasets") == ["name", "description", "source", "created_utc"]
    assert _columns(store, "few_shot_examples") == [
        "rubric",
        "rubric_version",
        "position",
        "response_id",
        "rating_id",
        "rater",
        "value",
        "seed",
        "created_utc",
    ]
    assert _columns(store, "imports") == [
        "import_id",
        "file_name",
        "file_sha256",
        "format",
        "mapping",
        "datasets",
        "replaces",
        "created_utc",
    ]
    assert _columns(store, "import_rows") == ["import_id", "kind", "row_id"]
    with store.connection() as con:
        names = [
            r[0] for r in con.execute("SELECT name FROM _migrations ORDER BY version").fetchall()
        ]
        assert names == [name for name, _ in migrations.MIGRATIONS]
        assert migrations.migrate(con) == []  # a second run applies nothing


def _rating(
    value: float | None,
    *,
    at: datetime,
    rater: str = "ana",
    rating_id: str | None = None,
    response_id: str = "r1",
) -> Rating:
    return Rating(
        rating_id or content_id(rater, str(value), at.isoformat()),
        response_id,
        "human",
        rater,
        "likert",
        "1",
        value,
        1,
        5,
        created_utc=at,
        unscored_reason=None if value is not None else "unreadable",
    )


def _current(store: Store) -> list[tuple]:
    with store.connection() as con:
        return con.execute(
            "SELECT rater, value FROM current_ratings ORDER BY rater, value"
        ).fetchall()


def test_a_new_rating_supersedes_the_current_one(store: Store) -> None:
    first = _rating(2, at=T0)
    store.add_ratings([first])
    second = _rating(4, at=T0 + timedelta(minutes=1))
    other = _rating(5, at=T0, rater="bo")
    store.add_ratings([second, other])
    with store.connection() as con:
        chain = dict(con.execute("SELECT rating_id, supersedes FROM ratings").fetchall())
    assert chain == {
        first.rating_id: None,
        second.rating_id: first.rating_id,
        other.rating_id: None,
    }
    assert _current(store) == [("ana", 4.0), ("bo", 5.0)]


def test_a_batch_chains_in_time_order(store: Store) -> None:
    late, early = _rating(3, at=T0 + timedelta(hours=1)), _rating(1, at=T0)
    store.add_ratings([late, early])
    with store.connection() as con:
        chain = dict(con.execute("SELECT rating_id, supersedes FROM ratings").fetchall())
    assert chain == {early.rating_id: None, late.rating_id: early.rating_id}
    assert _current(store) == [("ana", 3.0)]


def test_preferences_stream_includes_the_presentation_order(store: Store) -> None:
    shown = [
        Preference(
            content_id("p", side),
            "i1",
            "a",
            "b",
            "llm",
            "judge",
            "pref",
            "1",
            "A",
            side,
            created_utc=T0,
        )
        for side in ("A", "B")
    ]
    store.add_preferences(shown)
    with store.connection() as con:
        assert con.execute("SELECT count(*) FROM current_preferences").fetchone()[0] == 2


def test_writes_are_idempotent(store: Store) -> None:
    rating = _rating(2, at=T0)
    assert store.add_ratings([rating]).added == 1
    assert store.add_ratings([rating, rating]).added == 0
    item = Item("i1", "d", "open_qa", "q")
    response = Response("r1", "i1", "d", "s", "a")
    assert store.add_items([item], [response]) == 2
    assert store.add_items([item], [response]) == 0
    with store.connection() as con:
        assert con.execute("SELECT count(*) FROM ratings").fetchone()[0] == 1
        assert con.execute("SELECT supersedes FROM ratings").fetchone()[0] is None


def add_answers(store: Store, *response_ids: str) -> None:
    """Answers for ratings to name: a journal row naming an answer the database does not
    have is set aside as an orphan, never applied."""
    item = Item("i1", "d", "open_qa", "q")
    store.add_items([item], [Response(r, "i1", "d", f"s-{r}", "a") for r in response_ids])


@pytest.fixture
def holder(store: Store) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the database file until the test lets go (the answers the
    ratings name are there first)."""
    add_answers(store, "r1", "r2")
    with database_held(store.path) as process:
        yield process


@pytest.mark.file_store
def test_a_write_to_a_locked_file_is_spooled_and_applied_later(
    store: Store, holder: subprocess.Popen[str]
) -> None:
    rating = _rating(4, at=T0)
    result = store.add_ratings([rating], wait_s=0.2)
    assert result.added == 0 and result.pending is not None and result.pending.exists()
    release(holder)
    assert store.apply_pending() == 1
    assert not result.pending.exists()
    assert _current(store) == [("ana", 4.0)]


@pytest.mark.file_store
def test_reads_apply_the_spool_first(store: Store, holder: subprocess.Popen[str]) -> None:
    result = store.add_ratings([_rating(2, at=T0)], wait_s=0.2)
    assert result.pending is not None
    release(holder)
    assert _current(store) == [("ana", 2.0)]  # store.connection() applied it


def _spool_file(store: Store, name: str, lines: list[str]) -> Path:
    store.spool.directory.mkdir(parents=True, exist_ok=True)
    path = store.spool.directory / name
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _line(*ratings: Rating) -> str:
    rows = [
        {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in record_row(r).items()}
        for r in ratings
    ]
    return json.dumps({"table": "ratings", "rows": rows}) + "\n"


@pytest.mark.file_store
def test_a_torn_journal_line_is_skipped(store: Store, caplog: pytest.LogCaptureFixture) -> None:
    add_answers(store, "r1", "r2")
    kept = _rating(3, at=T0, response_id="r1")
    torn = _line(_rating(5, at=T0, response_id="r2"))[:40]
    path = _spool_file(store, "journal-abc.jsonl", [_line(kept), torn])
    assert store.apply_pending() == 1
    assert not path.exists()
    assert "torn last line" in caplog.text
    with store.connection() as con:
        assert con.execute("SELECT response_id FROM ratings").fetchall() == [("r1",)]


@pytest.mark.file_store
def test_a_journal_left_by_a_dead_process_is_applied(store: Store) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = int(dead.stdout)
    add_answers(store, "r1")
    _spool_file(store, f"run.{pid}.open", [_line(_rating(1, at=T0))])
    assert store.apply_pending() == 1


@pytest.mark.file_store
def test_a_bad_line_in_the_middle_sets_the_file_aside(store: Store) -> None:
    path = _spool_file(store, "bad.jsonl", ["{not json\n", _line(_rating(1, at=T0))])
    assert store.apply_pending() == 0
    assert not path.exists() and path.with_suffix(".failed").exists()


def test_write_batches_land_in_one_transaction(store: Store) -> None:
    call = JudgeCall(
        "c1",
        "k",
        "run",
        "judge",
        "model",
        "likert",
        "1",
        "h",
        "rating",
        "ok",
        response_id="r1",
        created_utc=T0,
    )
    rating = dataclasses.replace(_rating(4, at=T0), call_id="c1")
    result = store.write(
        [Batch("judge_calls", (record_row(call),)), Batch("ratings", (record_row(rating),))]
    )
    assert result.added == 2


@pytest.mark.parametrize(
    "broken",
    [
        {"rating_id": None},  # no id: cannot be deduplicated
        {"created_utc": "yesterday"},  # not a timestamp
        {"rater_kind": "robot"},  # breaks the table's CHECK constraint
    ],
)
@pytest.mark.file_store
def test_a_file_that_cannot_be_applied_is_set_aside_not_blocking(
    store: Store, caplog: pytest.LogCaptureFixture, broken: dict
) -> None:
    add_answers(store, "r1", "r2")
    good = _spool_file(store, "a-good.jsonl", [_line(_rating(2, at=T0, response_id="r1"))])
    row = {
        k: (v.isoformat() if isinstance(v, datetime) else v)
        for k, v in record_row(_rating(4, at=T0, response_id="r2")).items()
    }
    bad = _spool_file(
        store, "b-bad.jsonl", [json.dumps({"table": "ratings", "rows": [{**row, **broken}]}) + "\n"]
    )
    # Every open applies the spool first: a bad file must not make every open fail.
    with store.connection() as con:
        rows = con.execute("SELECT response_id FROM ratings").fetchall()
    assert rows == [("r1",)]
    assert not good.exists() and not bad.exists() and bad.with_suffix(".failed").exists()
    assert "moved aside" in caplog.text


def test_the_fingerprint_moves_when_a_delete_and_an_import_keep_the_counts(store: Store) -> None:
    def add(dataset: str) -> None:
        item = Item(content_id(dataset), dataset, "open_qa", "q?", ("a",))
        store.add_items(
            [item], [Response(content_id(dataset, "r"), item.item_id, dataset, "s", "a")]
        )

    add("one")
    before = store.fingerprint()
    store.delete_dataset("one")
    add("two")
    assert store.fingerprint() != before


def test_a_kept_open_block_lends_its_connection_to_one_unit_of_work_at_a_time(
    sample_store: Store,
) -> None:
    """Inside `kept_open`, units of work one after another take the kept connection (no new
    one set up each time); one inside another, while that is in use, gets its own; after the
    block, each unit has its own again."""
    names = sample_store.dataset_names()
    with sample_store.kept_open():
        with sample_store.connection() as first:
            with sample_store.connection() as inner:
                assert inner is not first
                assert inner.execute("SELECT count(*) FROM datasets").fetchone() == (len(names),)
            assert first.execute("SELECT count(*) FROM datasets").fetchone() == (len(names),)
        with sample_store.connection() as second:
            assert second is first
        assert sample_store.dataset_names() == names
    with sample_store.connection() as outside:
        assert outside is not first
        assert outside.execute("SELECT count(*) FROM datasets").fetchone() == (len(names),)
