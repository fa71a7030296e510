"""The largest record judgeboard reads, checked before DuckDB reads a file.

DuckDB's readers hold a whole record (a JSONL line, a CSV line, an element of a JSON array) in
memory, several times over, before they can refuse it: one 2 GB line took 38 s and 10.6 GB
of memory. So every JSONL, JSON and CSV file is first scanned in a streaming pass over its
bytes, in chunks of at most `CHUNK_BYTES` (and never more than the limit), and a record past
the limit is refused, naming the file and the line (or the array element and its byte), as
soon as the scan reaches the limit: the pass costs about 0.35 s per GB of a cached file, its
memory one chunk. A JSON array on one long line is then scanned element by element, so a big array
written without line breaks is still read.

A CSV file may have at most `MAX_CSV_COLUMNS` columns: DuckDB's CSV reader needs about 1.8 s
and 110 MB more for 10,000 columns and ran out of memory on 100,000 (measured with duckdb
1.5.5), so a wider header is refused, counted, before it reads the file.

The limit: `max_record_mb` (`judgeboard import --max-record-mb`), else the environment's
JUDGEBOARD_MAX_RECORD_MB, else 64 MB.
"""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

from dashboard.ingest.errors import IngestError

DEFAULT_MAX_RECORD_MB = 64.0
MAX_RECORD_ENV = "JUDGEBOARD_MAX_RECORD_MB"
CHUNK_BYTES = 4 * 1024 * 1024
MB = 1024 * 1024
MAX_CSV_COLUMNS = 10_000
_JSON_TOKENS = re.compile(rb'[\\"\[\]{},]')


def max_record_bytes(max_record_mb: float | None = None) -> int:
    """The limit in bytes: the argument, else $JUDGEBOARD_MAX_RECORD_MB, else 64 MB."""
    given: object = max_record_mb
    if given is None:
        given = os.environ.get(MAX_RECORD_ENV) or DEFAULT_MAX_RECORD_MB
    try:
        value = float(str(given))
    except ValueError:
        value = 0.0
    if not value > 0:
        raise IngestError(
            f"the largest record must be a positive number of MB, not {given!r}",
            file=f"--max-record-mb / {MAX_RECORD_ENV}",
        )
    return max(1, int(value * MB))


def _mb(limit: int) -> str:
    return f"{limit / MB:.3g} MB"


def _fix() -> str:
    return (
        "split the record, or raise the limit with --max-record-mb MB (or "
        f"{MAX_RECORD_ENV}) if this machine has the memory for it"
    )


def first_long_line(path: Path, limit: int) -> int | None:
    """The 1-based number of the first line longer than `limit` bytes, or None. Reads in
    chunks no longer than `limit`, so a line that lies within one chunk is short enough and
    only the line running across chunk ends is measured; it stops once that passes the
    limit. Lines are counted only then, in a second pass up to that line's start."""
    size = max(1, min(CHUNK_BYTES, limit))
    buffer = bytearray(size)
    current, offset, line_start = 0, 0, 0
    with open(path, "rb", buffering=0) as handle:
        while n := handle.readinto(buffer):
            first = buffer.find(b"\n", 0, n)
            if first < 0:
                current += n
                if current > limit:
                    return _line_at(path, line_start)
            elif current + first > limit:
                return _line_at(path, line_start)
            else:
                last = buffer.rfind(b"\n", 0, n)
                line_start, current = offset + last + 1, n - last - 1
            offset += n
    return None


def _line_at(path: Path, position: int) -> int:
    """The 1-based number of the line that starts at byte `position`."""
    line = 1
    with open(path, "rb", buffering=0) as handle:
        while position > 0 and (chunk := handle.read(min(CHUNK_BYTES, position))):
            line += chunk.count(b"\n")
            position -= len(chunk)
    return line


def first_long_element(path: Path, limit: int) -> tuple[int, int] | None:
    """The 1-based number and starting byte of the first element of a JSON array longer than
    `limit` bytes, or None. A scan of the structural characters (outside strings), chunk by
    chunk; an element is what lies between two commas (or a bracket) at depth 1."""
    depth, in_string, skip_at = 0, False, -1
    element, start, offset = 0, 0, 0
    with open(path, "rb", buffering=0) as handle:
        while chunk := handle.read(CHUNK_BYTES):
            for match in _JSON_TOKENS.finditer(chunk):
                token, at = match[0], offset + match.start()
                if at == skip_at:  # the character a backslash escapes
                    continue
                if in_string:
                    if token == b"\\":
                        skip_at = at + 1
                    elif token == b'"':
                        in_string = False
                    continue
                if token == b'"':
                    in_string = True
                elif token in (b"[", b"{"):
                    depth += 1
                    if depth == 1:
                        element, start = 1, at + 1
                elif token in (b"]", b"}"):
                    if depth == 1 and at - start > limit:
                        return element, start
                    depth -= 1
                elif token == b"," and depth == 1:
                    if at - start > limit:
                        return element, start
                    element, start = element + 1, at + 1
            offset += len(chunk)
            if depth >= 1 and offset - start > limit:
                return element, start  # the element runs on past the limit
    return None


def csv_columns(path: Path) -> int:
    """How many columns the header (the first line) of a CSV file names. Called after the
    size scan, so the line is at most the record limit."""
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        header = handle.readline()
    return len(next(csv.reader(io.StringIO(header)), []))


def check_record_sizes(path: Path, kind: str, *, limit: int) -> None:
    """Refuse a JSONL, JSON or CSV file holding a record longer than `limit` bytes, or a CSV
    file of more than MAX_CSV_COLUMNS columns, naming it; Parquet is read column by column
    and is not scanned."""
    if kind not in ("jsonl", "json", "csv"):
        return
    line = first_long_line(path, limit)
    if line is None:
        if kind == "csv" and (width := csv_columns(path)) > MAX_CSV_COLUMNS:
            raise IngestError(
                f"its header names {width:,} columns; judgeboard reads at most "
                f"{MAX_CSV_COLUMNS:,} (keep the columns the format needs, and any extra "
                "ones you want kept)",
                file=path,
                line=1,
            )
        return
    if kind == "json":
        found = first_long_element(path, limit)
        if found is None:
            return  # a long line of small elements
        record, byte = found
        raise IngestError(
            f"it is longer than {_mb(limit)} (from byte {byte}), the most judgeboard reads "
            f"in one record; {_fix()}",
            file=path,
            record=record,
            file_kind="json",
        )
    what = "record" if kind == "jsonl" else "CSV line"
    raise IngestError(
        f"the {what} is longer than {_mb(limit)}, the most judgeboard reads in one record; "
        f"{_fix()}",
        file=path,
        line=line,
    )
