"""The SQL of `judgeboard export`.

Export: every item, response, rating and preference, in the "ratings" and "preferences"
formats that `judgeboard import` reads (see docs/metrics.md, "Exports"), plus provenance
(`is_current`, `call_id`, ids) and each response's effective score. The ratings file has a
row per rating; a row with the rating fields null per response nobody rated; and a row with
the response fields null too per item without responses: it holds every item and response.
DuckDB's own writers write the file (`COPY (SELECT …) TO $path`). CSV has no lists, so list
columns are JSON text there, which the importer decodes. Metadata is JSON text in every
format, because a JSON reader widens objects with different keys into one shape (adding
null keys). CSV and JSONL timestamps carry an explicit "Z" so that no reader takes them for
local time. CSV text cells that a spreadsheet would run as formulas are neutralized
(`formulas.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dashboard.export import formulas
from dashboard.metrics import scores_sql as scores
from dashboard.store.connection import Connection
from dashboard.store.rows import dicts, fetch
from dashboard.types import ITEM_FIELDS

# Writer options per file format; code constants, never user input.
WRITERS = {
    "csv": "(FORMAT csv, HEADER true)",
    "jsonl": "(FORMAT json)",
    "parquet": "(FORMAT parquet, COMPRESSION zstd)",
}
_LIST_COLUMNS = frozenset(
    {
        "reference_answers",
        "options",
        "gold_letters",
        "contexts",
        "contexts_a",
        "contexts_b",
        "history",
    }
)
_TEXT_JSON_COLUMNS = frozenset(
    {"item_metadata", "response_metadata", "response_metadata_a", "response_metadata_b"}
)
# The item's fields under their file names (`dashboard.types.ITEM_FIELDS`); the item's id is
# written last.
_ITEM_FIELDS = tuple(f for f in ITEM_FIELDS if f.name != "item_id")
_JUDGEMENT_FIELDS = ("rater_kind", "rater", "rubric", "rubric_version")
_NOTE_FIELDS = ("unscored_reason", "explanation", "raw_output", "comment")
# How a label's response was chosen, its campaign and blindness (the import reads them back).
_PROVENANCE_FIELDS = ("selection", "inclusion_probability", "campaign", "blind", "source")

# The effective score of each response under each rubric (`scores_sql`), and where it comes
# from: people, or the judges' panel.
_EFFECTIVE = f"""
    SELECT response_id, rubric, {scores.EFFECTIVE} AS effective_score,
           CASE WHEN count(norm) FILTER (WHERE rater_kind = 'human') > 0 THEN 'human'
                WHEN count(norm) FILTER (WHERE rater_kind = 'llm') > 0 THEN 'panel'
           END AS effective_source
    FROM ({scores.NORMALIZED})
    GROUP BY response_id, rubric"""
# The rows of the ratings file: every rating with its response and item, every response
# nobody rated, and every item without responses.
# With $rubric, only that rubric's ratings: a response rated under other rubrics alone is a
# row without a rating.
_RATING_ROWS = """
    FROM items i
    LEFT JOIN responses r ON r.item_id = i.item_id AND r.dataset = i.dataset
    LEFT JOIN ratings g ON g.response_id = r.response_id
        AND ($rubric IS NULL OR g.rubric = $rubric)"""
_IN_DATASET = "WHERE ($dataset IS NULL OR i.dataset = $dataset)"
# With $unrated false, the rows without a rating (a response or item nobody rated) are left out.
_RATED = "AND ($unrated OR g.rating_id IS NOT NULL)"
_PREFERENCES_WHERE = f"{_IN_DATASET} AND ($rubric IS NULL OR p.rubric = $rubric)"


def _column(expr: str, name: str, fmt: str) -> str:
    """`expr AS name`, encoded for the file format."""
    if name == "history":  # JSON on a file; on PostgreSQL the extension reads it as text
        expr = f"CAST({expr} AS JSON)"
    if fmt == "csv" and name in _LIST_COLUMNS:
        expr = f"CAST(to_json({expr}) AS VARCHAR)"
    elif fmt != "parquet" and name == "created_utc":
        expr = f"strftime({expr}, '%Y-%m-%dT%H:%M:%S.%fZ')"
    elif name in _TEXT_JSON_COLUMNS:
        expr = f"CAST({expr} AS VARCHAR)"
    return f"{expr} AS {name}"


def _item_columns(fmt: str) -> list[str]:
    return [_column(f"i.{f.name}", f.file_column, fmt) for f in _ITEM_FIELDS]


def ratings_select(fmt: str) -> str:
    """The ratings file of the selected dataset (see the module's docstring)."""
    columns = [
        *_item_columns(fmt),
        "r.system",
        "r.answer",
        _column("r.contexts", "contexts", fmt),
        _column("r.metadata", "response_metadata", fmt),
        *(f"g.{c}" for c in _JUDGEMENT_FIELDS),
        "g.value",
        "g.scale_low",
        "g.scale_high",
        *(f"g.{c}" for c in _NOTE_FIELDS),
        *(f"g.{c}" for c in _PROVENANCE_FIELDS),
        _column("g.created_utc", "created_utc", fmt),
        "g.rating_id",
        "g.supersedes",
        "g.overrides",
        "CASE WHEN g.rating_id IS NOT NULL THEN NOT (g.superseded OR g.shelved) END AS is_current",
        "e.effective_score",
        "e.effective_source",
        "g.call_id",
        "r.response_id",
        "i.item_id",
    ]
    return f"""
        SELECT {", ".join(columns)}
        {_RATING_ROWS}
        LEFT JOIN ({_EFFECTIVE}) e ON e.response_id = g.response_id AND e.rubric = g.rubric
        {_IN_DATASET} {_RATED}
        ORDER BY i.dataset, i.item_id, r.system, r.response_id, g.rubric, g.rater_kind,
                 g.rater, g.created_utc, g.rating_id"""


def preferences_select(fmt: str) -> str:
    """Every preference of the selected dataset in the "preferences" format, with provenance.
    Its rows carry their responses whole (contexts, metadata), so that the file imports on
    its own, before or after the ratings file."""
    columns = [
        *_item_columns(fmt),
        "ra.system AS system_a",
        "ra.answer AS answer_a",
        "rb.system AS system_b",
        "rb.answer AS answer_b",
        _column("ra.contexts", "contexts_a", fmt),
        _column("rb.contexts", "contexts_b", fmt),
        _column("ra.metadata", "response_metadata_a", fmt),
        _column("rb.metadata", "response_metadata_b", fmt),
        *(f"p.{c}" for c in _JUDGEMENT_FIELDS),
        "p.verdict",
        "p.shown_first",
        *(f"p.{c}" for c in _NOTE_FIELDS),
        *(f"p.{c}" for c in _PROVENANCE_FIELDS),
        _column("p.created_utc", "created_utc", fmt),
        "p.preference_id",
        "p.supersedes",
        "s.id IS NULL AS is_current",
        "p.call_id",
        "p.item_id",
        "p.response_a",
        "p.response_b",
    ]
    return f"""
        SELECT {", ".join(columns)}
        FROM preferences p
        JOIN items i ON i.item_id = p.item_id
        JOIN responses ra ON ra.response_id = p.response_a
        JOIN responses rb ON rb.response_id = p.response_b
        LEFT JOIN (SELECT DISTINCT supersedes AS id FROM preferences
                   WHERE supersedes IS NOT NULL) s ON s.id = p.preference_id
        {_PREFERENCES_WHERE}
        ORDER BY i.dataset, p.item_id, p.response_a, p.response_b, p.rubric, p.rater_kind,
                 p.rater, p.shown_first, p.created_utc, p.preference_id"""


def prepare_scores(con: Connection, *, dataset: str | None, rubric: str | None) -> None:
    """The temporary table `export_scores` that `responses_select` reads: a row per scored
    response, each rater's current score under each rubric in a column `RUBRIC:RATER` (on
    the rubric's scale) and each rubric's effective score (0–1) in `RUBRIC:effective`.
    DuckDB's PIVOT names the columns from the data, so no name is spliced into the SQL; it
    takes no parameters, so the selection is made first, into `export_scores_long`."""
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE export_scores_long AS
        WITH mine AS (SELECT r.response_id FROM responses r
                      WHERE $dataset IS NULL OR r.dataset = $dataset)
        SELECT response_id, rubric || ':' || rater AS score, value
        FROM current_ratings JOIN mine USING (response_id)
        WHERE value IS NOT NULL AND ($rubric IS NULL OR rubric = $rubric)
        UNION ALL
        SELECT response_id, rubric || ':effective', effective_score
        FROM ({_EFFECTIVE}) JOIN mine USING (response_id)
        WHERE effective_score IS NOT NULL AND ($rubric IS NULL OR rubric = $rubric)""",
        {"dataset": dataset, "rubric": rubric},
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE export_scores AS "
        "PIVOT export_scores_long ON score USING first(value) GROUP BY response_id"
    )


def responses_select(fmt: str) -> str:
    """One row per response with its scores side by side (`prepare_scores` first). With
    $unrated false, a response without a score is left out."""
    columns = [
        "i.dataset",
        "i.external_id",
        "i.task_type",
        "i.question",
        _column("i.reference_answers", "reference_answers", fmt),
        "r.system",
        "r.answer",
        "r.response_id",
        "i.item_id",
    ]
    return f"""
        SELECT {", ".join(columns)}, p.* EXCLUDE (response_id)
        FROM responses r
        JOIN items i ON i.item_id = r.item_id AND i.dataset = r.dataset
        LEFT JOIN export_scores p ON p.response_id = r.response_id
        {_IN_DATASET} AND ($unrated OR p.response_id IS NOT NULL)
        ORDER BY i.dataset, i.item_id, r.system, r.response_id"""


# People's tag labels of the selected dataset's answers, every row (current and superseded):
# the "tags" file, which `judgeboard import` reads back once the answers are in
# (`ingest/tag_labels.py`).
_TAGS_FROM = """
    FROM tag_labels t JOIN responses r ON r.response_id = t.response_id
    WHERE ($dataset IS NULL OR r.dataset = $dataset)"""
TAG_FIELDS = ("tag_id", "response_id", "campaign", "tag", "rater_kind", "rater", "ticked")


def tags_select(fmt: str) -> str:
    """Every tag label of the selected dataset, with its provenance and `is_current`."""
    columns = [
        *(f"t.{c}" for c in TAG_FIELDS),
        _column("t.created_utc", "created_utc", fmt),
        "t.supersedes",
        "t.selection",
        "t.blind",
        "t.source",
        "coalesce(t.withdrawn, false) AS withdrawn",  # an undone save's: counted nowhere
        "NOT t.superseded AS is_current",
        "r.dataset",
    ]
    return f"""
        SELECT {", ".join(columns)} {_TAGS_FROM}
        ORDER BY r.dataset, t.response_id, t.campaign, t.tag, t.rater, t.created_utc, t.tag_id"""


_SELECTS = {
    "ratings": ratings_select,
    "preferences": preferences_select,
    "responses": responses_select,
    "tags": tags_select,
}


def _params(sql: str, **values: Any) -> dict[str, Any]:
    """The named parameters `sql` uses (DuckDB refuses others)."""
    return {name: value for name, value in values.items() if f"${name}" in sql}


@dataclass(frozen=True)
class ExportCounts:
    """The rows of each file an export writes, and how many rows of the ratings file hold no
    rating (an item or a response nobody rated)."""

    ratings: int
    preferences: int
    without_rating: int
    responses: int = 0
    tags: int = 0

    def of(self, kind: str) -> int:
        """The rows of the file of `kind`: "ratings", "preferences", "responses" or "tags"."""
        return {
            "ratings": self.ratings,
            "preferences": self.preferences,
            "responses": self.responses,
            "tags": self.tags,
        }[kind]


def count_rows(
    con: Connection, *, dataset: str | None, rubric: str | None = None, unrated: bool = True
) -> ExportCounts:
    """The rows of each file an export of `dataset` (and of `rubric`'s ratings and
    preferences; None: every rubric's) writes (see `ExportCounts`)."""
    cursor = con.execute(
        f"""
        SELECT count(*) FILTER (WHERE $unrated OR g.rating_id IS NOT NULL) AS ratings,
               CASE WHEN $unrated THEN count(*) - count(g.rating_id) ELSE 0 END
                   AS without_rating,
               (SELECT count(*) FROM responses r JOIN items i USING (item_id)
                {_IN_DATASET} AND ($unrated OR r.response_id IN (
                    SELECT response_id FROM current_ratings
                    WHERE value IS NOT NULL AND ($rubric IS NULL OR rubric = $rubric))))
                   AS responses,
               (SELECT count(*) FROM preferences p JOIN items i USING (item_id)
                {_PREFERENCES_WHERE}) AS preferences,
               (SELECT count(*) {_TAGS_FROM}) AS tags
        {_RATING_ROWS} {_IN_DATASET}""",
        {"dataset": dataset, "rubric": rubric, "unrated": unrated},
    )
    (counts,) = fetch(cursor, ExportCounts)  # an aggregate without GROUP BY: one row
    return counts


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def csv_safe(con: Connection, select: str, params: dict[str, Any]) -> str:
    """`select` with every text column neutralized for spreadsheets (`formulas.py`); the
    columns and their types are the query's own, so numbers stay numbers."""
    columns = con.execute(f"SELECT * FROM ({select}) LIMIT 0", params).description
    outer = [
        f"{formulas.neutralized_sql(_quoted(name))} AS {_quoted(name)}"
        if str(sql_type) == "VARCHAR"
        else _quoted(name)
        for name, sql_type, *_ in columns
    ]
    return f"SELECT {', '.join(outer)} FROM ({select})"


def copy_records(
    con: Connection,
    kind: str,
    path: str,
    *,
    fmt: str,
    dataset: str | None,
    rubric: str | None = None,
    unrated: bool = True,
) -> int:
    """Write the file of `kind` ("ratings", "preferences", "responses") to `path`; return
    its row count. CSV text is neutralized for spreadsheets; JSONL and Parquet keep it exact."""
    if kind == "responses":
        prepare_scores(con, dataset=dataset, rubric=rubric)
    select = _SELECTS[kind](fmt)
    params = _params(select, dataset=dataset, rubric=rubric, unrated=unrated)
    if fmt == "csv":
        select = csv_safe(con, select, params)
    copy = f"COPY ({select}) TO $path {WRITERS[fmt]}"
    row = con.execute(copy, {**params, "path": path}).fetchone()
    return int(row[0]) if row else 0


def read_records(
    con: Connection,
    kind: str,
    *,
    dataset: str | None,
    rubric: str | None = None,
    unrated: bool = True,
) -> list[dict[str, Any]]:
    """The rows an export writes, as Python values (for tests and small previews)."""
    if kind == "responses":
        prepare_scores(con, dataset=dataset, rubric=rubric)
    sql = _SELECTS[kind]("parquet")
    return dicts(con.execute(sql, _params(sql, dataset=dataset, rubric=rubric, unrated=unrated)))
