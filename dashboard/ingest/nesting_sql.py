"""How deeply a JSON file's values may nest, bounded from what DuckDB's reader saw, so that a
record nested past `MAX_JSON_DEPTH` is refused by name whichever DuckDB reads it.

duckdb 2.0's JSON reader refused such a record itself; 1.5 reads any depth. judgeboard keeps
its documented limit (docs/faults.md): Python's own parser, which reads metadata back on the
pages and in exports, stops near 1,000 levels, and a record that deep is damage, not data.
The bound is cheap: a typed column's depth is its type's; only a column DuckDB types `JSON`
(values of several shapes) is scanned. A file over the bound is then checked record by record
in Python (`locate`), which names the record, or finds none and lets it import.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from dashboard.ingest import read_sql
from dashboard.ingest.errors import MAX_JSON_DEPTH, IngestError
from dashboard.ingest.fields_sql import quote
from dashboard.ingest.locate import locate
from dashboard.store.connection import Connection
from dashboard.store.rows import scalar

_QUOTED = re.compile(r'"(?:[^"]|"")*"')
_LIST_SUFFIX = re.compile(r"\[\d*\]\s*$")
_NESTING = ("STRUCT", "MAP", "UNION")
_JSON = re.compile(r"\bJSON\b")


def _split_top(text: str) -> list[str]:
    """The comma-separated parts of a type's argument list, at its own level."""
    parts, level, start = [], 0, 0
    for at, char in enumerate(text):
        level += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and level == 0:
            parts.append(text[start:at])
            start = at + 1
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]


def _depth(sql_type: str) -> int:
    text, lists = sql_type.strip(), 0
    while suffix := _LIST_SUFFIX.search(text):
        text, lists = text[: suffix.start()].rstrip(), lists + 1
    head, paren, inner = text.partition("(")
    if not paren or head.strip().upper() not in _NESTING:
        return lists  # a scalar (DECIMAL(18,3) too)
    parts = _split_top(inner[:-1])
    if head.strip().upper() != "MAP":  # STRUCT and UNION parts are `name TYPE`
        parts = [part.split(None, 1)[1] if " " in part else part for part in parts]
    return lists + 1 + max((_depth(part) for part in parts), default=0)


def type_depth(sql_type: str) -> int:
    """How deeply lists and objects nest in a value of a DuckDB type: 0 for `VARCHAR`, 2 for
    `VARCHAR[][]` and for `STRUCT(a INTEGER[])`."""
    return _depth(_QUOTED.sub("x", sql_type))


def may_nest_too_deep(
    con: Connection, relation: str, params: dict[str, object], types: Sequence[tuple[str, str]]
) -> bool:
    """Whether a record of `relation` (a reader of the file, its parameters `params`; its
    columns `types`, (name, type) pairs) may be nested deeper than `MAX_JSON_DEPTH`, the record
    itself counted. True is a bound, not a finding: brackets inside strings count too."""
    if any(1 + type_depth(sql_type) > MAX_JSON_DEPTH for _, sql_type in types):
        return True
    scanned = [name for name, sql_type in types if _JSON.search(_QUOTED.sub("x", sql_type))]
    if not scanned:
        return False
    # A value's depth is at most the number of `[` and `{` in its JSON text.
    openers = ", ".join(
        f"coalesce(max(length(to_json(r.{quote(name)})::VARCHAR) - length(translate("
        f"to_json(r.{quote(name)})::VARCHAR, '[{{', ''))), 0)"
        for name in scanned
    )
    deepest = scalar(con.execute(f"SELECT greatest({openers}, 0) FROM {relation} r", params))
    return 1 + int(deepest or 0) > MAX_JSON_DEPTH


def too_deep(
    con: Connection, kind: str, path: Path, reader: str, types: Sequence[tuple[str, str]]
) -> IngestError | None:
    """The error naming the first record of a JSON or JSONL file nested deeper than
    `MAX_JSON_DEPTH`, or None (`reader`: DuckDB's reader of the file, its path `$path`)."""
    if kind not in ("json", "jsonl"):
        return None
    if not may_nest_too_deep(con, reader, {"path": str(path)}, types):
        return None
    return locate(path, kind, None, {})


def file_too_deep(
    con: Connection,
    kind: str,
    path: Path,
    size: int,
    described: Sequence[read_sql.Column] | None,
) -> IngestError | None:
    """A record of a JSON file nested past the documented limit, named (DuckDB 1.5 reads any
    depth)."""
    if kind not in ("json", "jsonl"):
        return None
    described = described or read_sql.describe(con, kind, str(path), size_bytes=size)
    reader = read_sql.reader_sql(kind, size_bytes=size, full_sample=True)
    return too_deep(con, kind, path, reader, [(c.name, c.sql_type) for c in described])
