"""The plain `pairwise` format's `shown_first`, and imports that supersede stored verdicts."""

from __future__ import annotations

import pytest

from dashboard.ingest import IngestError, import_path
from dashboard.store import Store
from tests.ingest.conftest import Writer, query, rating_record

PAIR = {
    "question": "Which band sees through clouds?",
    "answer_a": "SAR.",
    "answer_b": "Optical.",
    "system_a": "x",
    "system_b": "y",
    "rater": "judge-1",
    "rater_kind": "llm",
}


def _current(store: Store) -> list[tuple]:
    return query(
        store,
        "SELECT shown_first, verdict, supersedes IS NOT NULL FROM current_preferences "
        "ORDER BY shown_first",
    )


def test_both_orders_of_one_judge_are_two_verdicts(store: Store, write: Writer) -> None:
    # The judge saw x's answer first and preferred it, then saw y's first and preferred x
    # again: `winner` stays in the file's frame (A = answer_a) whatever was shown first.
    rows = [
        {**PAIR, "winner": "A", "shown_first": "A"},
        {**PAIR, "winner": "A", "shown_first": "B"},
    ]
    report = import_path(store, write("orders.jsonl", rows), dataset="d")
    assert report.added["preferences"] == 2
    assert report.superseded["preferences"] == 0
    # Before shown_first was read, both records fell into one stream (shown_first "A") and
    # the second superseded the first: one current verdict instead of two.
    assert _current(store) == [("A", "A", False), ("B", "A", False)]
    assert "superseded" not in report.lines()[0]


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_shown_first_in_other_kinds(store: Store, write: Writer, kind: str) -> None:
    rows = [
        {**PAIR, "winner": "B", "shown_first": "b"},
        {**PAIR, "winner": "tie", "shown_first": "A"},
    ]
    import_path(store, write(f"orders.{kind}", rows), dataset="d")
    assert _current(store) == [("A", "tie", False), ("B", "B", False)]


def test_a_bad_shown_first_names_the_record(store: Store, write: Writer) -> None:
    path = write("bad.jsonl", [{**PAIR, "winner": "A", "shown_first": "first"}])
    with pytest.raises(IngestError) as caught:
        import_path(store, path, dataset="d")
    assert str(caught.value) == (
        f"{path}: line 1 (record 1): field 'shown_first': expected A or B, got \"first\""
    )


def test_an_import_that_supersedes_stored_verdicts_says_how_many(
    store: Store, write: Writer
) -> None:
    rows = [
        {**PAIR, "winner": "A", "shown_first": "A"},
        {**PAIR, "winner": "A", "shown_first": "B"},
    ]
    import_path(store, write("v1.jsonl", rows), dataset="d")
    changed = [rows[0], {**rows[1], "winner": "B"}]
    report = import_path(store, write("v2.jsonl", changed), dataset="d")
    assert report.added["preferences"] == 1 and report.superseded["preferences"] == 1
    assert report.lines()[0].endswith(
        "added 1 preferences (4 rows already stored; superseded 1 earlier preference)"
    )
    assert _current(store) == [("A", "A", False), ("B", "B", True)]


def test_two_records_of_one_stream_in_one_file_are_counted(store: Store, write: Writer) -> None:
    rows = [{**PAIR, "winner": "A"}, {**PAIR, "winner": "B"}]  # no shown_first: both "A"
    report = import_path(store, write("twice.jsonl", rows), dataset="d")
    assert report.added["preferences"] == 2 and report.superseded["preferences"] == 1
    assert _current(store) == [("A", "B", True)]


def test_an_import_that_supersedes_stored_ratings_says_how_many(
    store: Store, write: Writer
) -> None:
    import_path(store, write("r1.jsonl", [rating_record(value=2)]), dataset="d")
    report = import_path(store, write("r2.jsonl", [rating_record(value=4)]), dataset="d")
    assert report.superseded["ratings"] == 1
    assert "superseded 1 earlier rating" in report.lines()[0]
    again = import_path(store, write("r2.jsonl", [rating_record(value=4)]), dataset="d")
    assert again.superseded["ratings"] == 0 and sum(again.added.values()) == 0
