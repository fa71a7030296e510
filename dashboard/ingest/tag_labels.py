"""Importing people's tag labels: the "tags" file `judgeboard export` writes beside the ratings
file (`results.tags.jsonl`), read back as it was written (every row, current and superseded,
with its provenance; a row without `source` is marked 'import').

A tag label tags an answer, so the answers must be in the database first: a tags file is
imported after every other file of the same import (the ratings file, or the rest of the
folder), in the same transaction. Each record is checked before any is written; a bad one
raises `IngestError` naming the file, the record and the field, and nothing is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

from dashboard.ingest.detect import file_kind, is_tags_file, list_files
from dashboard.ingest.errors import IngestError
from dashboard.ingest.report import FileReport
from dashboard.store.connection import Connection, DatabaseError
from dashboard.store.rows import dicts
from dashboard.store.writes import insert_rows
from dashboard.types import SELECTIONS, SOURCES

FORMAT = "tags"
_READERS = {
    "csv": "read_csv($path, header = true, all_varchar = true)",
    "jsonl": "read_json($path, format = 'newline_delimited', records = true)",
    "json": "read_json($path, format = 'array', records = true)",
    "parquet": "read_parquet($path)",
}
_TEXT = ("tag_id", "response_id", "campaign", "tag", "rater")
_KINDS = ("human", "llm")
_TRUE, _FALSE = frozenset({"true", "1", "t", "yes"}), frozenset({"false", "0", "f", "no"})


def split(requests: Sequence[Any]) -> tuple[list[Any], list[Path]]:
    """The requests for the other importers, and the tags files to import after them: a
    tags file asked for by name, and each tags file of a folder asked for (a folder holding
    tags files alone is left to this importer)."""
    others, found = [], []
    for request in requests:
        path = Path(request.path)
        if path.is_file() and is_tags_file(path):
            found.append(path)
            continue
        if path.is_dir():
            tagged = [f for f in list_files(path, tags=True) if is_tags_file(f)]
            found += tagged
            if tagged and not list_files(path):
                continue
        others.append(request)
    return others, found


def _bool(value: Any, *, field: str, nullable: bool = False) -> bool | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        if nullable:
            return None
        raise ValueError(f"field '{field}': missing; write true or false")
    if isinstance(value, bool):
        return value
    text = str(value).strip().strip('"')  # a JSON column of mixed values keeps its quotes
    if text.lower() in _TRUE or text.lower() in _FALSE:
        return text.lower() in _TRUE
    raise ValueError(f"field '{field}': {text!r} is not true or false")


def _time(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value.replace(tzinfo=None)
    try:
        found = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"field 'created_utc': {value!r} is not a time") from None
    return found.replace(tzinfo=None)


def _row(record: dict[str, Any]) -> dict[str, Any]:
    """One record as a `tag_labels` row, or ValueError saying which field is wrong."""
    row: dict[str, Any] = {}
    for name in _TEXT:
        value = record.get(name)
        if value is None or not str(value).strip():
            raise ValueError(f"field '{name}': missing")
        row[name] = str(value)
    kind = str(record.get("rater_kind") or "")
    if kind not in _KINDS:
        raise ValueError(f"field 'rater_kind': {kind!r} is not one of {', '.join(_KINDS)}")
    row["rater_kind"] = kind
    row["ticked"] = _bool(record.get("ticked"), field="ticked")
    row["created_utc"] = _time(record.get("created_utc"))
    row["blind"] = _bool(record.get("blind"), field="blind", nullable=True)
    # A file exported before migration 22 has no `withdrawn`: none of its rows is.
    row["withdrawn"] = bool(_bool(record.get("withdrawn"), field="withdrawn", nullable=True))
    for name, known in (("selection", SELECTIONS), ("source", SOURCES)):
        value = record.get(name) or None
        if value is not None and value not in known:
            raise ValueError(f"field '{name}': {value!r} is not one of {', '.join(known)}")
        row[name] = value
    row["source"] = row["source"] or "import"
    row["supersedes"] = record.get("supersedes") or None
    return row


def _line(kind: str, record: int) -> int | None:
    return record if kind == "jsonl" else None  # an export writes one record a line


def import_file(con: Connection, path: Path) -> FileReport:
    """Check every record of a tags file, then write them all (in the caller's transaction)."""
    kind = file_kind(path)
    if kind not in _READERS:
        raise IngestError("not a file judgeboard reads (JSON, JSONL, CSV or Parquet)", file=path)
    try:
        records = dicts(con.execute(f"SELECT * FROM {_READERS[kind]}", {"path": str(path)}))
    except DatabaseError as error:  # DuckDB's reader: its message says what it could not read
        raise IngestError(f"cannot read it: {str(error).splitlines()[0]}", file=path) from None
    rows = []
    for number, record in enumerate(records, start=1):
        try:
            rows.append(_row(record))
        except ValueError as error:
            raise IngestError(
                str(error), file=path, record=number, line=_line(kind, number), file_kind=kind
            ) from None
    known = {
        r[0]
        for r in con.execute(
            "SELECT response_id FROM responses WHERE response_id IN (SELECT unnest($ids))",
            {"ids": sorted({row["response_id"] for row in rows})},
        ).fetchall()
    }
    for number, row in enumerate(rows, start=1):
        if row["response_id"] not in known:
            raise IngestError(
                f"field 'response_id': {row['response_id']!r} is not an answer in the "
                "database; import the answers (the export's ratings file) with it or first",
                file=path,
                record=number,
                line=_line(kind, number),
                file_kind=kind,
            )
    added = insert_rows(con, "tag_labels", rows)
    return FileReport(
        str(path),
        FORMAT,
        (),
        len(records),
        MappingProxyType({"tag labels": added}),
        MappingProxyType({"tag labels": len({r["tag_id"] for r in rows}) - added}),
        MappingProxyType({}),
    )


def import_files(con: Connection, paths: Sequence[Path]) -> list[FileReport]:
    """Each tags file, in order (after the files that bring their answers)."""
    return [import_file(con, path) for path in paths]
