"""What a failed import tells the user: the file, the record, the field and what is wrong."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Remedy:
    """How to fix the input, said twice: with the command line's options (`--map`,
    `--format`, `--dataset`) and with the Data page's controls (its pickers and boxes)."""

    cli: str
    page: str


class IngestError(Exception):
    """Bad input. `record` is 1-based; `line` is set for JSONL, where it can differ from it.

    The message reads `<file>: line <n> (record <k>): field '<f>': <what is wrong>` for JSONL,
    `<file>: record <k> (index <k-1>): …` for a JSON array and `<file>: row <k>: …` for CSV and
    Parquet, where row 1 is the first row after the header. A `remedy` ends the message:
    `str(error)` says it with the command line's options, `page_message` with the Data
    page's controls.
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
        remedy: Remedy | None = None,
    ) -> None:
        self.file = str(file)
        self.record = record
        self.line = line
        self.field = field
        self.problem = problem
        self.file_kind = file_kind
        self.remedy = remedy
        super().__init__(self._message(remedy.cli if remedy else None))

    def _message(self, fix: str | None) -> str:
        problem = f"{self.problem}; {fix}" if fix else self.problem
        return format_message(
            problem,
            file=self.file,
            record=self.record,
            line=self.line,
            field=self.field,
            file_kind=self.file_kind,
        )

    @property
    def page_message(self) -> str:
        """The message with the remedy in the Data page's words."""
        return self._message(self.remedy.page if self.remedy else None)


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


def with_remedy(error: IngestError, remedy: Remedy) -> IngestError:
    """The same error, ending with this remedy."""
    return IngestError(
        error.problem,
        file=error.file,
        record=error.record,
        line=error.line,
        field=error.field,
        file_kind=error.file_kind,
        remedy=remedy,
    )


def pick_column(field: str) -> Remedy:
    return Remedy(f"map a column onto it with --map {field}=COLUMN", f"pick a column for {field}")


def map_value(value: str, *, column: str, spec: str) -> Remedy:
    return Remedy(f"add {value!r} to --map '{spec}'", f"map the value {value!r} of column {column}")


def choose_format(formats: tuple[str, ...]) -> Remedy:
    return Remedy(
        f"pass --format ({', '.join(formats)}) or --map TARGET=SOURCE",
        "choose its format, or pick columns for the fields of one",
    )


def other_format() -> Remedy:
    return Remedy(
        "leave out --format to detect the format, or pass the one the file is in",
        "choose the format the file is in, or detect it from the columns",
    )


# DuckDB's name for the kind of error, before its message ("Invalid Input Error: ...").
_DUCKDB_KIND = re.compile(r"^\s*(?:[A-Z][A-Za-z]*\s)*?[A-Za-z]*\s?Error:\s*")
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


_MALFORMED_JSON = re.compile(
    r"Malformed JSON in file .*?, at byte (\d+) in (line|record/value) (\d+): (.+)"
)
_DUPLICATE_KEY = re.compile(r'in line (\d+): Object .* has duplicate key "([^"]*)"')
_PARQUET_NOT = ("No magic bytes", "too small to be a Parquet file", "not a parquet file")


def _parquet_reason(first: str) -> str:
    if any(marker.lower() in first.lower() for marker in _PARQUET_NOT):
        return "it is not a Parquet file, or it is cut short (no Parquet footer at its end)"
    return (
        "it is damaged: its Parquet metadata or data pages cannot be decoded "
        f"({first.rstrip('. ')}); write it again from its source"
    )


def reader_reason(message: str, *, kind: str | None = None) -> str | None:
    """The refusals of DuckDB's readers in our words: a value nested too deep, a CSV line too
    long or with too many columns, a column the format needs, a key twice in an object,
    malformed JSON at a byte, damaged Parquet, a file that needs more memory than DuckDB
    may use. None for the others, whose text stays in the log."""
    if "maximum recursion depth" in message:
        return NESTED_TOO_DEEP
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    first = _DUCKDB_KIND.sub("", lines[0]) if lines else ""
    if "Out of Memory Error" in message:
        return (
            "reading it needs more memory than judgeboard lets DuckDB use (its memory "
            "limit); a file this wide or with records this large must be split"
        )
    if kind == "parquet":
        return _parquet_reason(first)
    duplicate = _DUPLICATE_KEY.search(message)
    if duplicate:
        return (
            f"near line {duplicate[1]}: an object has the key {duplicate[2]!r} twice; "
            "each key may appear once in an object"
        )
    malformed = _MALFORMED_JSON.search(first)
    if malformed:
        # DuckDB's line or record is one past the bad one (see locate.py); its byte is
        # counted within that record.
        unit = "line" if malformed[2] == "line" else "record"
        return (
            f"malformed JSON near {unit} {max(1, int(malformed[3]) - 1)}, byte "
            f"{malformed[1]} of it: {malformed[4].rstrip('. ')}"
        )
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
    return None


def in_file(error: IngestError, file: str | Path) -> IngestError:
    """The same error, naming another file (the original of a copy the importer read)."""
    return IngestError(
        error.problem,
        file=file,
        record=error.record,
        line=error.line,
        field=error.field,
        file_kind=error.file_kind,
        remedy=error.remedy,
    )
