"""Spreadsheet formulas in CSV exports: neutralized on the way out, restored on the way in.

A spreadsheet opening a CSV runs a cell that starts with `=`, `+`, `-` or `@` (and, in some,
a tab or a carriage return) as a formula: an answer or a comment could then fetch a URL or run
a command. Following OWASP's advice on CSV injection, a CSV export prefixes such a text cell
with a single quote `'`, so that it shows as text. A text cell that itself starts with `'` is
prefixed too, which makes the rule exact to undo: the importer removes one leading `'` from
every cell of a judgeboard CSV export, and gets the text back as it was.

Only text columns are touched: numbers (a value of -1 on a -2..2 scale) stay numbers. Only CSV:
JSONL and Parquet keep every text exactly. The importer knows a judgeboard CSV export by its
provenance column `is_current`, which only exports write (see docs/metrics.md, "Exports"), and
leaves every other CSV's text alone.
"""

from __future__ import annotations

from collections.abc import Iterable

ESCAPE = "'"
# The first characters that make a spreadsheet read a cell as a formula, and the escape itself.
_FIRST = ("'='", "'+'", "'-'", "'@'", "chr(9)", "chr(13)", "''''")
# The column that marks a CSV file as judgeboard's own export.
EXPORT_MARK = "is_current"


def neutralized_sql(expr: str) -> str:
    """SQL: the text `expr`, with `'` before a leading formula character or `'`."""
    return f"CASE WHEN left({expr}, 1) IN ({', '.join(_FIRST)}) THEN '''' || {expr} ELSE {expr} END"


def restored_sql(expr: str) -> str:
    """SQL: the text `expr` of a judgeboard CSV export as it was before `neutralized_sql`."""
    return f"CASE WHEN starts_with({expr}, '''') THEN substr({expr}, 2) ELSE {expr} END"


def is_judgeboard_csv(kind: str, columns: Iterable[str]) -> bool:
    """Whether a file of this kind with these columns is a judgeboard CSV export."""
    return kind == "csv" and EXPORT_MARK in set(columns)
