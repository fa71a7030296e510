"""What the importer knows of one file before it reads it: its columns (after --map), its
format, and the names to give what it holds; and the counts an import adds."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dashboard.ingest import load_sql
from dashboard.ingest.read_sql import Column


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
    mapping: dict[str, str] = field(default_factory=dict)
    full_sample: bool = False  # type the file from every record (see read_sql.describe)


@dataclass
class Counts:
    added: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)

    def add(self, table: str, inserted: load_sql.Inserted) -> None:
        self.added[table] = self.added.get(table, 0) + inserted.added
        self.skipped[table] = self.skipped.get(table, 0) + inserted.skipped
