"""The importer's side of reading what `judgeboard export` writes, one rule at a time: rows
with no rating, the export's own columns, columns that are null everywhere, CSV's empty
strings, and metadata."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from dashboard.ingest import IngestError, import_path
from dashboard.store import Store
from tests.ingest.conftest import Writer, query, snapshot, write_jsonl

RATED = {
    "question": "q",
    "system": "s",
    "answer": "a",
    "rater_kind": "human",
    "rater": "ana",
    "rubric": "likert-rag",
    "value": 4,
    "scale_low": 1,
    "scale_high": 5,
}
NO_RATING = dict.fromkeys(("rater_kind", "rater", "rubric", "value", "scale_low", "scale_high"))


def _fails(store: Store, path: Path, expected: str, **options: object) -> None:
    before = snapshot(store)
    with pytest.raises(IngestError) as caught:
        import_path(store, path, **options)
    assert str(caught.value) == expected
    assert snapshot(store) == before


@pytest.mark.parametrize("kind", ["jsonl", "json"])
@pytest.mark.parametrize(
    "column",
    [
        "options",
        "gold_letters",
        "reference_answers",
        "history",
        "contexts",
        "item_metadata",
        "created_utc",
        "value",
    ],
)
def test_a_column_null_in_every_record(store: Store, write: Writer, kind: str, column: str) -> None:
    # DuckDB's JSON reader types the column "NULL"; the list functions cannot bind to that
    # type ("Binder Error: Invalid LIST argument during lambda function binding").
    record = {**RATED, column: None, "unscored_reason": "no score" if column == "value" else None}
    report = import_path(store, write(f"one.{kind}", [record]))
    assert report.formats == ("ratings",)
    assert report.added == {"items": 1, "responses": 1, "ratings": 1, "preferences": 0}
    assert query(
        store, "SELECT options, gold_letters, reference_answers, history, metadata FROM items"
    ) == [(None, None, None, None, None)]


def test_rows_without_a_rating_hold_items_and_responses(store: Store, write: Writer) -> None:
    rows = [
        RATED,
        {**RATED, **NO_RATING, "answer": "never rated"},
        {**RATED, **NO_RATING, "question": "no answer yet", "system": None, "answer": None},
    ]
    path = write("export.ratings.jsonl", rows)
    report = import_path(store, path)
    assert report.added == {"items": 2, "responses": 2, "ratings": 1, "preferences": 0}
    assert query(
        store,
        "SELECT i.question, r.answer FROM items i LEFT JOIN responses r "
        "USING (item_id) ORDER BY 1, 2",
    ) == [("no answer yet", None), ("q", "a"), ("q", "never rated")]
    # The item without responses did not get the file's name as a system.
    assert query(store, "SELECT DISTINCT system FROM responses") == [("s",)]
    assert sum(import_path(store, path).added.values()) == 0


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({**NO_RATING, "rater": "ana"}, "rater_kind"),  # part of a rating is not no rating
        ({**NO_RATING, "comment": "looks fine"}, "rater_kind"),
        ({"scale_low": None, "scale_high": None}, "scale_low"),
        ({"system": None, "answer": None}, "system"),  # a rating needs its response
        ({**NO_RATING, "answer": None}, "answer"),
    ],
)
def test_a_partial_rating_or_response_is_refused(
    store: Store, write: Writer, row: dict, field: str
) -> None:
    path = write("partial.jsonl", [RATED, {**RATED, "comment": None, **row}])
    _fails(store, path, f"{path}: line 2 (record 2): field '{field}': is missing")


def test_the_exports_own_columns_never_land_in_metadata(store: Store, write: Writer) -> None:
    row = {
        **RATED,
        "item_metadata": json.dumps({"source": "x"}),
        "response_metadata": json.dumps({"latency_ms": 3}),
        "is_current": True,
        "effective_score": 0.75,
        "effective_source": "human",
        "call_id": None,
        "rating_id": "r-1",
        "response_id": "resp-1",
        "item_id": "item-1",
        "notes": "kept",
    }
    import_path(store, write("export.ratings.jsonl", [row]))
    assert query(store, "SELECT item_id, metadata FROM items") == [
        ("item-1", '{"source":"x","notes":"kept"}')
    ]  # an unknown column is still kept
    assert query(store, "SELECT response_id, metadata FROM responses") == [
        ("resp-1", '{"latency_ms":3,"notes":"kept"}')
    ]
    assert query(store, "SELECT rating_id, response_id FROM ratings") == [("r-1", "resp-1")]


def test_preferences_carry_their_responses_whole(store: Store, write: Writer) -> None:
    row = {
        "question": "q",
        "system_a": "x",
        "answer_a": "one",
        "system_b": "y",
        "answer_b": "two",
        "contexts_a": ["c1"],
        "contexts_b": None,
        "response_metadata_a": '{"k": 1}',
        "response_metadata_b": None,
        "item_metadata": '{"i": 2}',
        "rater_kind": "llm",
        "rater": "j",
        "rubric": "pw",
        "verdict": "B",
        "is_current": True,
    }
    import_path(store, write("export.preferences.jsonl", [row]))
    assert query(store, "SELECT system, contexts, metadata FROM responses ORDER BY 1") == [
        ("x", ["c1"], '{"k": 1}'),
        ("y", None, None),
    ]
    assert query(store, "SELECT metadata FROM items") == [('{"i": 2}',)]


@pytest.mark.parametrize(
    ("value", "got"), [('{"not": json', "a string"), ("[1, 2]", "a list"), (3, "a number")]
)
def test_metadata_must_be_an_object(store: Store, write: Writer, value: object, got: str) -> None:
    # An object, or its JSON text (as CSV and an export write it).
    path = write("bad.jsonl", [{**RATED, "item_metadata": value}])
    _fails(
        store,
        path,
        f"{path}: line 1 (record 1): field 'item_metadata': expected a JSON object, got {got}",
    )


def _write_csv(path: Path, header: list[str], rows: list[list[str]], **options: int) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, **options)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_csv_quoted_empty_string_is_a_string(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    path.write_text('question,answer,gt_context\nq1,"",""\nq2,a,\n', encoding="utf-8")
    import_path(store, path, dataset="d", system="s")
    assert query(
        store,
        "SELECT i.question, i.reference_context, r.answer FROM items i "
        "JOIN responses r USING (item_id) ORDER BY 1",
    ) == [("q1", "", ""), ("q2", None, "a")]


def test_csv_empty_cell_is_still_missing(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    path.write_text("question,answer\nq1,a\nq2,\n", encoding="utf-8")
    _fails(store, path, f"{path}: row 2: field 'answer': is missing", dataset="d", system="s")


def test_csv_quoted_empty_number_or_list_is_none(store: Store, tmp_path: Path) -> None:
    # Writers that quote every cell write "" for a missing number or list.
    header = [
        "question",
        "system",
        "answer",
        "rater_kind",
        "rater",
        "rubric",
        "value",
        "scale_low",
        "scale_high",
        "unscored_reason",
        "reference_answers",
        "options",
    ]
    path = _write_csv(
        tmp_path / "all-quoted.csv",
        header,
        [["q", "s", "", "llm", "j", "r", "", "1", "5", "no marker", "", ""]],
        quoting=csv.QUOTE_ALL,
    )
    import_path(store, path)
    assert query(
        store,
        "SELECT r.answer, g.value, g.unscored_reason, i.reference_answers, "
        "i.options FROM ratings g JOIN responses r USING (response_id) "
        "JOIN items i USING (item_id)",
    ) == [("", None, "no marker", None, None)]


def test_a_big_file_with_values_beyond_an_all_null_sample(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Files over 256 MB are typed from their first 20,480 records; DuckDB reads a column
    # that is null there as null everywhere, silently dropping the values further on.
    from dashboard.ingest import read_sql

    monkeypatch.setattr(read_sql, "FULL_SAMPLE_BYTES", 0)
    rows = [
        {
            "question": f"q{i}",
            "answer": "a",
            "document": None if i < 21_000 else f"d{i}",
            "contexts": None if i < 21_000 else ["c"],
        }
        for i in range(22_000)
    ]
    import_path(store, write_jsonl(tmp_path / "late.jsonl", rows), dataset="d", system="s")
    assert query(store, "SELECT count(document) FROM items") == [(1_000,)]
    assert query(store, "SELECT count(contexts) FROM responses") == [(1_000,)]
