"""What a failed import tells the user: the file, the record, the field and what is wrong."""

from __future__ import annotations

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
