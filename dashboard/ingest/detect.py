"""What a file is: its kind (JSONL, JSON array, CSV, Parquet) and its format (by its keys)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from dashboard.ingest.adapters import ADAPTERS
from dashboard.ingest.adapters.llmbar import EVALUATORS
from dashboard.ingest.errors import IngestError, Remedy
from dashboard.ingest.formats import FORMATS, TEXT
from dashboard.ingest.mapping import FieldMap
from dashboard.ingest.plan import REJECTS_SUFFIX, Columns
from dashboard.ingest.read_sql import Column

# Every format `--format` accepts: the published sets first, then the plain formats.
ALL_FORMATS: tuple[str, ...] = (*ADAPTERS, *FORMATS)
_SUFFIXES = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
}
# A text field's column may be read as text, JSON, or as null in every record (an export of
# responses nobody rated has no rater at all).
_TEXT_TYPES = ("VARCHAR", "JSON", "NULL", '"NULL"')


def file_kind(path: Path) -> str | None:
    """ "jsonl", "json" (an array), "csv", "parquet", or None for a file we do not read."""
    suffix = path.suffix.lower()
    if suffix in _SUFFIXES:
        return _SUFFIXES[suffix]
    if suffix != ".json":
        return None
    with open(path, "rb") as handle:
        head = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    # A .json file holding one object per line is JSONL in all but name.
    return "json" if head.startswith(b"[") else "jsonl"


def mapped_columns(
    path: Path, described: Sequence[Column], mapping: Mapping[str, FieldMap]
) -> Columns:
    """The file's columns under their field names: a renamed column under its target (and no
    longer under its own name), a constant as a text column of its field's name."""
    by_name = {column.name: column for column in described}
    view = dict(by_name)
    for target, found in mapping.items():
        if found.constant is not None:
            view[target] = Column(target, "VARCHAR")
            continue
        source = found.source or ""
        if source not in by_name:
            raise IngestError(
                f"the file has no column '{source}' to read it from "
                f"(it has: {', '.join(by_name) or 'none'})",
                file=path,
                field=target,
                remedy=Remedy(f"fix --map {found.spec()}", f"pick one of its columns for {target}"),
            )
        kept = view.get(source)
        if kept is not None and kept.name == source and source != target:
            del view[source]
        view[target] = by_name[source]
    return Columns(view, tuple(by_name))


def _fits(fmt_name: str, columns: Columns) -> bool:
    fmt = FORMATS[fmt_name]
    if not any(keys <= columns.names for keys in fmt.detect):
        return False
    # A required text field read as a list is another kind of file (NQ-open's dev set has a
    # list of reference answers under `answer`, and no system answers at all).
    return all(
        columns.type_of(f.name) in _TEXT_TYPES
        for f in fmt.fields
        if f.required and f.kind == TEXT and f.name in columns.names
    )


def detect_format(columns: Columns) -> str | None:
    """The adapter or format whose keys the file has, most specific first; None if none. A
    published set is known by the file's own columns (its adapter reads them as they are)."""
    own = frozenset(columns.file_columns)
    for name, adapter in ADAPTERS.items():
        if any(keys <= own for keys in adapter.detect):
            return name
    return next((name for name in FORMATS if _fits(name, columns)), None)


# A key set this large is specific to its format: a file with all but one of its keys, or all
# of them with a field of the wrong type, is that format damaged, not another one.
_SPECIFIC_KEYS = 3


def _key_sets() -> list[tuple[str, tuple[frozenset[str], ...]]]:
    """Every format's detection keys, in detection order."""
    return [(n, a.detect) for n, a in ADAPTERS.items()] + [
        (n, f.detect) for n, f in FORMATS.items()
    ]


def _misfit(fmt_name: str, columns: Columns) -> str:
    """Which required text field of the format the file holds as something else."""
    bad = next(
        f.name
        for f in FORMATS[fmt_name].fields
        if f.required and f.kind == TEXT and columns.type_of(f.name) not in (None, *_TEXT_TYPES)
    )
    return f"its column {bad!r} holds {_values(columns.type_of(bad) or '')}, not text"


def _values(sql_type: str) -> str:
    """A reader's column type in words."""
    if sql_type.endswith("]"):
        return "lists"
    if sql_type.startswith(("STRUCT", "MAP")):
        return "objects"
    if sql_type == "BOOLEAN":
        return "true/false values"
    return "numbers" if sql_type.split("(")[0] in _NUMBERS else f"{sql_type.lower()} values"


_NUMBERS = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UBIGINT", "FLOAT", "DOUBLE")


def near_miss(columns: Columns, detected: str | None) -> str | None:
    """What a file lacks of a more specific format than the one detected (None: no format)
    whose columns it nearly has, so that a file damaged in one field is never taken for a
    more general format, losing its ratings or preferences; None when it lacks nothing."""
    specific = dict(_key_sets())
    floor = max((len(keys) for keys in specific.get(detected or "", ())), default=0)
    # Keys the detected format documents are no sign of another format: a pairwise file with
    # rater, rater_kind and rubric fits `pairwise` exactly and is no damaged ratings file.
    own = {f.name for f in FORMATS[detected].fields} if detected in FORMATS else set()
    for name, key_sets in _key_sets():
        if name == detected:
            return None
        for keys in key_sets:
            if len(keys) < max(_SPECIFIC_KEYS, floor + 1) or keys & columns.names <= own:
                continue
            missing = sorted(keys - columns.names)
            has = ", ".join(sorted(keys & columns.names))
            if len(missing) == 1:
                return (
                    f"it looks like a {name} file (it has {has}) but has no column {missing[0]!r}"
                )
            if not missing and name in FORMATS and not _fits(name, columns):
                return f"it looks like a {name} file, but {_misfit(name, columns)}"
    return None


# File names that say what a file is, not which data it holds: the LLMBar repository keeps
# every subset as <subset>/dataset.json with its judges' <...>/result.json, so two subsets'
# files named so must never merge into one dataset called "dataset".
GENERIC_STEMS = frozenset(
    {
        "annotations",
        "data",
        "dataset",
        "dev",
        "eval",
        "input",
        "judgments",
        "output",
        "outputs",
        "predictions",
        "result",
        "results",
        "sample",
        "test",
        "train",
        "validation",
    }
)


_RESULTS = frozenset({"result", "results"})


def is_generic(path: Path) -> bool:
    return path.stem.lower() in GENERIC_STEMS


def home_folder(path: Path) -> Path:
    """The folder a file's data belongs to: its own, or for an LLMBar result file in LLMBar's
    layout (<subset>/evaluators/<LLM>/<method>/result.json) the subset's."""
    parent = path.absolute().parent
    if len(parent.parts) >= 4 and parent.parts[-3] == EVALUATORS:
        return parent.parents[2]
    return parent


def dataset_default(path: Path, *, directory: Path | None, split: bool = False) -> str:
    """A dataset name for a file when the user gives none: the folder's name for a folder's
    files, else the file's own name; but a file with a generic name (dataset.json) takes its
    home folder's name (`home_folder`), and so does a folder's file whose home is `split` off
    (`split_homes`)."""
    if directory is not None:
        return home_folder(path).name if split else directory.name
    return home_folder(path).name if is_generic(path) else path.stem


def split_homes(files: Sequence[Path]) -> set[Path]:
    """The home folders of a folder's files that go into datasets of their own: where files
    with one generic name (dataset.json) sit in several folders, each is a subset, imported
    with the result files of its evaluators/ into its own folder's name."""
    homes: dict[str, set[Path]] = {}
    for path in files:
        # Result files are judges, each named from its folders (`llmbar.check_judges`
        # refuses two under one name), not subsets.
        if path.stem.lower() in _RESULTS:
            continue
        if is_generic(path) and home_folder(path) == path.absolute().parent:
            homes.setdefault(path.name, set()).add(path.absolute().parent)
    return {home for found in homes.values() if len(found) > 1 for home in found}


# The tags file `judgeboard export` writes (NAME.tags.jsonl): read by `tag_labels`, after the
# files of the answers it tags.
_TAGS_NAME = re.compile(r"\.tags\.(csv|jsonl|ndjson|json|parquet|pq)$", re.IGNORECASE)


def is_tags_file(path: Path) -> bool:
    return bool(_TAGS_NAME.search(path.name))


def list_files(directory: Path, *, tags: bool = False) -> list[Path]:
    """The files of a folder we might import, its subfolders' too (LLMBar keeps its judges'
    results in evaluators/<LLM>/<method>/), in the order of their paths. Hidden files and
    folders, and the rejects files an earlier import wrote, are left out; tags files too,
    unless `tags`."""
    found = []
    for path in directory.rglob("*"):
        parts = path.relative_to(directory).parts
        if any(part.startswith(".") for part in parts) or path.name.endswith(REJECTS_SUFFIX):
            continue
        if is_tags_file(path) and not tags:
            continue
        if path.is_file() and (path.suffix.lower() == ".eval" or file_kind_or_none(path)):
            found.append(path)
    return sorted(found, key=lambda p: p.relative_to(directory).parts)


# A summary is small; a bigger file that DuckDB cannot read is reported, never skipped.
_SUMMARY_MAX_BYTES = 16 * 1024 * 1024


def is_summary(path: Path) -> bool:
    """Whether a .json file holds one JSON object over several lines, not records: a summary
    published beside the data (LLMBar's evaluators/*/*/statistics.json), which a folder's
    import skips and lists. A file of one record on one line is JSONL, and data."""
    if path.suffix.lower() != ".json" or path.stat().st_size > _SUMMARY_MAX_BYTES:
        return False
    text = path.read_text(encoding="utf-8", errors="replace")
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        json.loads(first)
        return False  # its first line is a record: JSONL
    except ValueError:
        pass
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


def file_kind_or_none(path: Path) -> str | None:
    try:
        return file_kind(path)
    except OSError:
        return None
