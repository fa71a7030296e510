"""Finding the exact bad record after DuckDB's reader refused a file (the error path only).

DuckDB's message for malformed JSON or invalid UTF-8 names a line that we measured to be one
past the bad one ("line 3" for a bad line 2), and a byte offset within it. So when a read
fails we scan the file ourselves, record by record, and name the line, the record and, for a
value of the wrong type, the field. The happy path never comes here.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from dashboard.ingest.errors import MAX_JSON_DEPTH, NESTED_TOO_DEEP, IngestError
from dashboard.ingest.formats import (
    FLAG,
    HISTORY,
    KEY,
    LABEL,
    LETTERS,
    NUMBER,
    OBJECT,
    OPTIONS,
    PASSAGE,
    PROBABILITY,
    SCALAR_TEXT,
    STRINGS,
    TEXT,
    TEXTS,
    Format,
)
from dashboard.ingest.mapping import FieldMap
from dashboard.ingest.strict_json import (
    STRICT,
    DuplicateKey,
    duplicate_key_problem,
    lone_surrogate,
    lone_surrogate_problem,
)

_JSON_NAMES = {
    str: "a string",
    list: "a list",
    dict: "an object",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    type(None): "null",
}


# The same words as the SQL checks use (fields_sql.py).
_EXPECTED = {
    TEXT: "a string",
    KEY: "a string or a whole number",
    SCALAR_TEXT: "a string",
    TEXTS: "a string or a list of strings",
    PASSAGE: "a string or a list of strings",
    STRINGS: "a list of strings",
    NUMBER: "a number",
    OPTIONS: 'a list of option texts or an object {"A": text, "B": text, ...}',
    LETTERS: 'option letters such as "B", "A, C" or ["A", "C"]',
    HISTORY: 'a list of turns {"role": "user"|"assistant", "content": text} or of strings',
    LABEL: "true/yes/hallucinated/1 or false/no/faithful/0",
    FLAG: "true/yes/1 or false/no/0",
    PROBABILITY: "a probability in (0, 1]",
    OBJECT: "a JSON object",
}


def _name(value: Any) -> str:
    return _JSON_NAMES.get(type(value), type(value).__name__)


def _is_strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def type_problem(kind: str, value: Any) -> str | None:
    """What is wrong with a JSON value for a field of this kind (types only), or None."""
    if value is None:
        return None
    ok = {
        TEXT: isinstance(value, str),
        KEY: isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)),
        SCALAR_TEXT: not isinstance(value, (list, dict)),
        TEXTS: isinstance(value, str) or _is_strings(value),
        PASSAGE: isinstance(value, str) or _is_strings(value),
        STRINGS: _is_strings(value),
        OPTIONS: _is_strings(value) or isinstance(value, dict),
        LETTERS: isinstance(value, str) or _is_strings(value),
        NUMBER: (isinstance(value, (int, float)) and not isinstance(value, bool))
        or (isinstance(value, str) and _is_number(value)),
        HISTORY: isinstance(value, list),
        LABEL: not isinstance(value, (list, dict)),
        FLAG: not isinstance(value, (list, dict)),
        PROBABILITY: isinstance(value, (int, float, str)) and not isinstance(value, bool),
        OBJECT: isinstance(value, (dict, str)),  # an object, or its JSON text
    }.get(kind, True)
    return None if ok else f"expected {_EXPECTED.get(kind, kind)}, got {_name(value)}"


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in a JSON value (a scalar is 0, `{}` is 1)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        current, depth = stack.pop()
        children = current.values() if isinstance(current, dict) else current
        if isinstance(current, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _checked_column(name: str, mapping: Mapping[str, FieldMap]) -> str | None:
    """The column whose JSON type a field's kind constrains; None for a constant or a
    value-mapped column (the mapping's SQL checks those)."""
    found = mapping.get(name)
    if found is None:
        return name
    return found.source if found.constant is None and found.values is None else None


def record_problem(
    record: Any, fmt: Format | None, mapping: Mapping[str, FieldMap]
) -> tuple[str | None, str] | None:
    """(field, problem) of a parsed record whose shape or types are wrong, or None."""
    if not isinstance(record, dict):
        return None, f"expected a JSON object, got {_name(record)}"
    if _depth(record) > MAX_JSON_DEPTH:
        return None, NESTED_TOO_DEEP
    lone = lone_surrogate(record)
    if lone is not None:
        return None, lone_surrogate_problem(lone)
    for field in fmt.fields if fmt else ():
        source = _checked_column(field.name, mapping)
        if source is None:
            continue
        problem = type_problem(field.kind, record.get(source))
        if problem:
            return source, problem
    return None


def jsonl_records(data: bytes) -> Iterator[tuple[int, int, int, int]]:
    """(line number, record number, start, end) of each non-blank line, its byte span
    without the newline; DuckDB skips blank lines."""
    record, start = 0, 0
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if raw.strip():
            record += 1
            yield number, record, start, start + len(raw)
        start += len(raw) + 1


def locate_jsonl(
    path: Path, fmt: Format | None, mapping: Mapping[str, FieldMap]
) -> IngestError | None:
    data = path.read_bytes()
    for line, record, start, end in jsonl_records(data):
        raw = data[start:end]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            return IngestError(
                f"invalid UTF-8 (byte {error.start + 1} of the line)",
                file=path,
                record=record,
                line=line,
                file_kind="jsonl",
            )
        try:
            value = STRICT.decode(text)
        except RecursionError:
            return IngestError(
                NESTED_TOO_DEEP, file=path, record=record, line=line, file_kind="jsonl"
            )
        except DuplicateKey as error:
            return IngestError(
                duplicate_key_problem(error.key),
                file=path,
                record=record,
                line=line,
                file_kind="jsonl",
            )
        except json.JSONDecodeError as error:
            return IngestError(
                f"malformed JSON: {error.msg} (column {error.colno})",
                file=path,
                record=record,
                line=line,
                file_kind="jsonl",
            )
        found = record_problem(value, fmt, mapping)
        if found:
            return IngestError(
                found[1], file=path, record=record, line=line, field=found[0], file_kind="jsonl"
            )
    return None


def jsonl_line(path: Path, record: int) -> int:
    """The line number of the `record`-th (1-based) record of a JSONL file."""
    with open(path, "rb") as handle:
        seen = 0
        for number, raw in enumerate(handle, start=1):
            if raw.strip():
                seen += 1
                if seen == record:
                    return number
    return record


class _BadRecord(json.JSONDecodeError):
    """A record of a JSON array that does not parse, with its index in the array."""

    def __init__(self, error: json.JSONDecodeError, record_index: int) -> None:
        super().__init__(error.msg, error.doc, error.pos)
        self.record_index = record_index


class _Duplicated(DuplicateKey):
    """A record of a JSON array with a key twice in one object, with its index."""

    def __init__(self, key: str, record_index: int) -> None:
        super().__init__(key)
        self.record_index = record_index


class _TooDeep(RecursionError):
    """A record of a JSON array nested too deeply for Python's own parser."""

    def __init__(self, record_index: int) -> None:
        super().__init__(record_index)
        self.record_index = record_index


def array_items(text: str, *, strict: bool = False) -> Iterator[tuple[int, int, int, Any]]:
    """(index, start, end, value) of each element of a JSON array; raises at a bad one
    (`strict`: an object with a key twice is a bad one too)."""
    decoder = STRICT if strict else json.JSONDecoder()
    pos = len(text) - len(text.lstrip())
    if text[pos : pos + 1] != "[":
        raise json.JSONDecodeError("expected a JSON array", text, pos)
    pos += 1
    index = 0
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if text[pos : pos + 1] == "]":
            rest = len(text) - len(text[pos + 1 :].lstrip())
            if rest < len(text):
                raise json.JSONDecodeError("text after the end of the array", text, rest)
            return
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as error:
            raise _BadRecord(error, index) from None
        except RecursionError:
            raise _TooDeep(index) from None
        except DuplicateKey as error:
            raise _Duplicated(error.key, index) from None
        yield index, pos, end, value
        index, pos = index + 1, end


def locate_json_array(
    path: Path, fmt: Format | None, mapping: Mapping[str, FieldMap]
) -> IngestError | None:
    data = path.read_bytes()
    text = data.decode("utf-8", errors="surrogateescape")
    bad_char = None  # where the first invalid byte sits, as a position in `text`
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        bad_char = len(data[: error.start].decode("utf-8"))
    try:
        for index, _, end, value in array_items(text, strict=True):
            if bad_char is not None and end > bad_char:
                return IngestError("invalid UTF-8", file=path, record=index + 1, file_kind="json")
            found = record_problem(value, fmt, mapping)
            if found:
                return IngestError(
                    found[1], file=path, record=index + 1, field=found[0], file_kind="json"
                )
    except _TooDeep as error:
        return IngestError(
            NESTED_TOO_DEEP, file=path, record=error.record_index + 1, file_kind="json"
        )
    except _Duplicated as error:
        return IngestError(
            duplicate_key_problem(error.key),
            file=path,
            record=error.record_index + 1,
            file_kind="json",
        )
    except json.JSONDecodeError as error:
        failed_at = error.record_index if isinstance(error, _BadRecord) else None
        message = f"malformed JSON: {error.msg} (line {error.lineno} column {error.colno})"
        record = None if failed_at is None else failed_at + 1
        return IngestError(message, file=path, record=record, file_kind="json")
    return None


def csv_records(data: bytes) -> Iterator[tuple[int, int]]:
    """The byte span of each record of a CSV file, the header first: a record ends at a
    newline outside quotes (a doubled quote inside quotes toggles twice)."""
    start, quoted = 0, False
    for position, byte in enumerate(data):
        if byte == 0x22:
            quoted = not quoted
        elif byte == 0x0A and not quoted:
            yield start, position + 1
            start = position + 1
    if data[start:].strip():
        yield start, len(data)


def csv_cells(raw: bytes) -> list[str]:
    """The cells of one CSV record (raises UnicodeDecodeError on invalid UTF-8)."""
    return next(csv.reader(io.StringIO(raw.decode("utf-8"))), [])


def csv_problems(data: bytes) -> Iterator[tuple[int, int, int, str | None]]:
    """(row, start, end, problem or None) of each row after the header."""
    spans = csv_records(data)
    header = next(spans, None)
    head = data[header[0] : header[1]] if header else b""
    width = len(next(csv.reader(io.StringIO(head.decode("utf-8", errors="replace"))), []))
    for row, (start, end) in enumerate(spans, start=1):
        try:
            cells = csv_cells(data[start:end])
        except UnicodeDecodeError:
            yield row, start, end, "invalid UTF-8"
            continue
        problem = None if len(cells) == width else f"has {len(cells)} cells, the header has {width}"
        yield row, start, end, problem


def locate_csv(path: Path) -> IngestError | None:
    for row, _, _, problem in csv_problems(path.read_bytes()):
        if problem is not None:
            return IngestError(problem, file=path, record=row, file_kind="csv")
    return None


def locate(
    path: Path, file_kind: str, fmt: Format | None, mapping: Mapping[str, FieldMap]
) -> IngestError | None:
    """The first bad record of a file DuckDB could not read, or None if we see none."""
    if file_kind == "jsonl":
        return locate_jsonl(path, fmt, mapping)
    if file_kind == "json":
        return locate_json_array(path, fmt, mapping)
    if file_kind == "csv":
        return locate_csv(path)
    return None
