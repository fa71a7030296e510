"""Files DuckDB's readers refuse, or that nearly match a format: each gets our own clear
message naming the file (and the record where there is one), never DuckDB's text or a
follow-on error, and nothing is written; or, where judgeboard can read it, it imports."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from dashboard.ingest import IngestError, import_path, load_sql, read_sql
from dashboard.ingest.uploads import MAX_NAME_BYTES, import_upload
from dashboard.store import Store
from dashboard.store.connection import DatabaseError, transaction
from tests.ingest.conftest import Writer, query, rating_record, snapshot

NESTED = (
    "a value is nested more than 128 levels deep (lists and objects within each other); "
    "judgeboard reads up to 128 levels"
)


def _refused(store: Store, path: Path, expected: str, **options: object) -> None:
    before = snapshot(store)
    with pytest.raises(IngestError) as caught:
        import_path(store, path, **options)
    assert str(caught.value) == expected
    assert snapshot(store) == before


def _deep(depth: int) -> str:
    return "[" * depth + '"x"' + "]" * depth


@pytest.mark.parametrize("depth", [200, 5000])  # DuckDB's limit, and past Python's own parser
def test_deeply_nested_json_is_named_by_record(store: Store, tmp_path: Path, depth: int) -> None:
    good = '{"question": "q", "answer": "a"}'
    lines = tmp_path / "deep.jsonl"
    lines.write_text(f'{good}\n{{"question": "q2", "answer": "a", "m": {_deep(depth)}}}\n')
    _refused(store, lines, f"{lines}: line 2 (record 2): {NESTED}")
    array = tmp_path / "deep.json"
    array.write_text(f'[{good}, {{"question": "q2", "answer": "a", "m": {_deep(depth)}}}]')
    _refused(store, array, f"{array}: record 2 (index 1): {NESTED}")


@pytest.mark.parametrize("depth", [200, 5000])
def test_a_deeply_nested_record_is_left_out_under_skip(
    store: Store, tmp_path: Path, depth: int
) -> None:
    """The limit holds whichever DuckDB reads the file (1.5 reads any depth): under
    `--on-error skip` the record goes to the rejects, named, and the others import."""
    path = tmp_path / "deep.jsonl"
    path.write_text(
        '{"question": "q1", "answer": "a"}\n'
        f'{{"question": "q2", "answer": "a", "m": {_deep(depth)}}}\n'
        '{"question": "q3", "answer": "a"}\n'
    )
    report = import_path(store, path, on_error="skip")
    assert query(store, "SELECT question FROM items ORDER BY 1") == [("q1",), ("q3",)]
    assert report.files[0].rejected == 1
    reject = json.loads((tmp_path / "deep.jsonl.rejects.jsonl").read_text())
    assert (reject["line"], reject["problem"]) == (2, NESTED)


def test_json_nested_to_the_limit_imports(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"  # the record, then 126 lists around a string: 127 levels
    path.write_text(f'{{"question": "q", "answer": "a", "m": {_deep(126)}}}\n')
    assert import_path(store, path).added["items"] == 1


def test_a_csv_field_over_2_mb_imports(store: Store, tmp_path: Path) -> None:
    """DuckDB's CSV reader stops at 2 MB a line unless told otherwise; JSON and Parquet take
    longer fields already."""
    answer = "long answer " * 300_000  # 3.6 MB
    path = tmp_path / "long.csv"
    path.write_text(f'question,answer\nq,"{answer}"\nq2,short\n', encoding="utf-8")
    assert import_path(store, path, system="s").added["responses"] == 2
    assert query(store, "SELECT max(length(answer)) FROM responses") == [(len(answer),)]


def test_a_failed_unordered_stage_keeps_its_own_error(store: Store) -> None:
    """A stage of single answers is built under `unordered`; when its statement fails, the
    RESET after it failed too ("Current transaction is aborted"), and that follow-on error
    was the one the importer turned into its message."""
    with store.connection() as con:
        with (
            read_sql.bulk_write_settings(con),
            pytest.raises(DatabaseError) as caught,
            transaction(con),
            load_sql.unordered(con),
        ):
            con.execute("SELECT CAST('x' AS INTEGER)")
        assert "Could not convert string 'x'" in str(caught.value)
        order = con.execute("SELECT current_setting('preserve_insertion_order')").fetchone()
        assert order == (True,)  # reset after the rollback


def test_a_late_bad_csv_row_is_named(store: Store, tmp_path: Path) -> None:
    """The row lies beyond the reader's sample: the staging statement itself fails."""
    path = tmp_path / "late.csv"
    rows = "".join(f"q{i},a{i}\n" for i in range(30_000))
    path.write_text(f"question,answer\n{rows}q,a,extra,more\n", encoding="utf-8")
    _refused(
        store,
        path,
        f"{path}: row 30001: has 4 cells, the header has 2",
        system="s",
    )
    good = tmp_path / "good.csv"
    good.write_text("question,answer\nq,a\n", encoding="utf-8")
    assert import_path(store, good, system="s").added["items"] == 1  # the same store goes on


def test_text_after_a_json_array(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "twice.json"
    path.write_text('[{"question": "q", "answer": "a"}]\n[{"question"')
    _refused(
        store, path, f"{path}: malformed JSON: text after the end of the array (line 2 column 1)"
    )


RATING = rating_record()


@pytest.mark.parametrize(
    "change, nearly",
    [
        (
            {"valeu": 3, "value": None},
            "it looks like a ratings file (it has rater, rater_kind, rubric) but has no "
            "column 'value'; fix the file, or pass --format rag to import it as rag",
        ),
        (
            {"rater": ["ana"]},
            "it looks like a ratings file, but its column 'rater' holds lists, not text; fix "
            "the file, or pass --format rag to import it as rag",
        ),
        (
            {"question": {"text": "q"}},
            "it looks like a ratings file, but its column 'question' holds objects, not text; "
            "fix the file, or pass --format to say what it is",
        ),
    ],
)
def test_a_file_damaged_in_one_field_is_not_taken_for_another_format(
    store: Store, write: Writer, change: dict, nearly: str
) -> None:
    """Before, the first two imported as RAG answers with no rating at all."""
    record = {**RATING, **change}
    path = write("ratings.jsonl", [{k: v for k, v in record.items() if v is not None}])
    _refused(store, path, f"{path}: {nearly}")
    if "--format rag" in nearly:  # if that is what it is
        assert import_path(store, path, fmt="rag").added["ratings"] == 0


def test_a_preferences_file_is_no_near_miss_of_ratings(store: Store, write: Writer) -> None:
    record = {k: v for k, v in RATING.items() if k not in ("value", "system", "answer")}
    two = {"system_a": "x", "answer_a": "a", "system_b": "y", "answer_b": "b", "verdict": "A"}
    path = write("prefs.jsonl", [{**record, **two}])
    assert import_path(store, path).added["preferences"] == 1


def test_a_published_sets_file_in_another_kind(store: Store, write: Writer) -> None:
    record = {"idx": 1, "instruction": "i", "input": "", "response1": "a", "response2": "b"}
    marks = {"annotator1": 1, "annotator2": 2, "annotator3": 0}
    path = write("pandalm.csv", [{**record, **marks}])
    _refused(
        store,
        path,
        f"{path}: has the columns of PandaLM, whose files are a JSON array, but it is CSV: "
        "convert it back, or pass --format with one of the plain formats",
    )


def test_an_over_long_upload_name_imports_under_a_shorter_one(store: Store) -> None:
    name = "résultats " * 40 + ".jsonl"  # 440 bytes: more than a file name may take
    data = io.BytesIO(json.dumps({"question": "q", "answer": "a"}).encode() + b"\n")
    report = import_upload(store, name, data).report
    (file,) = report.files
    assert len(Path(file.file).name.encode()) <= MAX_NAME_BYTES
    assert Path(file.file).suffix == ".jsonl" and report.added["items"] == 1
