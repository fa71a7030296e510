"""What the importer knows of one file before it reads it: its columns (after --map), its
format, and the names to give what it holds; and the counts an import adds."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dashboard.ingest import load_sql
from dashboard.ingest.mapping import FieldMap
from dashboard.ingest.read_sql import Column

# What a DuckDB type holds, in words (for messages that must not show DuckDB's types).
_KIND_WORDS = {
    "VARCHAR": "text",
    "JSON": "mixed values",
    "BIGINT": "whole numbers",
    "INTEGER": "whole numbers",
    "UBIGINT": "whole numbers",
    "DOUBLE": "numbers",
    "FLOAT": "numbers",
    "DECIMAL": "numbers",
    "BOOLEAN": "booleans",
    "VARCHAR[]": "lists of text",
    "JSON[]": "lists",
    "STRUCT": "objects",
    "NULL": "nothing",
    '"NULL"': "nothing",
}
REJECTS_SUFFIX = ".rejects.jsonl"  # what `--on-error skip` writes beside a file


@dataclass(frozen=True)
class Columns:
    """A file's columns as the importer sees them, after --map: name -> the file's column."""

    view: dict[str, Column]
    file_columns: tuple[str, ...]

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self.view)

    def type_of(self, name: str) -> str | None:
        found = self.view.get(name)
        return found.sql_type if found else None

    def described(self) -> str:
        """The file's columns with the kind of value each holds, for messages."""
        return ", ".join(
            f"{name} ({_KIND_WORDS.get(self.view[name].sql_type.split('(')[0], 'values')})"
            if name in self.view
            else name
            for name in self.file_columns
        )


@dataclass(frozen=True)
class FilePlan:
    """One file to import: what it is and the names to give what it holds."""

    path: Path
    kind: str  # jsonl | json | csv | parquet
    size_bytes: int
    columns: Columns
    fmt: str
    dataset: str | None  # the user's --dataset
    dataset_default: str
    system: str | None = None
    mapping: dict[str, FieldMap] = field(default_factory=dict)
    full_sample: bool = False  # type the file from every record (see read_sql.describe)
    skip_bad: bool = False  # --on-error skip: reject bad records instead of failing
    # Under skip_bad, when DuckDB cannot read some records: a copy without them.
    readable: Readable | None = None
    replace: bool = False  # --replace: an earlier import of the same content gives way
    # What the file is a copy of, named in reports and errors (a saved dataset's folder).
    source: Path | None = None

    @property
    def read_path(self) -> Path:
        """The file DuckDB reads: the file, or its copy without unreadable records."""
        return self.readable.path if self.readable else self.path

    def original_record(self, index: int) -> int:
        """The 1-based record number, in the file, of the `index`-th (0-based) record read."""
        number = index + 1
        for left_out in self.readable.records if self.readable else ():
            if left_out <= number:
                number += 1
            else:
                break
        return number


@dataclass(frozen=True)
class Reject:
    """A bad record left out under --on-error skip: where it is, what is wrong, the message
    an import without skip would have stopped with, and the record as the file holds it
    (its text for JSON and JSONL, its cells for CSV and Parquet)."""

    record: int | None
    line: int | None
    field: str | None
    problem: str
    message: str
    raw: object


@dataclass(frozen=True)
class Readable:
    """A copy of a file without the records DuckDB cannot read (malformed JSON, invalid
    UTF-8), their 1-based numbers in the file (sorted) and why each was left out."""

    path: Path
    records: tuple[int, ...]
    rejects: tuple[Reject, ...]


@dataclass
class Counts:
    added: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    # New ratings or preferences that took the place of an earlier one of their stream
    # (stored, or earlier in the file) without saying so (no `supersedes` in the record).
    superseded: dict[str, int] = field(default_factory=dict)
    duplicates: int = 0  # records equal to an earlier record of the file, dropped
    # The file's ratings / preferences that hold no value (with their unscored_reason).
    unscored: dict[str, int] = field(default_factory=dict)

    def add(self, table: str, inserted: load_sql.Inserted) -> None:
        self.added[table] = self.added.get(table, 0) + inserted.added
        self.skipped[table] = self.skipped.get(table, 0) + inserted.skipped
        if inserted.superseded:
            self.superseded[table] = self.superseded.get(table, 0) + inserted.superseded


@dataclass(frozen=True)
class Imported:
    """What importing one file did: its counts, its records (rejected ones included), the
    datasets it went into, and the records left out under --on-error skip."""

    counts: Counts
    records: int
    datasets: tuple[str, ...]
    rejects: tuple[Reject, ...] = ()
