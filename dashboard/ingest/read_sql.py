"""Reading a file with DuckDB's own readers: the reader for each file kind, what columns it sees,
how to run a long statement while reporting its progress, and the settings of a bulk write.

Paths are bound parameters; the reader options are code constants.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from dashboard.ingest.errors import MAX_CSV_LINE_MB
from dashboard.ingest.fields_sql import is_null_type
from dashboard.store.connection import Connection, DatabaseError, scratch
from dashboard.store.rows import fetch, scalar

ProgressFn = Callable[[float], None]
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
# Readers for file kinds. Paths are bound; the options are code constants.
READERS = {
    "jsonl": "read_json($path, format='newline_delimited', sample_size={sample})",
    "json": "read_json($path, format='array', sample_size={sample})",
    # A quoted empty string stays a string (an empty answer); only an empty cell is null.
    # A field may be longer than DuckDB's default line limit of 2 MB (MAX_CSV_LINE_MB).
    "csv": (
        "read_csv($path, header=true, all_varchar=true, allow_quoted_nulls=false, "
        f"max_line_size={MAX_CSV_LINE_MB * 1024 * 1024})"
    ),
    "parquet": "read_parquet($path)",
}
# Files up to this size are sampled whole, so every value's type is seen; bigger files are
# sampled on their first records, as DuckDB does by default (see docs/benchmarks.md).
FULL_SAMPLE_BYTES = 256 * 1024 * 1024

COUNTED_TABLES = ("datasets", "items", "responses", "ratings", "preferences")


def bind(sql: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The named parameters this statement uses (DuckDB refuses unused ones)."""
    used = set(_PARAM.findall(sql))
    return {name: value for name, value in params.items() if name in used}


def execute(con: Connection, sql: str, params: Mapping[str, Any] | None = None) -> Any:
    return con.execute(sql, bind(sql, params or {}))


@contextmanager
def bulk_write_settings(con: Connection) -> Iterator[None]:
    """Settings for writing a big import, undone afterwards.

    DuckDB's FSST string compression (plain and in dictionaries) costs most of the time of
    writing long texts: about 70 % of an import of 300k RAG records here. Without it the rows
    land about 3x faster and take about 1.6x the disk space; later writes compress as usual.
    Buffering one row group instead of five before a flush keeps a million-record staging
    table within the memory limit (less spilling to disk), which was about 20 % faster.
    """
    con.execute("SET disabled_compression_methods = 'fsst,dict_fsst'")
    con.execute("SET write_buffer_row_group_count = 1")
    try:
        yield
    finally:
        con.execute("RESET disabled_compression_methods")
        con.execute("RESET write_buffer_row_group_count")
        con.execute("RESET preserve_insertion_order")  # after a failed `load_sql.unordered`


def reader_sql(kind: str, *, size_bytes: int, full_sample: bool = False) -> str:
    sample = -1 if full_sample or size_bytes <= FULL_SAMPLE_BYTES else 20480
    return READERS[kind].format(sample=sample)


class Column(NamedTuple):
    """A column as DuckDB describes it (a file's, as its reader sees it, or a table's)."""

    name: str
    sql_type: str


def _describe_sql(relation: str) -> str:
    return f"SELECT column_name AS name, column_type AS sql_type FROM (DESCRIBE {relation})"


def describe(
    con: Connection, kind: str, path: str, *, size_bytes: int, full_sample: bool = False
) -> list[Column]:
    """The columns DuckDB's reader sees in a file, with their types."""
    reader = reader_sql(kind, size_bytes=size_bytes, full_sample=full_sample)
    return fetch(execute(con, _describe_sql(f"SELECT * FROM {reader}"), {"path": path}), Column)


def reads_whole(kind: str, path: Path, *, size_bytes: int) -> bool:
    """Whether DuckDB's reader reads every record of the file as records (none malformed, no
    invalid UTF-8, every one an object). Asked on a connection of its own: a failed
    statement aborts the transaction it runs in."""
    if kind == "parquet":
        return True
    reader = reader_sql(kind, size_bytes=size_bytes)
    with scratch() as con:
        try:
            names = {c.name for c in describe(con, kind, str(path), size_bytes=size_bytes)}
            scalar(execute(con, f"SELECT count(*) FROM {reader}", {"path": str(path)}))
        except DatabaseError:
            return False
    return names != {"json"}


def needs_full_sample(kind: str, described: Sequence[Column], *, size_bytes: int) -> bool:
    """Whether a big file must be typed from all its records, not its first ones.

    A column that is null in every sampled record is typed NULL, and DuckDB's JSON reader
    then reads it as null in every record, silently dropping values further on (measured
    with duckdb 2.0). An export sorted by dataset has such columns (`options` is null until
    the first MCQA item), so those files pay for a second pass instead.
    """
    return (
        kind in ("json", "jsonl")
        and size_bytes > FULL_SAMPLE_BYTES
        and any(is_null_type(column.sql_type) for column in described)
    )


def run_with_progress(
    con: Connection,
    sql: str,
    params: Mapping[str, Any],
    *,
    on_fraction: ProgressFn | None = None,
    poll_s: float = 0.2,
) -> None:
    """Run one long statement; meanwhile report DuckDB's progress from the caller's thread.

    The statement runs on a worker thread and the calling thread polls `query_progress()`, so a
    callback that must run on its own thread (Streamlit's) is called there.
    """
    if on_fraction is None:
        execute(con, sql, params)
        return
    con.execute("SET enable_progress_bar = true")
    con.execute("SET enable_progress_bar_print = false")
    failure: list[BaseException] = []

    def work() -> None:
        try:
            execute(con, sql, params)
        except BaseException as error:  # noqa: BLE001 (re-raised on the caller's thread)
            failure.append(error)

    worker = threading.Thread(target=work, name="judgeboard-import", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(poll_s)
            percent = con.query_progress()
            if percent >= 0:
                on_fraction(min(percent / 100.0, 1.0))
    except BaseException:  # Ctrl-C, or the callback failed: stop the query, then roll back
        con.interrupt()
        worker.join()
        raise
    if failure:
        raise failure[0]


def columns_of(con: Connection, relation: str, params: Mapping[str, Any] | None = None) -> set[str]:
    """The column names of a table, or of a SELECT (whose named parameters `params` binds)."""
    return {c.name for c in fetch(execute(con, _describe_sql(relation), params), Column)}


def table_exists(con: Connection, name: str) -> bool:
    query = "SELECT count(*) > 0 FROM duckdb_tables() WHERE table_name = $name"
    return scalar(con.execute(query, {"name": name})) is True


def drop(con: Connection, *relations: str) -> None:
    for relation in relations:
        con.execute(f"DROP TABLE IF EXISTS {relation}")


def table_counts(con: Connection) -> dict[str, int]:
    """Rows per table, for reports and for tests that check an import changed nothing."""
    return {t: int(scalar(con.execute(f"SELECT count(*) FROM {t}"))) for t in COUNTED_TABLES}
