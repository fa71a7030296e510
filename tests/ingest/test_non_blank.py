"""`fields_sql.non_blank` is `length(trim(coalesce(x, ''))) > 0`, only faster on long texts:
the same answer on blank, spaced, Unicode-spaced and long texts, and on NULL."""

from __future__ import annotations

from dashboard.ingest.fields_sql import non_blank
from dashboard.store.connection import scratch

TEXTS = [
    None,
    "",
    " ",
    "\t",
    "\n",
    "\u00a0",
    " \u00a0 \u2003 ",
    "a",
    "  x  ",
    " " * 64 + "x",
    " " * 63 + "x",
    " " * 200,
    " " * 100 + "\u00a0" * 100,
    "\u00a0" * 64 + "y",
    "context " * 500,
]


def test_non_blank_is_the_trim_rule() -> None:
    with scratch() as con:
        con.execute("CREATE TABLE t (i INTEGER, x VARCHAR)")
        con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(TEXTS)))
        rows = con.execute(
            f"SELECT i, {non_blank('x')}, length(trim(coalesce(x, ''))) > 0 FROM t ORDER BY i"
        ).fetchall()
    assert len(rows) == len(TEXTS)
    assert [fast for _, fast, _ in rows] == [slow for _, _, slow in rows]
    assert {fast for _, fast, _ in rows} == {True, False}
