"""`--on-error skip`: leave a file's bad records out, and say which and why.

Two kinds of bad record are left out. Records DuckDB's reader cannot read at all (malformed
JSON, invalid UTF-8, a record that is not an object, a CSV row with the wrong number of cells)
are found by scanning the file here, and DuckDB then reads a copy without them. Records it
reads whose fields are wrong (the staged `_problem`, a conflicting duplicate id) are found in
SQL. Each becomes a `Reject` with the message an import without skip would have stopped at
and the record as the file holds it, written to `<file>.rejects.jsonl` beside the file.

A malformed record of a JSON array cannot be skipped (where it ends is unknown), so it still
stops the import; convert such a file to JSONL to skip its bad lines.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from dashboard.ingest.errors import NESTED_TOO_DEEP, IngestError
from dashboard.ingest.locate import (
    array_items,
    csv_cells,
    csv_problems,
    csv_records,
    jsonl_records,
    record_problem,
)
from dashboard.ingest.plan import REJECTS_SUFFIX, FilePlan, Readable, Reject
from dashboard.ingest.strict_json import duplicate_key, duplicate_key_problem

_COPY_PREFIX = "judgeboard-readable-"


def rejects_path(path: Path) -> Path:
    return path.with_name(path.name + REJECTS_SUFFIX)


def as_reject(error: IngestError, raw: object) -> Reject:
    return Reject(error.record, error.line, error.field, error.problem, str(error), raw)


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _jsonl_rejects(path: Path, data: bytes) -> Iterator[tuple[int, int, int, Reject | None]]:
    """(record, start, end) byte span of each record of a JSONL file, and its Reject if
    DuckDB cannot read it."""
    for line, record, start, end in jsonl_records(data):
        raw = data[start:end]
        problem = None
        try:
            value = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as bad_bytes:
            problem = f"invalid UTF-8 (byte {bad_bytes.start + 1} of the line)"
        except json.JSONDecodeError as bad_json:
            problem = f"malformed JSON: {bad_json.msg} (column {bad_json.colno})"
        except RecursionError:
            problem = NESTED_TOO_DEEP
        else:
            found = record_problem(value, None, {})
            problem = found[1] if found else None
            if problem is None and (twice := duplicate_key(raw.decode("utf-8"))) is not None:
                problem = duplicate_key_problem(twice)
        reject = None
        if problem is not None:
            error = IngestError(problem, file=path, record=record, line=line, file_kind="jsonl")
            reject = as_reject(error, _text(raw))
        yield record, start, end, reject


def _json_rejects(path: Path, data: bytes) -> Iterator[tuple[int, int, int, Reject | None]]:
    text = data.decode("utf-8", errors="surrogateescape")
    for index, start, end, value in array_items(text):
        piece = text[start:end]
        problem = None
        try:
            piece.encode("utf-8")
        except UnicodeEncodeError:
            problem = "invalid UTF-8"
        else:
            found = record_problem(value, None, {})
            problem = found[1] if found else None
        reject = None
        if problem is not None:
            error = IngestError(problem, file=path, record=index + 1, file_kind="json")
            raw = piece.encode("utf-8", errors="surrogateescape")
            reject = as_reject(error, _text(raw))
        yield index + 1, start, end, reject


def _csv_rejects(path: Path, data: bytes) -> Iterator[tuple[int, int, int, Reject | None]]:
    for row, start, end, problem in csv_problems(data):
        reject = None
        if problem is not None:
            error = IngestError(problem, file=path, record=row, file_kind="csv")
            reject = as_reject(error, _text(data[start:end]).rstrip("\r\n"))
        yield row, start, end, reject


def readable_copy(path: Path, kind: str) -> Readable | None:
    """A copy of the file without the records DuckDB cannot read, or None when there is no
    such record we can leave out (the reader's failure is then reported as usual)."""
    data = path.read_bytes()
    scan = {"jsonl": _jsonl_rejects, "json": _json_rejects, "csv": _csv_rejects}.get(kind)
    if scan is None:
        return None
    try:
        scanned = list(scan(path, data))
    except (json.JSONDecodeError, RecursionError):  # a malformed record of a JSON array, or
        return None  # one too deep for Python's parser: where it ends is unknown, not skippable
    bad = [(record, reject) for record, _, _, reject in scanned if reject is not None]
    if not bad:
        return None
    copy = copy_folder() / path.name
    good = [(start, end) for _, start, end, reject in scanned if reject is None]
    with open(copy, "wb") as out:
        if kind == "json":
            text = data.decode("utf-8", errors="surrogateescape")
            pieces = (text[start:end] for start, end in good)
            out.write(("[" + ",\n".join(pieces) + "]").encode("utf-8"))
        else:
            if kind == "csv":
                header = next(csv_records(data))
                out.write(data[header[0] : header[1]])
            for start, end in good:
                out.write(data[start:end].rstrip(b"\r\n") + b"\n")
    return Readable(copy, tuple(r for r, _ in bad), tuple(reject for _, reject in bad))


def copy_folder() -> Path:
    """A new temporary folder for a file's readable copy (`remove_copy` deletes it)."""
    return Path(tempfile.mkdtemp(prefix=_COPY_PREFIX))


def remove_copy(readable: Readable) -> None:
    if readable.path.parent.name.startswith(_COPY_PREFIX):
        shutil.rmtree(readable.path.parent, ignore_errors=True)


def remove_copies(plans: Iterable[FilePlan]) -> None:
    for plan in plans:
        if plan.readable is not None:
            remove_copy(plan.readable)


def raw_records(path: Path, kind: str, numbers: Iterable[int]) -> dict[int, Any]:
    """Records of the file by their 1-based number: the text of a JSON or JSONL record, the
    cells (by column) of a CSV or Parquet row."""
    wanted = set(numbers)
    if not wanted:
        return {}
    if kind == "parquet":
        table = pq.read_table(path)
        return {n: table.slice(n - 1, 1).to_pylist()[0] for n in wanted if n <= table.num_rows}
    data = path.read_bytes()
    found: dict[int, Any] = {}
    if kind == "jsonl":
        for _, record, start, end in jsonl_records(data):
            if record in wanted:
                found[record] = _text(data[start:end])
    elif kind == "json":
        text = data.decode("utf-8", errors="surrogateescape")
        for index, start, end, _ in array_items(text):
            if index + 1 in wanted:
                found[index + 1] = text[start:end]
    elif kind == "csv":
        spans = list(csv_records(data))
        header = csv_cells(data[spans[0][0] : spans[0][1]]) if spans else []
        for row, (start, end) in enumerate(spans[1:], start=1):
            if row in wanted:
                found[row] = dict(zip(header, csv_cells(data[start:end]), strict=False))
    return found


def write_rejects(plan: FilePlan, rejects: Sequence[Reject]) -> None:
    """`<file>.rejects.jsonl`: one line per bad record, in file order."""
    target = rejects_path(plan.path)
    lines = []
    for reject in sorted(rejects, key=lambda r: r.record or 0):
        entry = {
            "file": str(plan.path),
            "record": reject.record,
            "line": reject.line,
            "field": reject.field,
            "problem": reject.problem,
            "message": reject.message,
            "raw": reject.raw,
        }
        lines.append(json.dumps(entry, ensure_ascii=False, default=str) + "\n")
    try:
        target.write_text("".join(lines), encoding="utf-8")
    except OSError as error:
        raise IngestError(
            f"cannot write its rejects file {target}: {error.strerror or error}", file=plan.path
        ) from None
