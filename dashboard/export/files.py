"""`judgeboard export`: the whole database but its judge calls, as CSV, JSONL or Parquet.

Ratings and preferences have different columns (the "ratings" and "preferences" formats that
`judgeboard import` reads), so an export is two files beside each other:

    judgeboard export --out results.parquet
    -> results.ratings.parquet      every item and response, and every rating
    -> results.preferences.parquet  every preference

The ratings file has one row per rating (current and superseded), one row with the rating
fields null for each response nobody rated, and one row with the response fields null too
for each item without responses: so it holds every item and response. The preferences file
has one row per preference, carrying its two responses whole, so that either file imports on
its own and in either order. A kind with no rows writes no file. Both files are written from
one transaction, so they are one consistent snapshot even while judges are writing.

Each row carries, besides the format's own fields (`rater_kind`, `rater`, `rubric`,
`rubric_version`, `created_utc`, `rating_id`/`preference_id`, `supersedes`, `item_metadata`,
`response_metadata`, …): `is_current` (false once a later row supersedes it, and for a
judge's rating under an unadopted workbench version), `call_id` (the judge call behind it),
`response_id`/`item_id` (or `response_a`/`response_b`), and, for
ratings, `effective_score` and `effective_source`: the response's effective score under that
rubric, normalized to 0–1 (people's mean where someone rated it, else the judge panel's
mean), the number the Overview averages. The importer uses the ids and ignores the rest.

People's tag labels (every row, current and superseded, with their provenance) go to a
third file, `results.tags.parquet`, when there are any; `judgeboard import` reads it back
after the answers it tags (the ratings file first, or the folder).

Importing the files into a fresh database (`judgeboard import results.ratings.parquet` and
`judgeboard import results.preferences.parquet`, or the folder holding them) gives the same
items, responses, ratings, preferences and metrics. Judge calls are not exported.
"""

from __future__ import annotations

import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from dashboard.auth.roles import require_admin
from dashboard.auth.users import User
from dashboard.export import export_sql
from dashboard.export.export_sql import ExportCounts as ExportCounts
from dashboard.partials import clear_stale, partial_path
from dashboard.store import Store, transaction

log = logging.getLogger(__name__)

KINDS = ("ratings", "preferences")
# People's tag labels (a campaign's error taxonomy): a file of their own, which `judgeboard
# import` reads back after the answers (`ingest/tag_labels.py`).
TAGS = "tags"
# One row per response, its scores side by side: for reading, not for `judgeboard import`.
RESPONSES = "responses"
ALL_KINDS = (*KINDS, RESPONSES)
FORMATS = tuple(export_sql.WRITERS)
SUFFIXES = {
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
MIME_TYPES = {
    "csv": "text/csv",
    "jsonl": "application/x-ndjson",
    "parquet": "application/vnd.apache.parquet",
}


class ExportError(ValueError):
    """The export cannot be written as asked (an unknown file type, say)."""


@dataclass(frozen=True)
class ExportResult:
    fmt: str
    files: dict[str, Path]  # kind -> the file written (kinds without rows are absent)
    rows: dict[str, int]  # kind -> rows written
    without_rating: int = 0  # rows of the ratings file for a response or item nobody rated


def format_of(path: Path) -> str:
    """The file format named by the path's suffix."""
    fmt = SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        known = ", ".join(sorted(SUFFIXES))
        raise ExportError(f"cannot tell the format of {path.name!r}: end the name in {known}")
    return fmt


def export_paths(out: Path) -> dict[str, Path]:
    """results.csv -> {"ratings": results.ratings.csv, "preferences": results.preferences.csv}.
    A name that already ends in .ratings or .preferences is not doubled."""
    suffix = out.suffix
    stem = out.name[: -len(suffix)] if suffix else out.name
    for kind in (*ALL_KINDS, TAGS):
        if stem.endswith(f".{kind}"):
            stem = stem[: -len(kind) - 1]
    return {kind: out.with_name(f"{stem}.{kind}{suffix}") for kind in (*ALL_KINDS, TAGS)}


def export(
    store: Store,
    out: str | os.PathLike[str],
    *,
    dataset: str | None = None,
    rubric: str | None = None,
    unrated: bool = True,
    per_response: bool = False,
) -> ExportResult:
    """Write the export of `dataset` (None: all) beside `out`: its items, responses and
    ratings to the ratings file, its preferences to the preferences file; with `rubric`,
    only that rubric's ratings and preferences (every item and response still). With
    `unrated` False, the rows of responses and items nobody rated are left out (the files
    then no longer import back to every item); `per_response` also writes the responses
    file, one row per response with its scores side by side."""
    out = Path(out)
    fmt = format_of(out)
    paths = export_paths(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    files, rows = {}, {}
    with store.connection() as con, transaction(con):
        counts = export_sql.count_rows(con, dataset=dataset, rubric=rubric, unrated=unrated)
        for kind in (*KINDS, TAGS, RESPONSES) if per_response else (*KINDS, TAGS):
            rows[kind] = counts.of(kind)
            if rows[kind] == 0:
                continue
            clear_stale(paths[kind])
            partial = partial_path(paths[kind])
            try:
                export_sql.copy_records(
                    con,
                    kind,
                    str(partial),
                    fmt=fmt,
                    dataset=dataset,
                    rubric=rubric,
                    unrated=unrated,
                )
            except BaseException:
                partial.unlink(missing_ok=True)
                raise
            os.replace(partial, paths[kind])  # a reader never sees half a file
            files[kind] = paths[kind]
    log.info("exported %s to %s", rows, out.parent)
    return ExportResult(fmt, files, rows, counts.without_rating)


def export_counts(
    store: Store, *, dataset: str | None = None, unrated: bool = True
) -> ExportCounts:
    """The rows of each file an export of `dataset` would write, and how many rows of the
    ratings file hold no rating."""
    with store.connection() as con:
        return export_sql.count_rows(con, dataset=dataset, unrated=unrated)


def export_bytes(
    store: Store,
    kind: str,
    *,
    fmt: str,
    dataset: str | None = None,
    unrated: bool = True,
    actor: User | None = None,
) -> bytes:
    """One kind of export as bytes, for a download button; empty when it has no rows. An
    admin's (`actor`): it holds every person's labels."""
    require_admin(actor, "export labels")
    if kind not in ALL_KINDS or fmt not in FORMATS:
        raise ExportError(f"unknown export {kind!r} as {fmt!r}")
    with tempfile.TemporaryDirectory(prefix="judgeboard-export-") as directory:
        path = Path(directory) / f"export.{kind}.{fmt}"
        with store.connection() as con:
            if export_sql.count_rows(con, dataset=dataset, unrated=unrated).of(kind) == 0:
                return b""
            export_sql.copy_records(con, kind, str(path), fmt=fmt, dataset=dataset, unrated=unrated)
        return path.read_bytes()


def download_name(kind: str, *, fmt: str, dataset: str | None) -> str:
    """judgeboard-eo-rag.ratings.csv: a file name that says what it holds."""
    scope = "".join(c if c.isalnum() or c in "-_" else "_" for c in dataset) if dataset else "all"
    return f"judgeboard-{scope}.{kind}.{fmt}"
