"""What a failed import tells the user: the file, the record, the field and what is wrong."""

from __future__ import annotations

import re
from pathlib import Path


class IngestError(Exception):
    """Bad input. `record` is 1-based; `line` is set for JSONL, where it can differ from it.

    The message reads `<file>: line <n> (record <k>): field '<f>': <what is wrong>` for JSONL,
    `<file>: record <k> (index <k-1>): …` for a JSON array and `<file>: row <k>: …` for CSV and
    Parquet, where row 1 is the first row after the header.
    """

    def __init__(
        self,
        problem: str,
        *,
        file: str | Path,
        record: int | None = None,
        line: int | None = None,
        field: str | None = None,
        file_kind: str | None = None,
    ) -> None:
        self.file = str(file)
        self.record = record
        self.line = line
        self.field = field
        self.problem = problem
        super().__init__(
            format_message(
                problem, file=self.file, record=record, line=line, field=field, file_kind=file_kind
            )
        )


def where(*, record: int | None, line: int | None, file_kind: str | None) -> str | None:
    """The location words of a message: "line 3 (record 2)", "record 2 (index 1)", "row 2"."""
    if record is None:
        return None if line is None else f"line {line}"
    if file_kind == "jsonl":
        return f"line {line} (record {record})"
    if file_kind == "json":
        return f"record {record} (index {record - 1})"
    return f"row {record}"


def format_message(
    problem: str,
    *,
    file: str,
    record: int | None = None,
    line: int | None = None,
    field: str | None = None,
    file_kind: str | None = None,
) -> str:
    parts = [file]
    location = where(record=record, line=line, file_kind=file_kind)
    if location:
        parts.append(location)
    if field:
        parts.append(f"field '{field}'")
    parts.append(problem)
    return ": ".join(parts)


# DuckDB's name for the kind of error, before its message ("Invalid Input Error: ...").
_DUCKDB_KIND = re.compile(r"^\s*(?:[A-Z][A-Za-z]*\s)*?[A-Za-z]*\s?Error:\s*")
_IN_FILE = re.compile(r"\s*in file \"[^\"]*\",?")
_NO_COLUMN = re.compile(r'Referenced column "([^"]+)" not found')
_COLUMNS = re.compile(r"Expected Number of Columns: (\d+) Found: (\d+)")
# The longest CSV line the reader takes (DuckDB's own default is 2 MB).
MAX_CSV_LINE_MB = 64
# DuckDB's JSON reader refuses values nested deeper than this (arrays and objects, the record
# itself counted).
MAX_JSON_DEPTH = 128
NESTED_TOO_DEEP = (
    f"a value is nested more than {MAX_JSON_DEPTH} levels deep (lists and objects within each "
    f"other); judgeboard reads up to {MAX_JSON_DEPTH} levels"
)


def reader_reason(message: str) -> str:
    """A reader's refusal in our words: what DuckDB said, without its error kind, the query
    it quotes, the path (the message names the file already) or its advice on reader options."""
    if "maximum recursion depth" in message:
        return NESTED_TOO_DEEP
    column = _NO_COLUMN.search(message)
    if column:
        return f"it has no column {column[1]!r}, which its format needs"
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    first = _DUCKDB_KIND.sub("", lines[0]) if lines else ""
    if first.startswith("CSV Error on Line") and "Maximum line size" in message:
        return (
            f"line {first.rpartition(':')[2].strip()} is longer than {MAX_CSV_LINE_MB} MB, the "
            "most judgeboard reads in one CSV line"
        )
    if first.startswith("CSV Error on Line"):
        detail = next(
            (
                line
                for line in lines[1:]
                if not line.startswith(("Original Line", "Possible Solution", "LINE "))
                and "=" not in line
            ),
            "",
        )
        columns = _COLUMNS.search(detail)
        if columns:
            detail = f"expected {columns[1]} columns, found {columns[2]}"
        return f"line {first.rpartition(':')[2].strip()}: {detail or 'malformed CSV'}"
    first = _IN_FILE.sub("", first).rstrip(". ")
    return first or "the reader refused it"
