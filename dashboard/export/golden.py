"""`judgeboard export --golden OUT`: the items with their current references, in the format
they came in, for the next run.

Each item's references are its current ones: a person's correction where there is one
(`review/gold.py`), else the imported ones. Each item is written in the plain format of the
file it came in (rag, conversational, mcqa, hallucination: `golden_sql.PLAIN`), one row per
response, its columns named back as that file named them (a plain `--map FIELD=COLUMN` of
the import is undone, so the same `--map` imports it again); the items of any other format
(pairwise, a published set's adapter, judgeboard's own exports) and the items no import
recorded are written in the "ratings" format. The file type follows OUT's suffix (CSV,
JSONL, Parquet). Items of one format go to OUT; of several, to OUT's name with the format
before the suffix (gold.rag.jsonl, gold.ratings.jsonl). `judgeboard import` reads each back.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from dashboard.export import golden_sql as sql
from dashboard.export.files import ExportError, format_of
from dashboard.ingest.mapping import MappingSyntaxError, parse_field_map
from dashboard.partials import clear_stale, partial_path
from dashboard.store import Store, transaction


@dataclass(frozen=True)
class GoldenFile:
    format: str  # the input format ("rag", "ratings", ...)
    mapping: str  # the import's --map options undone in its column names ("" for none)
    path: Path
    rows: int
    n_items: int
    n_corrected: int  # items whose references a person corrected


@dataclass(frozen=True)
class GoldenResult:
    files: tuple[GoldenFile, ...]

    @property
    def n_corrected(self) -> int:
        return sum(f.n_corrected for f in self.files)


def renames_of(mapping: str) -> dict[str, str]:
    """{format field: file column} of an import's plain `--map FIELD=COLUMN` options; value
    mappings and constants are not undone (the field keeps its name)."""
    words = shlex.split(mapping or "")
    found = {}
    for flag, spec in zip(words, words[1:]):
        if flag != "--map":
            continue
        try:
            field = parse_field_map(spec)
        except MappingSyntaxError:
            continue
        if field.source is not None and field.values is None:
            found[field.target] = field.source
    return found


def golden_paths(out: Path, groups: list[sql.FormatGroup]) -> list[Path]:
    """OUT for one group; OUT's name with each group's format (and a number when one format
    came with several mappings) before the suffix for several."""
    if len(groups) == 1:
        return [out]
    stem = out.name[: -len(out.suffix)] if out.suffix else out.name
    seen: dict[str, int] = {}
    paths = []
    for group in groups:
        seen[group.format] = seen.get(group.format, 0) + 1
        tag = group.format if seen[group.format] == 1 else f"{group.format}{seen[group.format]}"
        paths.append(out.with_name(f"{stem}.{tag}{out.suffix}"))
    return paths


def export_golden(
    store: Store, out: str | os.PathLike[str], *, dataset: str | None = None
) -> GoldenResult:
    """Write the items of `dataset` (None: all) with their current references, in the format
    they came in, to `out` (see the module's docstring); one transaction, one snapshot."""
    out = Path(out)
    fmt = format_of(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    written = []
    with store.connection() as con, transaction(con):
        groups = sql.format_groups(con, dataset=dataset)
        if not groups:
            raise ExportError("no items to write: import a dataset first")
        for group, path in zip(groups, golden_paths(out, groups)):
            clear_stale(path)
            partial = partial_path(path)
            try:
                rows = sql.copy_group(
                    con,
                    group,
                    str(partial),
                    fmt=fmt,
                    dataset=dataset,
                    renames=renames_of(group.mapping),
                )
            except BaseException:
                partial.unlink(missing_ok=True)
                raise
            os.replace(partial, path)  # a reader never sees half a file
            written.append(
                GoldenFile(
                    group.format, group.mapping, path, rows, group.n_items, group.n_corrected
                )
            )
    return GoldenResult(tuple(written))
