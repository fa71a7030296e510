"""A file uploaded on the Data page: kept under its own name in a private temporary folder, shown
(its first rows, read by DuckDB), mapped field by field, and imported by the CLI's importer.

The upload keeps its name, so the importer sees the same extension (which picks the reader)
and the same name (the default dataset and system) as `judgeboard import NAME` would, and an
error names the file as the user knows it. A file of an eval tool (an Inspect log, promptfoo
results, lm-eval samples) is known by the CLI's own detection (`tools.tool_for`), previewed
from its reader's records with the counts of a dry run of the import (`dry_run`), and imported
as written. Errors speak of the page's own controls (`IngestError.page_message`), never of
the command line's options.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from dashboard.auth.roles import require_admin
from dashboard.auth.users import User
from dashboard.ingest import ImportReport, IngestError, ProgressCallback, import_path
from dashboard.ingest.adapters import ADAPTERS
from dashboard.ingest.detect import detect_format, file_kind, is_generic, mapped_columns
from dashboard.ingest.dry_run import import_counts
from dashboard.ingest.formats import (
    FLAG,
    FORMATS,
    LABEL,
    RATER_KIND,
    RATING_RATER_KIND,
    SELECTION,
    SIDE,
    SOURCE,
    VERDICT,
    Field,
)
from dashboard.ingest.mapping import FieldMap, as_field_maps
from dashboard.ingest.mapping_sql import value_text_sql
from dashboard.ingest.plan import REJECTS_SUFFIX
from dashboard.ingest.read_sql import Column, describe, execute, reader_sql
from dashboard.ingest.rejects import rejects_path
from dashboard.ingest.tools import TOOLS, RecordCounts, Tool, tool_for
from dashboard.store import Store
from dashboard.store.connection import DatabaseError, scratch
from dashboard.store.rows import dicts, fetch
from dashboard.types import SELECTIONS, SOURCES

EXTENSIONS = ("json", "jsonl", "csv", "parquet", "eval")  # .eval: an Inspect log
NOTHING_IMPORTED = " (nothing was imported)"  # what the CLI adds to an IngestError
PREVIEW_ROWS = 20
VALUES_SHOWN = 50  # distinct values offered for mapping, at most
CELL_CHARS = 200  # a preview cell is cut to this many characters
# The values a field of a fixed-value kind takes, as the importer reads them.
FIXED_VALUES: dict[str, tuple[str, ...]] = {
    VERDICT: ("A", "B", "tie"),
    SIDE: ("A", "B"),
    RATER_KIND: ("llm", "human"),
    RATING_RATER_KIND: ("llm", "human", "reference"),
    LABEL: ("true", "false"),
    FLAG: ("true", "false"),
    SELECTION: SELECTIONS,
    SOURCE: SOURCES,
}


class UploadError(ValueError):
    """An upload that was not imported (or not read); the message names the page's controls."""


@dataclass(frozen=True)
class StagedUpload:
    """An uploaded file, written under its own name into a private temporary folder."""

    path: Path

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class TargetField:
    """A field of a format, as the Data page offers it: its name, whether the format needs
    it, and the values it takes when they are fixed (winner, label, rater_kind...)."""

    name: str
    required: bool
    kind: str
    values: tuple[str, ...] = ()


@dataclass(frozen=True)
class Preview:
    """The first rows of an upload, its columns, and the format detected from them; for an
    eval tool's file, the tool and what importing it adds (its rows are its first records)."""

    columns: tuple[Column, ...]
    rows: tuple[dict[str, Any], ...]
    detected: str | None
    tool: Tool | None = None
    counts: RecordCounts | None = None

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


@dataclass(frozen=True)
class ColumnValue:
    """A distinct value of a column, and how many records have it."""

    value: str
    n: int


@dataclass(frozen=True)
class UploadResult:
    """What an upload's import did, and its rejects file's text under --on-error skip."""

    report: ImportReport
    rejects: str | None = None


# A file name may take 255 bytes on most file systems; the upload's is cut to fit with room for
# the rejects file beside it, keeping its extension (which picks the reader).
MAX_NAME_BYTES = 255 - len(REJECTS_SUFFIX)


def _safe_name(name: str) -> str:
    """The file's own name, without any folder a browser might send or a NUL byte, cut to a
    length the file system takes."""
    base = Path(name.replace("\\", "/").replace("\x00", "")).name.strip()
    if base in ("", ".", ".."):
        return "upload"
    suffix = Path(base).suffix if len(Path(base).suffix.encode()) < 32 else ""
    stem = base[: len(base) - len(suffix)] if suffix else base
    room = MAX_NAME_BYTES - len(suffix.encode())
    return stem.encode()[:room].decode("utf-8", errors="ignore").rstrip() + suffix


def stage_upload(name: str, data: BinaryIO) -> StagedUpload:
    """Write the upload into a private temporary folder; `discard` removes it."""
    folder = Path(tempfile.mkdtemp(prefix="judgeboard-upload-"))
    path = folder / _safe_name(name)
    with open(path, "wb") as handle:
        shutil.copyfileobj(data, handle, length=1024 * 1024)
    return StagedUpload(path)


def discard(staged: StagedUpload) -> None:
    shutil.rmtree(staged.path.parent, ignore_errors=True)


def _page_error(error: IngestError, path: Path) -> UploadError:
    """The error naming the file as uploaded: without the private folder it was read from."""
    return UploadError(error.page_message.replace(f"{path.parent}/", ""))


def _cell(value: Any) -> Any:
    if isinstance(value, str) and len(value) > CELL_CHARS:
        return value[:CELL_CHARS] + "…"
    if isinstance(value, (list, dict)):
        text = str(value)
        return text if len(text) <= CELL_CHARS else text[:CELL_CHARS] + "…"
    return value


def _kind(staged: StagedUpload) -> str:
    kind = file_kind(staged.path)
    if kind is None:
        raise UploadError(
            f"{staged.name}: not a file judgeboard reads (JSON, JSONL, CSV or Parquet)"
        )
    return kind


def _tool_preview(staged: StagedUpload, tool: Tool, rows: int) -> Preview:
    """An eval tool's file as its reader gives it: the first records, and the counts of a dry
    run of the import (`dry_run.import_counts`); UploadError naming the file (and the record
    and field) when the reader or the importer refuses it."""
    try:
        records = tool.records(staged.path)
        counts = import_counts(staged.path)
    except IngestError as error:
        raise UploadError(error.page_message.replace(f"{Path(error.file).parent}/", "")) from None
    first = records[:rows]
    if tool is TOOLS["lm_eval"]:  # its model is its folder's name, which an upload loses
        first = [{k: v for k, v in r.items() if k != "system"} for r in first]
    names = list(dict.fromkeys(name for record in first for name in record))
    shown = tuple({n: _cell(r.get(n)) for n in names} for r in first)
    columns = tuple(Column(name, "JSON") for name in names)
    return Preview(columns, shown, "ratings", tool=tool, counts=counts)


def preview(staged: StagedUpload, *, rows: int = PREVIEW_ROWS) -> Preview:
    """The upload's columns and first rows, read by DuckDB (at most `rows`), and the format
    its columns show; an eval tool's file, detected as `judgeboard import` detects it, read
    by the tool's reader."""
    if (tool := tool_for(staged.path)) is not None:
        return _tool_preview(staged, tool, rows)
    kind = _kind(staged)
    size = staged.path.stat().st_size
    with scratch() as con:
        try:
            columns = describe(con, kind, str(staged.path), size_bytes=size)
            reader = reader_sql(kind, size_bytes=size)
            found = dicts(
                execute(
                    con, f"SELECT * FROM {reader} LIMIT $n", {"path": str(staged.path), "n": rows}
                )
            )
        except DatabaseError:
            raise UploadError(
                f"{staged.name}: cannot read its first rows; import it to see which record is bad"
            ) from None
    detected = detect_format(mapped_columns(staged.path, columns, {}))
    shown = tuple({k: _cell(v) for k, v in row.items()} for row in found)
    return Preview(tuple(columns), shown, detected)


def column_values(staged: StagedUpload, column: str, *, limit: int = VALUES_SHOWN) -> list[str]:
    """The distinct values of a column (as a value mapping matches them), most frequent
    first, at most `limit`."""
    kind = _kind(staged)
    size = staged.path.stat().st_size
    with scratch() as con:
        types = {c.name: c.sql_type for c in describe(con, kind, str(staged.path), size_bytes=size)}
        if column not in types:
            return []
        quoted = '"' + column.replace('"', '""') + '"'
        text = value_text_sql(f"r.{quoted}", types[column])
        sql = (
            f"SELECT {text} AS value, count(*) AS n FROM {reader_sql(kind, size_bytes=size)} r "
            f"WHERE {text} IS NOT NULL GROUP BY ALL ORDER BY n DESC, value LIMIT $limit"
        )
        try:
            rows = fetch(execute(con, sql, {"path": str(staged.path), "limit": limit}), ColumnValue)
        except DatabaseError:
            return []
    return [r.value for r in rows]


def _target(f: Field) -> TargetField:
    return TargetField(f.name, f.required, f.kind, FIXED_VALUES.get(f.kind, ()))


def target_fields(fmt: str) -> tuple[TargetField, ...]:
    """The fields of a plain format the page maps, the required ones first; none for a
    published set (imported as published)."""
    if fmt in ADAPTERS or fmt not in FORMATS:
        return ()
    fields = FORMATS[fmt].fields
    return tuple(_target(f) for f in sorted(fields, key=lambda f: not f.required))


# Values the importer itself reads as a label's or a flag's true or false (fields_sql.py).
_FLAG_WORDS = {
    **dict.fromkeys(("true", "yes", "1"), "true"),
    **dict.fromkeys(("false", "no", "0"), "false"),
}
_LABEL_WORDS = {**_FLAG_WORDS, "hallucinated": "true", "faithful": "false"}


def default_target(field: TargetField, value: str) -> str | None:
    """What a value of a file's column stands for when the importer would read it so
    itself ("a" is A, "TIE" is tie, "yes" a true label); None when it would not."""
    key = value.strip().lower()
    if field.kind in (LABEL, FLAG):
        return (_LABEL_WORDS if field.kind == LABEL else _FLAG_WORDS).get(key)
    return next((v for v in field.values if v.lower() == key), None)


def value_mapping(
    field: TargetField,
    column: str,
    chosen: Mapping[str, str | None],
    *,
    unmapped: Sequence[str] = (),
) -> FieldMap | None:
    """The FieldMap of a column whose values were mapped on the page: `chosen` gives each
    mapped value's target (None: nothing); `unmapped` values are left out of the mapping, so
    the import names them. None when every value stands for what the importer reads it as
    anyway."""
    if not unmapped and all(default_target(field, raw) == to for raw, to in chosen.items()):
        return None
    return FieldMap(field.name, source=column, values=tuple(chosen.items()))


def dataset_hint(staged: StagedUpload) -> str:
    """What the Dataset box holds when left empty: the file's name, unless that name is one
    many files share (dataset.json), which says nothing of its data; lm-eval's samples name
    their task."""
    if tool_for(staged.path) is TOOLS["lm_eval"]:
        return "default: the task (from the file's name)"
    return (
        "required for this file's name"
        if is_generic(staged.path)
        else f"default: {staged.path.stem}"
    )


def model_folder(model: str) -> str:
    """A model's name as lm-eval names its output folder for it (`org/name`: `org__name`)."""
    return model.strip().replace("/", "__").replace("\\", "__")


def _as_lm_eval_wrote_it(staged: StagedUpload, model: str | None) -> Path:
    """lm-eval keeps the model in the samples file's folder name, which an upload loses: the
    file is linked into a folder named for the model typed in System."""
    folder = model_folder(model or "")
    if folder in ("", ".", ".."):
        raise UploadError(
            f"{staged.name}: lm-eval keeps the model's name in the samples file's folder, which "
            "an upload loses: type the model in System" + NOTHING_IMPORTED
        )
    path = staged.path.parent / folder / staged.name
    path.parent.mkdir(exist_ok=True)
    path.unlink(missing_ok=True)
    try:
        os.link(staged.path, path)
    except OSError:
        shutil.copyfile(staged.path, path)
    return path


def cli_options(mapping: Mapping[str, FieldMap]) -> list[str]:
    """The `--map` options of the same mapping, for the page to show."""
    return [f"--map '{m.spec()}'" for m in mapping.values()]


def import_staged(
    store: Store,
    staged: StagedUpload,
    *,
    dataset: str | None = None,
    system: str | None = None,
    fmt: str | None = None,
    mapping: Mapping[str, str | FieldMap] | None = None,
    on_error: str = "fail",
    on_progress: ProgressCallback | None = None,
    replace: bool = False,
    actor: User | None = None,
) -> UploadResult:
    """Import an upload in one transaction; raises UploadError and writes nothing when the
    file is bad (unless on_error is "skip": then the bad records' rejects file comes back).
    `replace` is `--replace` (`ingest.replacing`). An admin's (`actor`)."""
    require_admin(actor, "import data")
    if not (dataset or "").strip() and is_generic(staged.path):
        raise UploadError(
            f"{staged.name}: a file named so says nothing of which data it holds (two "
            "subsets' files may share its name): type a name in Dataset" + NOTHING_IMPORTED
        )
    path = staged.path
    if not fmt and tool_for(path) is TOOLS["lm_eval"]:
        path, system = _as_lm_eval_wrote_it(staged, system), None
    try:
        report = import_path(
            store,
            path,
            dataset=(dataset or "").strip() or None,
            system=(system or "").strip() or None,
            fmt=fmt or None,
            mapping=as_field_maps(mapping),
            on_error=on_error,
            on_progress=on_progress,
            replace=replace,
        )
    except IngestError as error:
        raise UploadError(str(_page_error(error, path)) + NOTHING_IMPORTED) from error
    found = rejects_path(path)
    text = found.read_text(encoding="utf-8") if found.exists() else None
    return UploadResult(report, text)


def import_upload(
    store: Store,
    name: str,
    data: BinaryIO,
    **options: Any,
) -> UploadResult:
    """Stage an upload, import it (`import_staged`'s options), and remove it again."""
    staged = stage_upload(name, data)
    try:
        if tool_for(staged.path) is None:
            _kind(staged)
        return import_staged(store, staged, **options)
    finally:
        discard(staged)
