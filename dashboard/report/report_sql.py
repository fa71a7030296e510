"""The SQL of the HTML report beyond its numbers: the worst-rated answers with every current
rating of them, and the facts of the methods section (the panel, rubric versions, calls and
cost). `$dataset` None means all.
"""

from __future__ import annotations

from typing import Any

from dashboard.metrics import scores_sql as scores
from dashboard.store.connection import Connection
from dashboard.store.rows import dicts

# The report's worst answers: the current ratings of the chosen rubric on the selection.
_RATED = f"""
    SELECT g.*, r.system, r.dataset
    FROM (SELECT *, {scores.NORM} AS norm FROM current_ratings) g
    JOIN responses r ON r.response_id = g.response_id
    WHERE g.rubric = $rubric AND ($dataset IS NULL OR r.dataset = $dataset)"""


def worst_responses(
    con: Connection, *, dataset: str | None, rubric: str, limit: int
) -> list[dict[str, Any]]:
    """The `limit` responses with the lowest effective score (ties by id), each with its
    question, answer, reference answers and every current rating of the rubric."""
    cursor = con.execute(
        f"""
        WITH rated AS ({_RATED}),
        worst AS (
            SELECT response_id, {scores.EFFECTIVE} AS effective_score
            FROM rated GROUP BY response_id
            HAVING effective_score IS NOT NULL
            ORDER BY effective_score, response_id LIMIT $limit)
        SELECT w.response_id, w.effective_score, r.dataset, r.system, i.question,
               i.reference_answers, r.answer,
               list({{'rater_kind': g.rater_kind, 'rater': g.rater, 'value': g.value,
                     'scale_low': g.scale_low, 'scale_high': g.scale_high,
                     'explanation': g.explanation, 'comment': g.comment,
                     'unscored_reason': g.unscored_reason}}
                    ORDER BY g.rater_kind DESC, g.rater) AS ratings
        FROM worst w
        JOIN responses r ON r.response_id = w.response_id
        JOIN items i ON i.item_id = r.item_id
        JOIN rated g ON g.response_id = w.response_id
        GROUP BY ALL ORDER BY w.effective_score, w.response_id""",
        {"dataset": dataset, "rubric": rubric, "limit": limit},
    )
    return dicts(cursor)


def judge_calls_by_judge(con: Connection, *, dataset: str | None) -> list[dict[str, Any]]:
    """Per judge, model, rubric and version: calls made, failures, tokens and cost. A call
    belongs to the dataset of the response (or item) it judged."""
    cursor = con.execute(
        """
        SELECT j.judge, j.model, j.rubric, j.rubric_version, count(*) AS calls,
               count(*) FILTER (WHERE j.status = 'ok') AS ok_calls,
               count(*) FILTER (WHERE j.status = 'failed') AS failed_calls,
               sum(j.prompt_tokens) AS prompt_tokens,
               sum(j.completion_tokens) AS completion_tokens,
               sum(j.cost_usd) AS cost_usd,
               count(*) FILTER (WHERE j.status = 'ok' AND j.cost_usd IS NULL)
                   AS cost_unknown_calls,
               min(j.created_utc) AS first_utc, max(j.created_utc) AS last_utc
        FROM judge_calls j
        LEFT JOIN responses r ON r.response_id = j.response_id
        LEFT JOIN items i ON i.item_id = j.item_id
        WHERE $dataset IS NULL OR coalesce(r.dataset, i.dataset) = $dataset
        GROUP BY ALL ORDER BY j.judge, j.model, j.rubric, j.rubric_version""",
        {"dataset": dataset},
    )
    return dicts(cursor)


def judgements_by_rater(con: Connection, *, dataset: str | None) -> list[dict[str, Any]]:
    """Per kind of judgement (rating, preference), rubric, version and rater: current rows,
    all rows, and the time span they were given in."""
    cursor = con.execute(
        """
        WITH rows AS (
            SELECT 'rating' AS kind, g.rubric, g.rubric_version, g.rater_kind, g.rater,
                   g.rating_id AS id, g.created_utc
            FROM ratings g JOIN responses r USING (response_id)
            WHERE $dataset IS NULL OR r.dataset = $dataset
            UNION ALL
            SELECT 'preference', p.rubric, p.rubric_version, p.rater_kind, p.rater,
                   p.preference_id, p.created_utc
            FROM preferences p JOIN items i USING (item_id)
            WHERE $dataset IS NULL OR i.dataset = $dataset),
        replaced AS (
            SELECT supersedes AS id FROM ratings WHERE supersedes IS NOT NULL
            UNION SELECT supersedes FROM preferences WHERE supersedes IS NOT NULL)
        SELECT kind, rubric, rubric_version, rater_kind, rater,
               count(*) FILTER (WHERE id NOT IN (SELECT id FROM replaced)) AS current,
               count(*) AS total, min(created_utc) AS first_utc, max(created_utc) AS last_utc
        FROM rows GROUP BY ALL ORDER BY kind DESC, rubric, rubric_version, rater_kind, rater""",
        {"dataset": dataset},
    )
    return dicts(cursor)
