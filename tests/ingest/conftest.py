"""Helpers for import tests: write small input files, and snapshot what a database holds."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dashboard.ingest.read_sql import table_counts
from dashboard.store import Store

Writer = Callable[..., Path]


def write_jsonl(path: Path, records: Sequence[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def write_json(path: Path, records: Sequence[Any]) -> Path:
    path.write_text(json.dumps(list(records), indent=1), encoding="utf-8")
    return path


def write_csv(path: Path, records: Sequence[dict[str, Any]]) -> Path:
    """CSV as formats.md has it: lists JSON-encoded, absent values empty."""
    columns = list(dict.fromkeys(k for r in records for k in r))
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for r in records:
            writer.writerow(
                [
                    ""
                    if r.get(c) is None
                    else json.dumps(r[c])
                    if isinstance(r[c], (list, dict))
                    else r[c]
                    for c in columns
                ]
            )
    return path


def write_parquet(path: Path, records: Sequence[dict[str, Any]]) -> Path:
    pq.write_table(pa.Table.from_pylist(list(records)), path)
    return path


def rating_record(**extra: object) -> dict[str, object]:
    """One valid record of the `ratings` format (a person's 3 on 1–5), with `extra` fields
    changed or added."""
    return {
        "question": "q",
        "system": "s",
        "answer": "a",
        "rater_kind": "human",
        "rater": "ana",
        "rubric": "likert",
        "value": 3,
        "scale_low": 1,
        "scale_high": 5,
        **extra,
    }


WRITERS = {"jsonl": write_jsonl, "json": write_json, "csv": write_csv, "parquet": write_parquet}


def snapshot(store: Store) -> tuple[dict[str, int], list[Any]]:
    """Row counts of every table, and the dataset summaries: equal before and after a failed
    import means the import wrote nothing."""
    with store.connection() as con:
        counts = table_counts(con)
    return counts, store.list_datasets()


def query(store: Store, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    with store.connection() as con:
        return con.execute(sql, list(params)).fetchall()


@pytest.fixture
def write(tmp_path: Path) -> Writer:
    """write(name, records, kind=None): a file in tmp_path; kind defaults to the suffix."""

    def _write(name: str, records: Sequence[Any], kind: str | None = None) -> Path:
        path = tmp_path / name
        return WRITERS[kind or path.suffix.lstrip(".")](path, records)

    return _write
