"""`import_path`: import a file or a folder in one transaction, and report what it added."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from dashboard.ingest import adapters, read_sql
from dashboard.ingest.adapters import ADAPTERS
from dashboard.ingest.detect import (
    ALL_FORMATS,
    dataset_default,
    detect_format,
    file_kind,
    list_files,
    mapped_columns,
    near_miss,
)
from dashboard.ingest.errors import IngestError
from dashboard.ingest.generic import import_generic, read_error
from dashboard.ingest.locate import locate
from dashboard.ingest.plan import FilePlan
from dashboard.metrics import reference
from dashboard.store import Store
from dashboard.store.connection import Connection, DatabaseError, transaction

log = logging.getLogger(__name__)

# on_progress(stage, fraction): stage is a short phrase ("reading x.jsonl"); fraction is in
# [0, 1], or None when the stage's length is unknown.
ProgressCallback = Callable[[str, float | None], None]
TABLES = ("items", "responses", "ratings", "preferences")


@dataclass(frozen=True)
class FileReport:
    file: str
    format: str
    datasets: tuple[str, ...]
    records: int
    added: Mapping[str, int]
    skipped: Mapping[str, int]  # distinct rows of the file that were already stored


@dataclass(frozen=True)
class ImportReport:
    files: tuple[FileReport, ...]
    ignored: tuple[str, ...] = ()  # files of a folder in no format we know
    scored: int = 0  # responses scored against their references after the import

    @property
    def datasets(self) -> tuple[str, ...]:
        return tuple(sorted({d for f in self.files for d in f.datasets}))

    @property
    def formats(self) -> tuple[str, ...]:
        return tuple(sorted({f.format for f in self.files}))

    def _total(self, attribute: str) -> dict[str, int]:
        return {t: sum(getattr(f, attribute).get(t, 0) for f in self.files) for t in TABLES}

    @property
    def added(self) -> dict[str, int]:
        return self._total("added")

    @property
    def skipped(self) -> dict[str, int]:
        return self._total("skipped")

    def lines(self, *, names_only: bool = False) -> list[str]:
        """What was imported, file by file, as `judgeboard import` and the Data page say it."""
        lines = []
        for f in self.files:
            added = ", ".join(f"{n:,} {t}" for t, n in f.added.items() if n) or "nothing new"
            skipped = sum(f.skipped.values())
            note = f" ({skipped:,} rows already stored)" if skipped else ""
            name = Path(f.file).name if names_only else f.file
            lines.append(
                f"{name}: {f.records:,} records as {f.format} into "
                f"{', '.join(f.datasets)}: added {added}{note}"
            )
        lines.extend(f"{name}: skipped (no format judgeboard knows)" for name in self.ignored)
        return lines


@dataclass(frozen=True)
class ImportRequest:
    """One path to import and the names to give what it holds (see `import_path`)."""

    path: Path
    dataset: str | None = None
    system: str | None = None
    fmt: str | None = None
    mapping: Mapping[str, str] = field(default_factory=dict)

    @property
    def directory(self) -> Path | None:
        return self.path if self.path.is_dir() else None


def _plan(con: Connection, path: Path, options: ImportRequest) -> FilePlan | None:
    """What one file is; None when a folder's file is in no known format."""
    kind = file_kind(path)
    if kind is None:
        raise IngestError("not a file judgeboard reads (JSON, JSONL, CSV or Parquet)", file=path)
    size = path.stat().st_size
    probe = FilePlan(path, kind, size, mapped_columns(path, [], {}), "", None, "")
    try:
        described = read_sql.describe(con, kind, str(path), size_bytes=size)
        full_sample = read_sql.needs_full_sample(kind, described, size_bytes=size)
        if full_sample:
            described = read_sql.describe(con, kind, str(path), size_bytes=size, full_sample=True)
    except DatabaseError as error:
        raise read_error(probe, None, error) from None
    if [column.name for column in described] == ["json"]:
        # DuckDB reads a file whose records are not all objects as one column `json`.
        found = locate(path, kind, None, {})
        raise found or IngestError("the file holds no records", file=path)
    mapping = dict(options.mapping)
    columns = mapped_columns(path, described, mapping)
    fmt = options.fmt or detect_format(columns)
    nearly = None if options.fmt else near_miss(columns, fmt)
    if nearly is not None:
        instead = f"--format {fmt} to import it as {fmt}" if fmt else "--format to say what it is"
        raise IngestError(f"{nearly}; fix the file, or pass {instead}", file=path)
    if fmt is None:
        if options.directory is not None:
            return None
        raise IngestError(
            f"cannot tell its format from its columns ({', '.join(columns.file_columns)}); "
            f"pass --format ({', '.join(ALL_FORMATS)}) or --map TARGET=SOURCE",
            file=path,
        )
    return FilePlan(
        path,
        kind,
        size,
        columns,
        fmt,
        options.dataset,
        dataset_default(path, directory=options.directory),
        options.system,
        mapping,
        full_sample,
    )


def _plans(con: Connection, options: ImportRequest) -> tuple[list[FilePlan], list[str]]:
    path = options.path
    if not path.exists():
        raise IngestError("no such file or folder", file=path)
    if options.fmt is not None and options.fmt not in ALL_FORMATS:
        raise IngestError(
            f"unknown format {options.fmt!r} (known: {', '.join(ALL_FORMATS)})", file=path
        )
    files = list_files(path) if path.is_dir() else [path]
    plans, ignored = [], []
    for file in files:
        plan = _plan(con, file, options)
        if plan is None:
            ignored.append(str(file))
        else:
            plans.append(plan)
    if not plans:
        raise IngestError("no file in a format judgeboard knows", file=path)
    # Files that join to others (PandaLM's judge files need its pairs) import last.
    plans.sort(key=lambda p: (adapters.phase(p.fmt, p.columns.names), p.path.name))
    return plans, ignored


def _import_file(
    con: Connection, plan: FilePlan, on_progress: ProgressCallback | None
) -> FileReport:
    name = plan.path.name
    if on_progress:
        on_progress(f"reading {name}", 0.0)
    if plan.fmt in ADAPTERS:  # small files, read in a few statements: done is all we say
        counts, records, datasets = adapters.import_adapter(con, plan)
        if on_progress:
            on_progress(f"reading {name}", 1.0)
    else:
        fraction = (lambda f: on_progress(f"reading {name}", f)) if on_progress else None
        counts, records, datasets = import_generic(con, plan, on_progress=fraction)
    return FileReport(
        str(plan.path),
        plan.fmt,
        datasets,
        records,
        MappingProxyType(counts.added),
        MappingProxyType(counts.skipped),
    )


SCORING = "scoring answers against references"


def import_requests(
    store: Store,
    requests: Sequence[ImportRequest],
    *,
    on_progress: ProgressCallback | None = None,
    score: bool = True,
) -> ImportReport:
    """Import several paths in one transaction: all of them, or nothing. Then, unless `score`
    is False, score the new responses against their references (`metrics.reference`), so
    that no read has to (`judgeboard score` does it later for an import made without)."""
    with store.connection() as con, read_sql.bulk_write_settings(con), transaction(con):
        reports: list[FileReport] = []
        ignored: list[str] = []
        for request in requests:
            plans, skipped = _plans(con, request)
            ignored.extend(skipped)
            reports.extend(_import_file(con, plan, on_progress) for plan in plans)
        if on_progress:
            on_progress("committing", None)
    for name in ignored:
        log.info("%s: skipped, no known format", name)
    report = ImportReport(tuple(reports), tuple(ignored))
    if score:
        scored = reference.score_datasets(
            store,
            report.datasets,
            on_progress=None
            if (on_progress is None)
            else lambda done, total: on_progress(SCORING, done / total),
        )
        report = dataclasses.replace(report, scored=scored)
    if on_progress:
        on_progress("done", 1.0)
    return report


def import_path(
    store: Store,
    path: str | Path,
    *,
    dataset: str | None = None,
    system: str | None = None,
    fmt: str | None = None,
    mapping: Mapping[str, str] | None = None,
    on_progress: ProgressCallback | None = None,
    score: bool = True,
) -> ImportReport:
    """Import a file, or every file of a folder we know the format of, in one transaction.

    Any bad record raises IngestError naming the file, the record and the field, and the
    database is left as it was. Ids derive from content, so importing a file twice adds nothing.
    `on_progress(stage, fraction)` is called on the caller's thread.
    """
    request = ImportRequest(Path(path), dataset, system, fmt, dict(mapping or {}))
    return import_requests(store, [request], on_progress=on_progress, score=score)
