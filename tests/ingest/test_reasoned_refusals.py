"""Files that were refused with only "cannot read the file as JSONL" (issue 27): each refusal
now names the file, the record (or line, or byte) where it can, and the reason in words."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dashboard.ingest import IngestError, import_path
from dashboard.ingest.errors import reader_reason
from dashboard.ingest.sizes import MAX_CSV_COLUMNS
from dashboard.store import Store
from tests.ingest.conftest import rating_record, snapshot

GOOD = json.dumps(rating_record())
TWICE = "an object has the key 'system' twice; each key may appear once in an object"
SURROGATE = (
    "a string holds \\ud800, half of a UTF-16 surrogate pair without its other half, which is "
    "no character; write the character itself, or both halves"
)
RAW = ("Error:", "LINE 1", "duckdb", "cannot read the file as JSONL")


def _refusal(store: Store, path: Path) -> str:
    before = snapshot(store)
    with pytest.raises(IngestError) as caught:
        import_path(store, path)
    assert snapshot(store) == before
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and not any(raw in message for raw in RAW)
    return message


def test_a_duplicate_key_is_named_with_its_line(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "twice.jsonl"
    path.write_text(f'{GOOD}\n{GOOD[:-1]}, "system": "t"}}\n')
    assert _refusal(store, path) == f"{path}: line 2 (record 2): {TWICE}"
    array = tmp_path / "twice.json"
    array.write_text(f'[{GOOD},\n{GOOD[:-1]}, "system": "t"}}]')
    assert _refusal(store, array) == f"{array}: record 2 (index 1): {TWICE}"


def test_a_lone_surrogate_is_named_with_its_line(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "surrogate.jsonl"
    bad = json.dumps(rating_record(answer="x")).replace('"x"', '"x\\ud800y"')
    path.write_text(f"{GOOD}\n\n{bad}\n")
    assert _refusal(store, path) == f"{path}: line 3 (record 2): {SURROGATE}"
    # A whole pair is a character, and imports.
    pair = tmp_path / "pair.jsonl"
    pair.write_text(json.dumps(rating_record(answer="x")).replace('"x"', '"\\ud83d\\ude00"') + "\n")
    assert import_path(store, pair).files[0].records == 1


def test_damaged_parquet_says_what_is_wrong(store: Store, tmp_path: Path) -> None:
    good = tmp_path / "good.parquet"
    pq.write_table(pa.Table.from_pylist([rating_record(question=f"q{i}") for i in range(50)]), good)
    data = good.read_bytes()
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(data[: len(data) // 2])
    assert _refusal(store, cut) == (
        f"{cut}: cannot read the file as Parquet: it is not a Parquet file, or it is cut "
        "short (no Parquet footer at its end)"
    )
    # Its footer's metadata overwritten: the file ends as Parquet does, but cannot be decoded.
    footer = int.from_bytes(data[-8:-4], "little")
    damaged = tmp_path / "damaged.parquet"
    start = len(data) - 8 - footer
    damaged.write_bytes(data[:start] + b"\xab" * footer + data[-8:])
    message = _refusal(store, damaged)
    assert message.startswith(
        f"{damaged}: cannot read the file as Parquet: it is damaged: its Parquet metadata or "
        "data pages cannot be decoded ("
    )
    assert message.endswith("); write it again from its source")


def test_a_csv_of_100000_columns_is_refused_by_its_width(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "answer", *[f"c{i}" for i in range(100_000)]])
        writer.writerow(["q", "a", *["1"] * 100_000])
    assert _refusal(store, path) == (
        f"{path}: line 1: its header names 100,002 columns; judgeboard reads at most "
        f"{MAX_CSV_COLUMNS:,} (keep the columns the format needs, and any extra ones you "
        "want kept)"
    )


@pytest.mark.parametrize(
    ("message", "kind", "expected"),
    [
        (
            'Invalid Input Error: Malformed JSON in file "x.jsonl", at byte 14 in line 4: '
            "no low surrogate in string. \nLINE 1: SELECT",
            "jsonl",
            "malformed JSON near line 3, byte 14 of it: no low surrogate in string",
        ),
        (
            'Invalid Input Error: Malformed JSON in file "x.json", at byte 9 in record/value '
            "4: invalid literal. ",
            "json",
            "malformed JSON near record 3, byte 9 of it: invalid literal",
        ),
        (
            'Invalid Input Error: JSON transform error in file "x.jsonl", in line 2: Object '
            '{"a":1,"a":2} has duplicate key "a"\nTry increasing sample_size',
            "jsonl",
            "near line 2: an object has the key 'a' twice; each key may appear once in an object",
        ),
        (
            "Out of Memory Error: failed to allocate data of size 32.0 KiB (2.7 GiB/2.7 GiB "
            "used)\nPossible solutions:",
            "csv",
            "reading it needs more memory than judgeboard lets DuckDB use (its memory limit); "
            "a file this wide or with records this large must be split",
        ),
        (
            "Invalid Input Error: No magic bytes found at end of file 'x.parquet'",
            "parquet",
            "it is not a Parquet file, or it is cut short (no Parquet footer at its end)",
        ),
    ],
)
def test_duckdbs_refusals_in_words(message: str, kind: str, expected: str) -> None:
    """The refusals a scan of our own cannot place still get their reason in words (the
    scans above find these files' records first)."""
    assert reader_reason(message, kind=kind) == expected
