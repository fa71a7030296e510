"""The SQL of the golden export: each item's current references (`review/gold_sql.py`) with
its responses, in the columns of the plain format its file came in (`ingest/formats.py`), and
the format each item came in (its latest import in force, `imports` and `import_rows`)."""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.export.export_sql import WRITERS, csv_safe
from dashboard.review.gold_sql import CURRENT_ITEMS
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch
from dashboard.types import ITEM_FIELDS

# The formats written as they came, by file column: (column, SQL over items `i` and their
# responses `r`). Items in any other format (pairwise, the adapters', judgeboard's own
# exports) are written in the "ratings" format, which `judgeboard import` reads too.
_RECORD = (("id", "i.external_id"), ("system", "r.system"), ("task_type", "i.task_type"))
PLAIN: dict[str, tuple[tuple[str, str], ...]] = {
    "rag": (
        ("question", "i.question"),
        ("answer", "r.answer"),
        ("gt_answer", "i.reference_answers"),
        ("gt_context", "i.reference_context"),
        ("document", "i.document"),
        ("contexts", "r.contexts"),
        *_RECORD,
    ),
    "conversational": (
        ("history", "i.history"),
        ("question", "i.question"),
        ("gold_answers", "i.reference_answers"),
        ("answer", "r.answer"),
        *_RECORD,
    ),
    "mcqa": (
        ("question", "i.question"),
        ("options", "i.options"),
        ("gold", "i.gold_letters"),
        ("answer", "r.answer"),
        *_RECORD,
    ),
    "hallucination": (
        ("question", "i.question"),
        ("context", "i.reference_context"),
        ("candidate", "i.candidate_answer"),
        ("label", "i.hallucination_gold"),
        ("prediction", "r.answer"),
        *_RECORD,
    ),
}
FALLBACK = "ratings"
# The "ratings" format's item and response fields, and its rating fields left empty (an item
# and a response nobody rated, as `judgeboard export` writes them).
_RATINGS = (
    *((f.file_column, f"i.{f.name}") for f in ITEM_FIELDS if f.name != "item_id"),
    ("system", "r.system"),
    ("answer", "r.answer"),
    ("contexts", "r.contexts"),
    ("response_metadata", "r.metadata"),
    ("rater_kind", "NULL::VARCHAR"),
    ("rater", "NULL::VARCHAR"),
    ("rubric", "NULL::VARCHAR"),
    ("value", "NULL::DOUBLE"),
    ("scale_low", "NULL::DOUBLE"),
    ("scale_high", "NULL::DOUBLE"),
)
_LISTS = {"i.reference_answers", "r.contexts", "i.options", "i.gold_letters"}
_JSON = {"i.history", "i.metadata", "r.metadata"}

# Each item's format and column mapping: those of its latest import in force (one no later
# import replaces), NULL when no import recorded it.
_FORMATS = """
    SELECT i.item_id, i.dataset, arg_max(m.format, m.created_utc) AS format,
           arg_max(m.mapping, m.created_utc) AS mapping
    FROM items i
    JOIN import_rows ir ON ir.kind = 'items' AND ir.row_id = i.item_id
    JOIN imports m ON m.import_id = ir.import_id AND list_contains(m.datasets, i.dataset)
    WHERE NOT EXISTS (SELECT 1 FROM imports r WHERE list_contains(r.replaces, m.import_id))
    GROUP BY ALL"""
_IN = "($dataset IS NULL OR i.dataset = $dataset)"


@dataclass(frozen=True)
class FormatGroup:
    """The items (of the dataset, or all) that came in `format` with `mapping`."""

    format: str
    mapping: str
    n_items: int
    n_corrected: int


def format_groups(con: Connection, *, dataset: str | None) -> list[FormatGroup]:
    """How the items came in: one group per format and mapping (FALLBACK for the formats
    not in PLAIN and for items no import recorded), with how many of them were corrected."""
    return fetch(
        con.execute(
            f"""
            SELECT CASE WHEN list_contains($plain, f.format) THEN f.format ELSE $fallback END
                       AS format,
                   CASE WHEN list_contains($plain, f.format) THEN coalesce(f.mapping, '')
                        ELSE '' END AS mapping,
                   count(*) AS n_items,
                   count(*) FILTER (WHERE i.item_id IN (
                       SELECT item_id FROM reference_edits e WHERE e.dataset = i.dataset))
                       AS n_corrected
            FROM items i LEFT JOIN ({_FORMATS}) f USING (item_id, dataset)
            WHERE {_IN} GROUP BY ALL ORDER BY ALL""",
            {"dataset": dataset, "plain": list(PLAIN), "fallback": FALLBACK},
        ),
        FormatGroup,
    )


def _expr(expr: str, fmt: str) -> str:
    if expr in _JSON:  # JSON on a file; on PostgreSQL the extension reads json as text
        value = f"CAST({expr} AS JSON)"
        if fmt == "csv":
            return f"CAST(to_json({value}) AS VARCHAR)"
        # history as JSON; metadata as JSON text, as exports write it
        return value if expr == "i.history" else f"CAST({expr} AS VARCHAR)"
    if fmt == "csv" and expr in _LISTS:
        return f"CAST(to_json({expr}) AS VARCHAR)"
    return expr


def golden_select(group: FormatGroup, fmt: str, renames: dict[str, str]) -> str:
    """The rows of one group: a row per response (an item with no response: in the
    "ratings" format only, its response fields empty), columns renamed back to the file's."""
    columns = PLAIN.get(group.format, _RATINGS)
    select = ", ".join(
        f'{_expr(expr, fmt)} AS "{renames.get(name, name)}"' for name, expr in columns
    )
    join = "LEFT JOIN" if group.format == FALLBACK else "JOIN"
    plain = "list_contains($plain, f.format)"
    matches = f"{plain} AND f.format = $format AND coalesce(f.mapping, '') = $mapping"
    chosen = f"NOT coalesce({plain}, false)" if group.format == FALLBACK else matches
    return f"""
        SELECT {select}
        FROM ({CURRENT_ITEMS}) i
        LEFT JOIN ({_FORMATS}) f USING (item_id, dataset)
        {join} responses r ON r.item_id = i.item_id AND r.dataset = i.dataset
        WHERE {_IN} AND {chosen}
        ORDER BY i.dataset, i.item_id, r.system, r.response_id"""


def copy_group(
    con: Connection,
    group: FormatGroup,
    path: str,
    *,
    fmt: str,
    dataset: str | None,
    renames: dict[str, str],
) -> int:
    """Write one group's rows to `path` as `fmt` (csv, jsonl, parquet); the rows written."""
    select = golden_select(group, fmt, renames)
    params = {
        "dataset": dataset,
        "plain": list(PLAIN),
        **({} if group.format == FALLBACK else {"format": group.format, "mapping": group.mapping}),
    }
    if fmt == "csv":
        select = csv_safe(con, select, params)
    row = con.execute(f"COPY ({select}) TO $path {WRITERS[fmt]}", {**params, "path": path})
    found = row.fetchone()
    return int(found[0]) if found else 0
