"""The SQL behind Failures, Annotate and Pairwise: paged lists, one answer's detail, queues.

Lists are computed in DuckDB and only one page of rows comes back. Scores are normalized onto
[0, 1] with each rating's own scale; per response, the panel score is the mean of the judges'
current scored ratings, the human score the mean of people's, and the effective score the
human score where there is one, the panel's otherwise (as in `metrics_sql`). Every value is a
bound parameter; only code constants (column lists, `QUEUE_ORDERS`) are spliced into the SQL.
A page query also returns the total (a window count), so paging costs one query, not two.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dashboard.store import scores_sql as scores
from dashboard.store.connection import Connection

# Scores compare within this tolerance, so that a bound of 0.25 keeps a rating of exactly 2/5.
_EPSILON = 1e-9


@dataclass(frozen=True)
class FailureFilter:
    """What the Failures list shows. None means "no filter".

    With `judge` set, only responses that judge rated are listed, and the score range and the
    order use that judge's score instead of the effective score. `search` matches question
    or answer, case-insensitively, as plain text (no wildcards).
    """

    rubric: str | None
    dataset: str | None = None
    system: str | None = None
    judge: str | None = None
    min_score: float | None = None
    max_score: float | None = None
    task_type: str | None = None
    min_disagreement: float | None = None
    search: str | None = None


def like_pattern(text: str | None) -> str | None:
    """`text` as an ILIKE pattern matching it anywhere, with % _ and \\ taken literally."""
    if text is None or not text.strip():
        return None
    escaped = text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


# Per response: panel, human and effective scores, judge spread, counts. $judge may be NULL.
_PER_RESPONSE = f"""
    SELECT response_id, {scores.PANEL} AS panel, {scores.HUMAN} AS human,
           max(norm) FILTER (WHERE rater_kind = 'llm')
             - min(norm) FILTER (WHERE rater_kind = 'llm') AS spread,
           count(norm) FILTER (WHERE rater_kind = 'llm') AS n_judges,
           count(norm) FILTER (WHERE rater_kind = 'human') AS n_humans,
           count(*) FILTER (WHERE rater_kind = 'human' AND rater = $annotator) AS n_mine,
           any_value(norm) FILTER (WHERE rater_kind = 'llm' AND rater = $judge) AS judge_score,
           count(*) FILTER (WHERE rater_kind = 'llm' AND rater = $judge) AS n_judge_rows
    FROM ({scores.NORMALIZED}) g SEMI JOIN selected USING (response_id)
    WHERE g.rubric = $rubric
    GROUP BY response_id"""

# Only ids and short columns travel through the ranking; texts are joined to the page at the end.
_SELECTED = """
    SELECT r.response_id, r.item_id, r.dataset, r.system, i.task_type
    FROM responses r JOIN items i ON i.item_id = r.item_id AND i.dataset = r.dataset
    WHERE ($dataset IS NULL OR r.dataset = $dataset)
      AND ($system IS NULL OR r.system = $system)
      AND ($task_types IS NULL OR list_contains($task_types, i.task_type))
      AND ($pattern IS NULL OR i.question ILIKE $pattern ESCAPE '\\'
           OR r.answer ILIKE $pattern ESCAPE '\\')"""

_SCORED = f"""
    WITH selected AS ({_SELECTED}),
    per AS ({_PER_RESPONSE})
    SELECT s.*, p.panel, p.human, coalesce(p.human, p.panel) AS effective, p.spread,
           coalesce(p.n_judges, 0) AS n_judges, coalesce(p.n_humans, 0) AS n_humans,
           coalesce(p.n_mine, 0) AS n_mine, p.judge_score,
           CASE WHEN $judge IS NULL THEN coalesce(p.human, p.panel) ELSE p.judge_score END
             AS score
    FROM selected s LEFT JOIN per p USING (response_id)
    WHERE ($judge IS NULL OR p.n_judge_rows > 0)"""

_FAILURE_WHERE = f"""
    WHERE ($min_score IS NULL OR score >= $min_score - {_EPSILON})
      AND ($max_score IS NULL OR score <= $max_score + {_EPSILON})
      AND ($min_disagreement IS NULL OR spread >= $min_disagreement - {_EPSILON})"""

FAILURE_COLUMNS = ("response_id", "item_id", "dataset", "system", "task_type", "score",
                   "effective", "panel", "human", "spread", "n_judges", "n_humans",
                   "judge_score")
_FAILURE_ORDER = "score ASC NULLS LAST, dataset, item_id, system, response_id"


def _failure_params(f: FailureFilter) -> dict[str, Any]:
    return {"rubric": f.rubric, "dataset": f.dataset, "system": f.system, "judge": f.judge,
            "task_types": [f.task_type] if f.task_type else None,
            "pattern": like_pattern(f.search), "annotator": None,
            "min_score": f.min_score, "max_score": f.max_score,
            "min_disagreement": f.min_disagreement}


def failure_rows(con: Connection, f: FailureFilter, *, limit: int, offset: int,
                 preview_chars: int = 240) -> tuple[list[dict[str, Any]], int | None]:
    """One page of responses, worst score first (unrated last), with previews of the question
    and the answer; and the number of matching responses (None when the page is empty)."""
    columns = ", ".join(f"p.{c}" for c in FAILURE_COLUMNS)
    rows = _dicts(con.execute(f"""
        WITH page AS (
            SELECT *, count(*) OVER () AS total FROM ({_SCORED}) {_FAILURE_WHERE}
            ORDER BY {_FAILURE_ORDER} LIMIT $limit OFFSET $offset)
        SELECT {columns}, p.total, left(i.question, $chars) AS question,
               left(r.answer, $chars) AS answer
        FROM page p JOIN responses r ON r.response_id = p.response_id
        JOIN items i ON i.item_id = p.item_id AND i.dataset = p.dataset
        ORDER BY {_FAILURE_ORDER}""",
        {**_failure_params(f), "limit": limit, "offset": offset, "chars": preview_chars}))
    total = rows[0]["total"] if rows else None
    for row in rows:
        del row["total"]
    return rows, total


def count_failures(con: Connection, f: FailureFilter) -> int:
    return con.execute(f"SELECT count(*) FROM ({_SCORED}) {_FAILURE_WHERE}",
                       _failure_params(f)).fetchone()[0]


def filter_options(con: Connection, *, dataset: str | None,
                   rubric: str | None) -> dict[str, list[str]]:
    """The systems and task types present (in one dataset, or all), and the judges that rated
    on `rubric` there."""
    params = {"dataset": dataset}
    systems = con.execute(
        "SELECT DISTINCT system FROM responses WHERE ($dataset IS NULL OR dataset = $dataset) "
        "ORDER BY system", params).fetchall()
    tasks = con.execute(
        "SELECT DISTINCT task_type FROM items WHERE ($dataset IS NULL OR dataset = $dataset) "
        "ORDER BY task_type", params).fetchall()
    # Every rating stream keeps one current row, so the raters of `ratings` are the current
    # raters, without the cost of the current_ratings view.
    judges = con.execute("""
        SELECT DISTINCT g.rater FROM ratings g
        SEMI JOIN (SELECT response_id FROM responses
                   WHERE $dataset IS NULL OR dataset = $dataset) r USING (response_id)
        WHERE g.rater_kind = 'llm' AND g.rubric = $rubric
        ORDER BY g.rater""", {**params, "rubric": rubric}).fetchall()
    return {"systems": [r[0] for r in systems], "task_types": [r[0] for r in tasks],
            "judges": [r[0] for r in judges]}


# The orders of the annotation queue; each is a code constant, never user input.
QUEUE_ORDERS: dict[str, str] = {
    "worst": "effective ASC NULLS LAST, dataset, item_id, system, response_id",
    "disagreement": "spread DESC NULLS LAST, effective ASC NULLS LAST, response_id",
    "unlabelled": "dataset, item_id, system, response_id",
    "random": "md5(concat_ws(chr(31), $seed, response_id)), response_id",
}


def _queue_params(*, rubric: str, dataset: str | None, task_types: Sequence[str],
                  annotator: str, unlabelled: bool) -> dict[str, Any]:
    return {"rubric": rubric, "dataset": dataset, "system": None, "judge": None,
            "task_types": list(task_types) or None, "pattern": None, "annotator": annotator,
            "unlabelled": unlabelled}


_QUEUE_WHERE = "WHERE n_mine = 0 AND (NOT $unlabelled OR n_humans = 0)"


def queue_rows(con: Connection, *, order: str, seed: int, limit: int, offset: int,
               **selection: Any) -> tuple[list[dict[str, Any]], int | None]:
    """Responses `annotator` has not rated yet on `rubric`, in the chosen order; and how many
    there are (None when the window is empty)."""
    params = _queue_params(unlabelled=order == "unlabelled", **selection)
    if order == "random":
        params["seed"] = str(seed)
    rows = _dicts(con.execute(
        f"SELECT response_id, system, dataset, effective, spread, n_judges, n_humans, "
        f"count(*) OVER () AS total FROM ({_SCORED}) {_QUEUE_WHERE} "
        f"ORDER BY {QUEUE_ORDERS[order]} LIMIT $limit OFFSET $offset",
        {**params, "limit": limit, "offset": offset}))
    total = rows[0]["total"] if rows else None
    for row in rows:
        del row["total"]
    return rows, total


def count_queue(con: Connection, *, order: str, **selection: Any) -> int:
    params = _queue_params(unlabelled=order == "unlabelled", **selection)
    return con.execute(f"SELECT count(*) FROM ({_SCORED}) {_QUEUE_WHERE}", params).fetchone()[0]


_DETAIL_COLUMNS = """
    i.item_id, i.dataset, i.task_type, i.question, i.reference_answers, i.reference_context,
    i.document, i.candidate_answer, i.options, i.gold_letters, i.hallucination_gold,
    i.history::VARCHAR AS history, i.external_id, i.metadata::VARCHAR AS item_metadata,
    r.response_id, r.system, r.answer, r.contexts, r.metadata::VARCHAR AS response_metadata"""


def response_rows(con: Connection, response_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Each response with its item's fields, in no particular order."""
    return _dicts(con.execute(
        f"SELECT {_DETAIL_COLUMNS} FROM responses r "
        "JOIN items i ON i.item_id = r.item_id AND i.dataset = r.dataset "
        "WHERE list_contains($ids, r.response_id)", {"ids": list(response_ids)}))


def rating_history(con: Connection, response_id: str) -> list[dict[str, Any]]:
    """Every rating row of one response, superseded ones included, oldest first, with the
    row that supersedes it and the people's ratings that override it."""
    return _dicts(con.execute("""
        WITH mine AS (SELECT * FROM ratings WHERE response_id = $id)
        SELECT g.*, s.rating_id AS superseded_by,
               coalesce(o.ids, []) AS overridden_by
        FROM mine g
        LEFT JOIN mine s ON s.supersedes = g.rating_id
        LEFT JOIN (SELECT overrides, list(rating_id ORDER BY created_utc) AS ids FROM mine
                   WHERE overrides IS NOT NULL GROUP BY overrides) o
               ON o.overrides = g.rating_id
        ORDER BY g.created_utc, g.rating_id""", {"id": response_id}))


# Pairs of responses to one item by two systems, oriented as earlier verdicts on the pair
# were (so that a person's vote and a judge's verdict land on the same pair key), else with
# system_a's response as A.
_PAIRS = """
    WITH a AS (SELECT response_id, item_id, dataset FROM responses
               WHERE system = $system_a AND ($dataset IS NULL OR dataset = $dataset)),
    b AS (SELECT response_id, item_id, dataset FROM responses
          WHERE system = $system_b AND ($dataset IS NULL OR dataset = $dataset)),
    raw AS (SELECT a.item_id, a.dataset, a.response_id AS ra, b.response_id AS rb
            FROM a JOIN b ON b.item_id = a.item_id AND b.dataset = a.dataset
            WHERE a.response_id <> b.response_id),
    flipped AS (SELECT DISTINCT p.item_id, p.response_a, p.response_b FROM preferences p
                SEMI JOIN raw ON raw.item_id = p.item_id AND raw.rb = p.response_a
                             AND raw.ra = p.response_b),
    pairs AS (
        SELECT raw.item_id, raw.dataset,
               CASE WHEN f.item_id IS NULL THEN raw.ra ELSE raw.rb END AS response_a,
               CASE WHEN f.item_id IS NULL THEN raw.rb ELSE raw.ra END AS response_b
        FROM raw LEFT JOIN flipped f
          ON f.item_id = raw.item_id AND f.response_a = raw.rb AND f.response_b = raw.ra)
    SELECT * FROM pairs p
    WHERE NOT EXISTS (
        SELECT 1 FROM current_preferences q
        WHERE q.rater_kind = 'human' AND q.rater = $annotator AND q.item_id = p.item_id
          AND ((q.response_a = p.response_a AND q.response_b = p.response_b)
               OR (q.response_a = p.response_b AND q.response_b = p.response_a)))"""


def pair_rows(con: Connection, *, system_a: str, system_b: str, dataset: str | None,
              annotator: str, seed: int, limit: int, offset: int
              ) -> tuple[list[dict[str, Any]], int | None]:
    """Pairs `annotator` has not voted on, in a random order fixed by `seed`; and how many
    there are (None when the window is empty)."""
    rows = _dicts(con.execute(
        f"SELECT item_id, dataset, response_a, response_b, count(*) OVER () AS total "
        f"FROM ({_PAIRS}) "
        "ORDER BY md5(concat_ws(chr(31), $seed, item_id, response_a, response_b)), item_id "
        "LIMIT $limit OFFSET $offset",
        {"system_a": system_a, "system_b": system_b, "dataset": dataset,
         "annotator": annotator, "seed": str(seed), "limit": limit, "offset": offset}))
    total = rows[0]["total"] if rows else None
    for row in rows:
        del row["total"]
    return rows, total


def count_pairs(con: Connection, *, system_a: str, system_b: str, dataset: str | None,
                annotator: str) -> int:
    return con.execute(f"SELECT count(*) FROM ({_PAIRS})", {
        "system_a": system_a, "system_b": system_b, "dataset": dataset,
        "annotator": annotator}).fetchone()[0]


def _dicts(cursor: Any) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]
