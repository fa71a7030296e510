"""The SQL behind the Failures list: one page of responses, worst score first, with filters.

Lists are computed in DuckDB and only one page of rows comes back. Scores are normalized onto
[0, 1] with each rating's own scale; per response, the panel score is the mean of the judges'
current scored ratings, the human score the mean of people's, and the effective score the
human score where there is one, the panel's otherwise (as in `metrics_sql`). Every value is a
bound parameter; only code constants (column lists, `QUEUE_ORDERS`) are spliced into the SQL.
A page query also returns the total (a window count), so paging costs one query, not two.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dashboard.metrics import scores_sql as scores
from dashboard.metrics.selection import panel_versions_param
from dashboard.review.requests import FailureFilter
from dashboard.store.connection import Connection
from dashboard.store.rows import Window, fetch_window, scalar, window_sql

# Scores compare within this tolerance, so that a bound of 0.25 keeps a rating of exactly 2/5.
_EPSILON = 1e-9


@dataclass(frozen=True)
class FailureRow:
    """One line of the Failures list. Scores are normalized onto [0, 1]; None = no rating.

    `score` is what the list is ordered by: the effective score, or the chosen judge's.
    `question` and `answer` are previews (the detail has the full texts).
    """

    response_id: str
    item_id: str
    dataset: str
    system: str
    task_type: str
    question: str
    answer: str
    score: float | None
    effective: float | None
    panel: float | None
    human: float | None
    spread: float | None
    n_judges: int
    n_humans: int
    judge_score: float | None = None


@dataclass(frozen=True)
class FilterOptions:
    systems: tuple[str, ...]
    task_types: tuple[str, ...]
    judges: tuple[str, ...]  # the judges that rated on the rubric asked about


def like_pattern(text: str | None) -> str | None:
    """`text` as an ILIKE pattern matching it anywhere, with % _ and \\ taken literally."""
    if text is None or not text.strip():
        return None
    escaped = text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


# Per response: panel, human and effective scores, judge spread, counts. $judge may be NULL.
_PER_RESPONSE = f"""
    SELECT response_id, {scores.PANEL_OF} AS panel, {scores.HUMAN} AS human,
           max(norm) FILTER (WHERE {scores.IN_PANEL})
             - min(norm) FILTER (WHERE {scores.IN_PANEL}) AS spread,
           count(norm) FILTER (WHERE {scores.IN_PANEL}) AS n_judges,
           count(norm) FILTER (WHERE rater_kind = 'human') AS n_humans,
           count(*) FILTER (WHERE rater_kind = 'human' AND rater = $annotator) AS n_mine,
           any_value(norm) FILTER (WHERE rater_kind = 'llm' AND rater = $judge) AS judge_score,
           count(*) FILTER (WHERE rater_kind = 'llm' AND rater = $judge) AS n_judge_rows
    FROM ({scores.PANEL_NORMALIZED}) g SEMI JOIN selected USING (response_id)
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

SCORED = f"""
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
      AND ($min_disagreement IS NULL OR spread >= $min_disagreement - {_EPSILON})
      AND ($tags IS NULL OR response_id IN (
           SELECT response_id FROM tag_labels
           WHERE NOT superseded AND ticked AND list_contains($tags, tag)))"""

FAILURE_COLUMNS = (
    "response_id",
    "item_id",
    "dataset",
    "system",
    "task_type",
    "score",
    "effective",
    "panel",
    "human",
    "spread",
    "n_judges",
    "n_humans",
    "judge_score",
)
_FAILURE_ORDER = "score ASC NULLS LAST, dataset, item_id, system, response_id"


def _failure_params(f: FailureFilter) -> dict[str, Any]:
    return {
        "rubric": f.rubric,
        "dataset": f.dataset,
        "system": f.system,
        "judge": f.judge,
        "task_types": [f.task_type] if f.task_type else None,
        "pattern": like_pattern(f.search),
        "annotator": None,
        "min_score": f.min_score,
        "max_score": f.max_score,
        "min_disagreement": f.min_disagreement,
        "tags": list(f.tags) if f.tags else None,
        "panel_judges": list(f.panel_judges) if f.panel_judges is not None else None,
        "panel_versions": panel_versions_param(f.panel_versions, f.panel_version),
    }


_FAILURE_PAGE = window_sql(f"SELECT * FROM ({SCORED}) {_FAILURE_WHERE}", order=_FAILURE_ORDER)


def failure_rows(
    con: Connection, f: FailureFilter, *, limit: int, offset: int, preview_chars: int = 240
) -> Window[FailureRow]:
    """One page of responses, worst score first (unrated last), with previews of the question
    and the answer; and the number of matching responses (None when the page is empty)."""
    columns = ", ".join(f"p.{c}" for c in FAILURE_COLUMNS)
    return fetch_window(
        con.execute(
            f"""
        WITH page AS ({_FAILURE_PAGE})
        SELECT {columns}, p.total, left(i.question, $chars) AS question,
               left(r.answer, $chars) AS answer
        FROM page p JOIN responses r ON r.response_id = p.response_id
        JOIN items i ON i.item_id = p.item_id AND i.dataset = p.dataset
        ORDER BY {_FAILURE_ORDER}""",
            {**_failure_params(f), "limit": limit, "offset": offset, "chars": preview_chars},
        ),
        FailureRow,
    )


def count_failures(con: Connection, f: FailureFilter) -> int:
    query = f"SELECT count(*) FROM ({SCORED}) {_FAILURE_WHERE}"
    return int(scalar(con.execute(query, _failure_params(f))))


def filter_options(con: Connection, *, dataset: str | None, rubric: str | None) -> FilterOptions:
    """The systems and task types present (in one dataset, or all), and the judges that rated
    on `rubric` there."""
    params = {"dataset": dataset}
    systems = con.execute(
        "SELECT DISTINCT system FROM responses WHERE ($dataset IS NULL OR dataset = $dataset) "
        "ORDER BY system",
        params,
    ).fetchall()
    tasks = con.execute(
        "SELECT DISTINCT task_type FROM items WHERE ($dataset IS NULL OR dataset = $dataset) "
        "ORDER BY task_type",
        params,
    ).fetchall()
    # Every rating stream keeps one current row, so the raters of `ratings` are the current
    # raters, without the cost of the current_ratings view (but a judge that only rated under
    # a workbench draft, whose ratings are all shelved).
    judges = con.execute(
        """
        SELECT DISTINCT g.rater FROM ratings g
        SEMI JOIN (SELECT response_id FROM responses
                   WHERE $dataset IS NULL OR dataset = $dataset) r USING (response_id)
        WHERE g.rater_kind = 'llm' AND g.rubric = $rubric AND NOT g.shelved
        ORDER BY g.rater""",
        {**params, "rubric": rubric},
    ).fetchall()
    return FilterOptions(
        tuple(r[0] for r in systems), tuple(r[0] for r in tasks), tuple(r[0] for r in judges)
    )
