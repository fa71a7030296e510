"""The workbench's reads of ratings: each judge's latest scored rating per rubric version of
the responses people rated on a dataset, the people's current ratings with their comments,
the texts of responses, and the model a judge's calls used."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class JudgeRating:
    judge: str
    rubric_version: str
    response_id: str
    value: float
    explanation: str | None


def judge_ratings(
    con: Connection, *, rubric: str, dataset: str, judge: str | None = None
) -> list[JudgeRating]:
    """Latest scored rating per (judge, version, response) on responses people rated."""
    cursor = con.execute(
        """
        WITH labelled AS (
            SELECT DISTINCT g.response_id FROM current_ratings g JOIN responses r USING
                (response_id)
            WHERE g.rubric = $rubric AND g.rater_kind = 'human' AND g.value IS NOT NULL
              AND r.dataset = $dataset)
        SELECT g.rater AS judge, g.rubric_version, g.response_id,
               arg_max(g.value, g.created_utc) AS value,
               arg_max(g.explanation, g.created_utc) AS explanation
        FROM ratings g
        WHERE g.rubric = $rubric AND g.rater_kind = 'llm' AND g.value IS NOT NULL
          AND ($judge IS NULL OR g.rater = $judge)
          AND g.response_id IN (SELECT response_id FROM labelled)
        GROUP BY ALL ORDER BY ALL""",
        {"rubric": rubric, "dataset": dataset, "judge": judge},
    )
    return fetch(cursor, JudgeRating)


@dataclass(frozen=True)
class PersonRating:
    rating_id: str
    rater: str
    response_id: str
    value: float
    comment: str | None


def people_ratings(con: Connection, *, rubric: str, dataset: str) -> list[PersonRating]:
    cursor = con.execute(
        """
        SELECT g.rating_id, g.rater, g.response_id, g.value, g.comment
        FROM current_ratings g JOIN responses r USING (response_id)
        WHERE g.rubric = $rubric AND g.rater_kind = 'human' AND g.value IS NOT NULL
          AND r.dataset = $dataset
        ORDER BY g.response_id, g.rater""",
        {"rubric": rubric, "dataset": dataset},
    )
    return fetch(cursor, PersonRating)


@dataclass(frozen=True)
class ResponseText:
    response_id: str
    item_id: str
    system: str
    question: str
    answer: str


def response_texts(con: Connection, response_ids: Sequence[str]) -> list[ResponseText]:
    cursor = con.execute(
        """
        SELECT r.response_id, r.item_id, r.system, i.question, r.answer FROM responses r
        JOIN items i ON i.item_id = r.item_id AND i.dataset = r.dataset
        WHERE r.response_id IN (SELECT unnest($ids)) ORDER BY r.response_id""",
        {"ids": list(response_ids)},
    )
    return fetch(cursor, ResponseText)


def judge_model(con: Connection, *, judge: str, rubric: str, version: str) -> str | None:
    """The model of the judge's latest call under this rubric version (None: no call)."""
    found = judge_model_version(con, judge=judge, rubric=rubric, version=version)
    return found.model if found else None


@dataclass(frozen=True)
class JudgeModel:
    """The model string of a judge's call and the model version the provider reported for it
    (`judge_calls.model_version`; None when none was reported, as for the offline judge)."""

    model: str
    model_version: str | None


def judge_model_version(
    con: Connection, *, judge: str, rubric: str, version: str
) -> JudgeModel | None:
    """The model and model version of the judge's latest call under this rubric version
    (None: no call)."""
    cursor = con.execute(
        """
        SELECT model, model_version FROM judge_calls
        WHERE judge = ? AND rubric = ? AND rubric_version = ?
        ORDER BY created_utc DESC, call_id DESC LIMIT 1""",
        [judge, rubric, version],
    )
    found = fetch(cursor, JudgeModel)
    return found[0] if found else None


@dataclass(frozen=True)
class Note:
    """A current rating's words: a judge's explanation or a person's comment."""

    response_id: str
    rater_kind: str
    rater: str
    rating_id: str
    explanation: str | None
    comment: str | None


def current_notes(
    con: Connection, *, rubric: str, judge: str, response_ids: Sequence[str]
) -> list[Note]:
    """The judge's and the people's current ratings of the rubric on these responses."""
    cursor = con.execute(
        """
        SELECT response_id, rater_kind, rater, rating_id, explanation, comment
        FROM current_ratings
        WHERE rubric = $rubric AND response_id IN (SELECT unnest($ids))
          AND (rater_kind = 'human' OR (rater_kind = 'llm' AND rater = $judge))
        ORDER BY ALL""",
        {"rubric": rubric, "judge": judge, "ids": list(response_ids)},
    )
    return fetch(cursor, Note)
