"""What DuckDB's reader sees of a file before the importer plans it: its columns, whether it
must be typed from every record, and under `--on-error skip` a copy it can read whole."""

from __future__ import annotations

from pathlib import Path

from dashboard.ingest import nesting_sql, read_sql, rejects
from dashboard.ingest.detect import mapped_columns
from dashboard.ingest.errors import Remedy, with_remedy
from dashboard.ingest.generic import read_error
from dashboard.ingest.plan import FilePlan, Readable
from dashboard.store.connection import Connection, DatabaseError

_CONVERT = "a malformed record of a JSON array cannot be skipped: fix it, or write the file as "
SKIP_IN_ARRAY = Remedy(_CONVERT + "JSONL to skip its bad lines", _CONVERT + "JSONL")


def describe_file(
    con: Connection, path: Path, kind: str, *, on_error: str
) -> tuple[list[read_sql.Column], bool, Readable | None]:
    """The file's columns as DuckDB's reader sees them, whether it must be typed from every
    record, and (under --on-error skip) what of it DuckDB can read."""
    size = path.stat().st_size
    probe = FilePlan(path, kind, size, mapped_columns(path, [], {}), "", None, "")
    # A failed statement would abort the import's transaction: whether DuckDB reads every
    # record is found out on a connection of its own.
    readable = None
    if on_error == "skip" and (
        not read_sql.reads_whole(kind, path, size_bytes=size)
        or nesting_sql.file_too_deep(con, kind, path, size, None) is not None
    ):
        readable = rejects.readable_copy(path, kind)
    read = readable.path if readable else path
    try:
        described = read_sql.describe(con, kind, str(read), size_bytes=size)
        full_sample = read_sql.needs_full_sample(kind, described, size_bytes=size)
        if full_sample:
            described = read_sql.describe(con, kind, str(read), size_bytes=size, full_sample=True)
        deep = nesting_sql.file_too_deep(con, kind, read, size, described)
    except DatabaseError as error:
        if readable is not None:
            rejects.remove_copy(readable)
        found = read_error(probe, None, error)
        if on_error == "skip" and kind == "json" and found.remedy is None:
            found = with_remedy(found, SKIP_IN_ARRAY)
        raise found from None
    if deep is not None:
        if readable is not None:
            rejects.remove_copy(readable)
        raise deep
    return described, full_sample, readable
