"""The SQL of the HTML report beyond its numbers: the worst-rated answers with every current
rating of them, and the facts of the methods section (the panel, rubric versions, calls and
cost). `$dataset` None means all.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dashboard.metrics import scores_sql as scores
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class RatingNote:
    """One current rating of a worst answer, with what its rater said."""

    rater_kind: str
    rater: str
    value: float | None
    scale_low: float
    scale_high: float
    explanation: str | None
    comment: str | None
    unscored_reason: str | None


@dataclass(frozen=True)
class WorstAnswer:
    response_id: str
    effective_score: float  # normalized to 0-1
    dataset: str
    system: str
    question: str
    reference_answers: tuple[str, ...]
    answer: str
    ratings: tuple[RatingNote, ...]


@dataclass(frozen=True)
class JudgeUse:
    """The calls one judge made with one rubric version."""

    judge: str
    model: str
    rubric: str
    rubric_version: str
    calls: int
    ok_calls: int
    failed_calls: int
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None
    cost_unknown_calls: int
    first_utc: datetime | None = None
    last_utc: datetime | None = None


@dataclass(frozen=True)
class RaterUse:
    """How many ratings or preferences one rater gave with one rubric version."""

    kind: str  # "rating" or "preference"
    rubric: str
    rubric_version: str
    rater_kind: str
    rater: str
    current: int
    total: int
    first_utc: datetime | None
    last_utc: datetime | None


# The report's worst answers: the current ratings of the chosen rubric on the selection.
_RATED = f"""
    SELECT g.*, r.system, r.dataset
    FROM (SELECT *, {scores.NORM} AS norm FROM current_ratings) g
    JOIN responses r ON r.response_id = g.response_id
    WHERE g.rubric = $rubric AND ($dataset IS NULL OR r.dataset = $dataset)"""


def _notes(ratings: list[dict[str, Any]]) -> tuple[RatingNote, ...]:
    return tuple(RatingNote(**rating) for rating in ratings)


def _texts(values: list[str] | None) -> tuple[str, ...]:
    return tuple(values or ())


def worst_responses(
    con: Connection, *, dataset: str | None, rubric: str, limit: int
) -> list[WorstAnswer]:
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
    return fetch(
        cursor,
        WorstAnswer,
        convert={"effective_score": float, "reference_answers": _texts, "ratings": _notes},
    )


def judge_calls_by_judge(con: Connection, *, dataset: str | None) -> list[JudgeUse]:
    """Per judge, model, rubric and version: calls made, failures, tokens and cost. A call
    belongs to the dataset of the response (or item) it judged. A call is one cache key (one
    prompt to one model): one that failed and succeeded later, in this run or a later one,
    counts once, as a success; only a call that never succeeded counts as failed. Tokens
    and cost add up every attempt, the failed ones included."""
    cursor = con.execute(
        """
        WITH mine AS (
            SELECT j.* FROM judge_calls j
            LEFT JOIN responses r ON r.response_id = j.response_id
            LEFT JOIN items i ON i.item_id = j.item_id
            WHERE $dataset IS NULL OR coalesce(r.dataset, i.dataset) = $dataset),
        per_call AS (
            SELECT judge, model, rubric, rubric_version, cache_key,
                   bool_or(status = 'ok') AS succeeded,
                   sum(prompt_tokens) AS prompt_tokens,
                   sum(completion_tokens) AS completion_tokens, sum(cost_usd) AS cost_usd,
                   count(*) FILTER (WHERE status = 'ok' AND cost_usd IS NULL) AS cost_unknown,
                   count(*) FILTER (WHERE status = 'ok') AS ok_rows,
                   min(created_utc) AS first_utc, max(created_utc) AS last_utc
            FROM mine GROUP BY ALL)
        SELECT judge, model, rubric, rubric_version, count(*) AS calls,
               count(*) FILTER (WHERE succeeded) AS ok_calls,
               count(*) FILTER (WHERE NOT succeeded) AS failed_calls,
               sum(prompt_tokens) AS prompt_tokens,
               sum(completion_tokens) AS completion_tokens,
               sum(cost_usd) AS cost_usd,
               count(*) FILTER (WHERE succeeded AND cost_unknown = ok_rows)
                   AS cost_unknown_calls,
               min(first_utc) AS first_utc, max(last_utc) AS last_utc
        FROM per_call
        GROUP BY ALL ORDER BY judge, model, rubric, rubric_version""",
        {"dataset": dataset},
    )
    return fetch(cursor, JudgeUse, convert={"prompt_tokens": _int, "completion_tokens": _int})


def _int(value: Any) -> int | None:
    return None if value is None else int(value)  # a sum of INTEGERs comes as HUGEINT


def judgements_by_rater(con: Connection, *, dataset: str | None) -> list[RaterUse]:
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
        current AS (  -- the current views: a workbench draft's ratings are not current
            SELECT rating_id AS id FROM current_ratings
            UNION ALL SELECT preference_id FROM current_preferences)
        SELECT kind, rubric, rubric_version, rater_kind, rater,
               count(*) FILTER (WHERE id IN (SELECT id FROM current)) AS current,
               count(*) AS total, min(created_utc) AS first_utc, max(created_utc) AS last_utc
        FROM rows GROUP BY ALL ORDER BY kind DESC, rubric, rubric_version, rater_kind, rater""",
        {"dataset": dataset},
    )
    return fetch(cursor, RaterUse)
