"""`import_path`: import a file or a folder in one transaction, and report what it added."""

from __future__ import annotations

import dataclasses
import logging
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from dashboard.campaigns import rules
from dashboard.ingest import (
    adapters,
    imports_sql,
    read_sql,
    rejects,
    replacing,
    sizes,
    tag_labels,
)
from dashboard.ingest.adapters import ADAPTERS
from dashboard.ingest.describe import describe_file
from dashboard.ingest.detect import (
    ALL_FORMATS,
    dataset_default,
    detect_format,
    file_kind,
    home_folder,
    is_summary,
    list_files,
    mapped_columns,
    near_miss,
    split_homes,
)
from dashboard.ingest.errors import (
    IngestError,
    Remedy,
    choose_format,
    in_file,
    other_format,
)
from dashboard.ingest.generic import import_generic
from dashboard.ingest.locate import locate
from dashboard.ingest.mapping import FieldMap, as_field_maps
from dashboard.ingest.plan import Columns, FilePlan, Imported, Readable
from dashboard.ingest.report import TABLES, FileReport, ImportReport
from dashboard.ingest.saved_datasets import is_saved_dataset, parquet_copy, saved_splits
from dashboard.ingest.tools import Tool, records_copy, tool_for
from dashboard.metrics import reference
from dashboard.store import Store
from dashboard.store.connection import Connection, transaction

log = logging.getLogger(__name__)

# on_progress(stage, fraction): stage is a short phrase ("reading x.jsonl"); fraction is in
# [0, 1], or None when the stage's length is unknown.
ProgressCallback = Callable[[str, float | None], None]
ON_ERROR = ("fail", "skip")  # --on-error: stop at the first bad record, or leave bad ones out

__all__ = [
    "ON_ERROR",
    "TABLES",
    "FileReport",
    "ImportReport",
    "ImportRequest",
    "ProgressCallback",
    "import_path",
    "import_requests",
]


@dataclass(frozen=True)
class ImportRequest:
    """A path to import, how to name what it holds; `mapping`: field -> column or `FieldMap`."""

    path: Path
    dataset: str | None = None
    system: str | None = None
    fmt: str | None = None
    mapping: Mapping[str, str | FieldMap] = field(default_factory=dict)
    on_error: str = "fail"
    replace: bool = False  # an earlier import of the same content gives way (`replacing`)
    # The largest record read, in MB (None: $JUDGEBOARD_MAX_RECORD_MB, else 64; `sizes`).
    max_record_mb: float | None = None

    @property
    def directory(self) -> Path | None:
        return self.path if self.path.is_dir() else None


def _format(path: Path, columns: Columns, options: ImportRequest) -> str | None:
    """The format named or detected; a named published set must have its keys."""
    fmt = options.fmt
    if fmt in ADAPTERS:
        adapter = ADAPTERS[fmt]
        if not any(keys <= frozenset(columns.file_columns) for keys in adapter.detect):
            wanted = " or ".join(f"({', '.join(sorted(keys))})" for keys in adapter.detect)
            raise IngestError(
                f"not a file of {adapter.title}: it lacks their columns {wanted} "
                f"(it has: {', '.join(columns.file_columns)})",
                file=path,
                remedy=other_format(),
            )
    fmt = fmt or detect_format(columns)
    if fmt in ADAPTERS and options.mapping:
        raise IngestError(
            f"a file of {ADAPTERS[fmt].title}, which is imported as published: a column "
            "mapping does not apply to it",
            file=path,
            remedy=Remedy(
                "leave out --map, or pass --format NAME of a plain format",
                "clear the column pickers, or choose a plain format",
            ),
        )
    return fmt


def _plan(
    con: Connection, path: Path, options: ImportRequest, *, split: bool = False
) -> FilePlan | None:
    """What one file is; None when a folder's file is in no known format (`split`: it goes
    into its own folder's dataset, `detect.split_homes`)."""
    tool = tool_for(path) if options.fmt is None else None
    if tool is not None:
        return _tool_plan(con, path, tool, options, split=split)
    kind = file_kind(path)
    if kind is None:
        raise IngestError("not a file judgeboard reads (JSON, JSONL, CSV or Parquet)", file=path)
    # Before anything reads a record: a huge one costs DuckDB many times its size.
    sizes.check_record_sizes(path, kind, limit=sizes.max_record_bytes(options.max_record_mb))
    if options.directory is not None and kind == "jsonl" and is_summary(path):
        return None  # a summary beside the data, not records: skipped and listed
    described, full_sample, readable = describe_file(con, path, kind, on_error=options.on_error)
    if [column.name for column in described] == ["json"]:
        # DuckDB reads a file whose records are not all objects as one column `json`.
        found = locate(path, kind, None, {})
        raise found or IngestError("the file holds no records", file=path)
    mapping = as_field_maps(options.mapping)
    columns = mapped_columns(path, described, mapping)
    fmt = _format(path, columns, options)
    nearly = None if options.fmt else near_miss(columns, fmt)
    if nearly is not None:
        instead = f"--format {fmt} to import it as {fmt}" if fmt else "--format to say what it is"
        raise IngestError(f"{nearly}; fix the file, or pass {instead}", file=path)
    if fmt is None:
        if options.directory is not None:
            return None
        raise IngestError(
            f"cannot tell its format from its columns ({', '.join(columns.file_columns)})",
            file=path,
            remedy=choose_format(ALL_FORMATS),
        )
    return FilePlan(
        path,
        kind,
        path.stat().st_size,
        columns,
        fmt,
        options.dataset,
        dataset_default(path, directory=options.directory, split=split),
        options.system,
        mapping,
        full_sample,
        skip_bad=options.on_error == "skip",
        readable=readable,
        replace=options.replace,
    )


def _tool_plan(
    con: Connection, path: Path, tool: Tool, options: ImportRequest, *, split: bool
) -> FilePlan:
    """A file of an eval tool (`tools`): read by its reader into `ratings` records, which the
    importer reads from a copy; messages name the file."""
    if options.mapping:
        raise IngestError(f"{tool.title} is imported as written: --map does not apply", file=path)
    folder = rejects.copy_folder()
    try:
        copy = records_copy(tool, path, folder)
        described, full_sample, _ = describe_file(con, copy, "jsonl", on_error="fail")
    except BaseException:
        rejects.remove_copy(Readable(folder / "x", (), ()))
        raise
    return FilePlan(
        path,
        "jsonl",
        path.stat().st_size,
        mapped_columns(path, described, {}),
        "ratings",
        options.dataset,
        dataset_default(path, directory=options.directory, split=split),
        options.system,
        full_sample=full_sample,
        readable=Readable(copy, (), ()),
        replace=options.replace,
    )


def _saved_plans(con: Connection, options: ImportRequest) -> list[FilePlan]:
    """A dataset saved by `save_to_disk`: each split planned from its Parquet copy, which is
    named for the split's dataset; reports and errors name the saved folder."""
    plans: list[FilePlan] = []
    folders: list[Path] = []
    try:
        for split in saved_splits(options.path):
            folders.append(rejects.copy_folder())
            copy = parquet_copy(split, folders[-1] / f"{split.dataset}.parquet")
            try:
                plan = _plan(con, copy, dataclasses.replace(options, path=copy))
            except IngestError as error:
                raise in_file(error, split.folder) from None
            assert plan is not None  # a file of no known format raised: it is no folder's
            readable = Readable(copy, (), ())  # the copy goes when the import is done
            plan = dataclasses.replace(plan, readable=readable, source=split.folder)
            plans.append(dataclasses.replace(plan, dataset_default=split.dataset))
    except BaseException:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    return plans


def _plans(con: Connection, options: ImportRequest) -> tuple[list[FilePlan], list[str]]:
    path = options.path
    if not path.exists():
        raise IngestError("no such file or folder", file=path)
    if options.fmt is not None and options.fmt not in ALL_FORMATS:
        raise IngestError(
            f"unknown format {options.fmt!r} (known: {', '.join(ALL_FORMATS)})", file=path
        )
    if options.on_error not in ON_ERROR:
        raise ValueError(f"on_error must be one of {ON_ERROR}, not {options.on_error!r}")
    if is_saved_dataset(path):
        return _saved_plans(con, options), []
    files = list_files(path) if path.is_dir() else [path]
    split = split_homes(files) if path.is_dir() else set()
    plans, ignored = [], []
    for file in files:
        plan = _plan(con, file, options, split=home_folder(file) in split)
        if plan is None:
            ignored.append(str(file))
        else:
            plans.append(plan)
    if not plans:
        raise IngestError("no file in a format judgeboard knows", file=path)
    # Files that join to others (PandaLM's judge files need its pairs) import last.
    plans.sort(key=lambda p: (adapters.phase(p.fmt, p.columns.names), p.path.parts))
    return plans, ignored


def _import_file(
    con: Connection, plan: FilePlan, on_progress: ProgressCallback | None
) -> tuple[FileReport, Imported]:
    try:
        return _read_file(con, plan, on_progress)
    except IngestError as error:
        if plan.source is None:
            raise
        raise in_file(error, plan.source) from None


def _read_file(
    con: Connection, plan: FilePlan, on_progress: ProgressCallback | None
) -> tuple[FileReport, Imported]:
    name = plan.path.name
    if on_progress:
        on_progress(f"reading {name}", 0.0)
    imports_sql.start_file(con)
    if plan.fmt in ADAPTERS:  # small files, read in a few statements: done is all we say
        imported = adapters.import_adapter(con, plan)
        if on_progress:
            on_progress(f"reading {name}", 1.0)
    else:
        fraction = (lambda f: on_progress(f"reading {name}", f)) if on_progress else None
        imported = import_generic(con, plan, on_progress=fraction)
    counts = imported.counts
    replaced = replacing.track(con, plan, imported.datasets)
    report = FileReport(
        str(plan.source or plan.path),
        plan.fmt,
        imported.datasets,
        imported.records,
        MappingProxyType(counts.added),
        MappingProxyType(counts.skipped),
        MappingProxyType(counts.superseded),
        counts.duplicates,
        len(imported.rejects),
        str(rejects.rejects_path(plan.path)) if imported.rejects else None,
        MappingProxyType(counts.unscored),
        replaced,
    )
    return report, imported


SCORING = "scoring answers against references"


def _score(
    store: Store, report: ImportReport, on_progress: ProgressCallback | None
) -> ImportReport:
    """Score the new responses against their references; count those a metric applies to."""
    scored = reference.score_datasets(
        store,
        report.datasets,
        on_progress=None
        if (on_progress is None)
        else lambda done, total: on_progress(SCORING, done / total),
    )
    return dataclasses.replace(report, scored=scored)


def import_requests(
    store: Store,
    requests: Sequence[ImportRequest],
    *,
    on_progress: ProgressCallback | None = None,
    score: bool = True,
    reference_rule: str | None = None,
) -> ImportReport:
    """Import several paths in one transaction: all of them, or nothing (tags files last,
    `tag_labels`). Then, unless `score` is False, score the new responses against their
    references (`metrics.reference`), so that no read has to (`judgeboard score` does it
    later). Under `on_error="skip"` a request's bad records are left out and written, with
    what is wrong with each, to `<file>.rejects.jsonl` beside each file that has some.
    `reference_rule` becomes the rule of every dataset imported into, in the same
    transaction (`metrics.reference`)."""
    if reference_rule is not None:
        reference.check_rule(reference_rule)
    with store.connection() as con, read_sql.bulk_write_settings(con), transaction(con):
        files: list[FileReport] = []
        ignored: list[str] = []
        plans: list[FilePlan] = []
        requests, tags_files = tag_labels.split(requests)
        for request in requests:
            found, skipped = _plans(con, request)
            plans.extend(found)
            ignored.extend(skipped)
        adapters.check_plans(plans)
        try:
            for plan in plans:
                file_report, imported = _import_file(con, plan, on_progress)
                files.append(file_report)
                if imported.rejects:
                    rejects.write_rejects(plan, imported.rejects)
        finally:
            rejects.remove_copies(plans)
        files += tag_labels.import_files(con, tags_files)
        if reference_rule is not None:
            for name in sorted({d for f in files for d in f.datasets}):
                reference.record_rule(con, name, reference_rule)
        if on_progress:
            on_progress("committing", None)
    for name in ignored:
        log.info("%s: skipped, no known format", name)
    report = ImportReport(tuple(files), tuple(ignored))
    if score:
        report = _score(store, report, on_progress)
    rules.fill_all(store)  # rule-filled campaigns take the answers that match now
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
    mapping: Mapping[str, str | FieldMap] | None = None,
    on_error: str = "fail",
    on_progress: ProgressCallback | None = None,
    score: bool = True,
    reference_rule: str | None = None,
    replace: bool = False,
    max_record_mb: float | None = None,
) -> ImportReport:
    """Import a file, or every file of a folder (and its subfolders) we know the format of,
    in one transaction. With `replace`, an earlier import of a file's content into the same
    dataset that gave other items or responses gives way (`replacing`); without, such an
    import is refused.

    Any bad record raises IngestError naming the file, the record and the field, and the
    database is left as it was; unless `on_error="skip"`, which leaves the bad records out
    and writes them to `<file>.rejects.jsonl`. Ids derive from content, so importing a file
    twice adds nothing. `on_progress(stage, fraction)` is called on the caller's thread.
    A record longer than `max_record_mb` (default $JUDGEBOARD_MAX_RECORD_MB, else 64) is
    refused before DuckDB reads the file (`sizes`)."""
    request = ImportRequest(
        Path(path), dataset, system, fmt, dict(mapping or {}), on_error, replace, max_record_mb
    )
    return import_requests(
        store, [request], on_progress=on_progress, score=score, reference_rule=reference_rule
    )
