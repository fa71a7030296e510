"""`--on-error skip`: the good records import, the bad ones go to `<file>.rejects.jsonl` with
what is wrong with each; the default stays all-or-nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard.ingest import IngestError, import_path
from dashboard.store import Store
from tests.ingest.conftest import Writer, query, rating_record, snapshot
from tests.paths import REPO_ROOT

# Good records q1, q7; then every kind of bad record, numbered as the messages number them.
JSONL = (
    b'{"question": "q1", "answer": "a", "id": "1"}\n'
    b'{"question": "q2", answer: 1}\n'  # line 2, record 2: malformed JSON
    b"\n"
    b'{"question": "\xff", "answer": "b"}\n'  # line 4, record 3: invalid UTF-8
    b"[1, 2]\n"  # line 5, record 4: not an object
    b'{"question": "q5", "answer": ["x"]}\n'  # line 6, record 5: a field of the wrong type
    b'{"question": "q6", "answer": "ok", "id": "1"}\n'  # line 7, record 6: id taken
    b'{"question": "q7", "answer": "fine"}\n'
    b'{"question": "q8", "answer": null}\n'  # line 9, record 8: a missing value
)


def _rejects(path: Path) -> list[dict]:
    text = path.with_name(path.name + ".rejects.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def _raw(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_jsonl_reader_and_field_problems_are_left_out(store: Store, tmp_path: Path) -> None:
    path = _raw(tmp_path, "bad.jsonl", JSONL)
    report = import_path(store, path, system="s", on_error="skip")
    assert query(store, "SELECT question FROM items ORDER BY 1") == [("q1",), ("q7",)]
    [file] = report.files
    assert (file.records, file.rejected) == (8, 6)
    assert file.rejects_file == str(tmp_path / "bad.jsonl.rejects.jsonl")
    assert report.lines()[0] == (
        f"{path}: 8 records as rag into bad: added 2 items, 2 responses; 6 bad records left "
        f"out, written to {tmp_path / 'bad.jsonl.rejects.jsonl'}"
    )
    rejects = _rejects(path)
    assert [(r["line"], r["record"], r["field"], r["problem"]) for r in rejects] == [
        (
            2,
            2,
            None,
            "malformed JSON: Expecting property name enclosed in double quotes (column 20)",
        ),
        (4, 3, None, "invalid UTF-8 (byte 15 of the line)"),
        (5, 4, None, "expected a JSON object, got a list"),
        (6, 5, "answer", "expected a string, got a list"),
        (7, 6, "id", "duplicate id '1': an earlier record has this id with different content"),
        (9, 8, "answer", "is missing"),
    ]
    assert rejects[3]["message"] == (
        f"{path}: line 6 (record 5): field 'answer': expected a string, got a list"
    )
    assert rejects[0]["raw"] == '{"question": "q2", answer: 1}'  # the record as the file has it
    assert rejects[1]["raw"] == '{"question": "\ufffd", "answer": "b"}'
    assert all(r["file"] == str(path) for r in rejects)


def test_the_default_stays_all_or_nothing(store: Store, tmp_path: Path) -> None:
    path = _raw(tmp_path, "bad.jsonl", JSONL)
    before = snapshot(store)
    with pytest.raises(IngestError, match="line 2 .record 2.: malformed JSON"):
        import_path(store, path, system="s")
    assert snapshot(store) == before
    assert not (tmp_path / "bad.jsonl.rejects.jsonl").exists()


def test_csv_rows(store: Store, tmp_path: Path) -> None:
    data = (
        b"question,options,gold,answer\n"
        b'q1,"[""a"",""b""]",A,A\n'
        b'q2,"[""a"",""b""]",Z,B\n'  # row 2: a letter beyond the options
        b'q3\xff,"[""a""]",A,A\n'  # row 3: invalid UTF-8
        b'q4,"[""a""]",A,A,extra\n'  # row 4: one cell too many
        b'"q5\non two lines","[""a""]",A,A\n'
    )
    path = _raw(tmp_path, "m.csv", data)
    report = import_path(store, path, system="s", on_error="skip")
    assert report.files[0].rejected == 3 and report.added["responses"] == 2
    assert query(store, "SELECT question FROM items ORDER BY 1") == [("q1",), ("q5\non two lines",)]
    rejects = _rejects(path)
    assert [(r["record"], r["field"], r["problem"]) for r in rejects] == [
        (2, "gold", "letter Z is not among the 2 options"),
        (3, None, "invalid UTF-8"),
        (4, None, "has 5 cells, the header has 4"),
    ]
    assert rejects[0]["raw"] == {
        "question": "q2",
        "options": '["a","b"]',
        "gold": "Z",
        "answer": "B",
    }


def test_json_array_records(store: Store, tmp_path: Path) -> None:
    data = b'[{"question": "q1", "answer": "a"}, {"question": "\xfe", "answer": "b"}, 5, ' + (
        b'{"question": 3, "answer": "c"}]'
    )
    path = _raw(tmp_path, "arr.json", data)
    report = import_path(store, path, system="s", on_error="skip")
    assert report.files[0].rejected == 3 and report.added["items"] == 1
    assert [(r["record"], r["problem"]) for r in _rejects(path)] == [
        (2, "invalid UTF-8"),
        (3, "expected a JSON object, got a number"),
        (4, "expected a string, got a number"),
    ]


def test_a_malformed_json_array_record_still_stops(store: Store, tmp_path: Path) -> None:
    path = _raw(tmp_path, "arr.json", b'[{"question": "q1", "answer": "a"}, {"question": , }]')
    with pytest.raises(IngestError) as caught:
        import_path(store, path, system="s", on_error="skip")
    assert str(caught.value).endswith(
        "a malformed record of a JSON array cannot be skipped: fix it, or write the file as "
        "JSONL to skip its bad lines"
    )


def test_parquet_and_ratings(store: Store, write: Writer) -> None:
    rating = rating_record(value=3.0, scale_low=1.0, scale_high=5.0)  # floats in Parquet
    rows = [rating, {**rating, "value": 9.0}, {**rating, "rater": "bo", "value": 2.0}]
    path = write("r.parquet", rows)
    report = import_path(store, path, on_error="skip")
    assert report.added["ratings"] == 2 and report.files[0].rejected == 1
    [reject] = _rejects(path)
    assert (reject["record"], reject["field"]) == (2, "value")
    assert reject["problem"] == "value 9.0 is outside the scale 1.0–5.0"
    assert reject["raw"]["value"] == 9.0


def test_a_folder_import_leaves_its_rejects_files_alone(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    _raw(folder, "bad.jsonl", JSONL)
    import_path(store, folder, system="s", on_error="skip")
    again = import_path(store, folder, system="s", on_error="skip")
    assert [Path(f.file).name for f in again.files] == ["bad.jsonl"]
    assert sum(again.added.values()) == 0


def test_the_cli_says_how_many(tmp_path: Path) -> None:
    path = _raw(tmp_path, "bad.jsonl", JSONL)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "dashboard.cli",
            "--db",
            str(tmp_path / "cli.duckdb"),
            "import",
            str(path),
            "--system",
            "s",
            "--on-error",
            "skip",
        ],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "6 bad records left out, written to" in result.stdout
