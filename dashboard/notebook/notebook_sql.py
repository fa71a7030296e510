"""The SQL of the notebook API: long tables of a database, as pandas DataFrames.

Each query returns one row per response, rating, preference or judge call, with the columns a
notebook wants beside it (the item's question, the system, the dataset). `$dataset` None means
every dataset. DuckDB builds the DataFrame itself (`.df()`), so nothing goes through Python
row by row.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from dashboard.metrics import scores_sql as scores
from dashboard.store.connection import Connection

_IN_DATASET = "($dataset IS NULL OR r.dataset = $dataset)"


def responses(
    con: Connection,
    *,
    dataset: str | None,
    rubric: str | None,
    reference: Sequence[str],
    version: str,
) -> pd.DataFrame:
    """One row per response: its item's fields, the answer, its panel, human and effective
    scores under `rubric` (normalized to 0-1; null without ratings), how many judges and
    people rated it, and its reference-based scores (`reference`: stored metric names)."""
    pivot = ", ".join(
        f"max(a.value) FILTER (WHERE a.metric = $m{n}) AS m{n}" for n in range(len(reference))
    )
    if not reference:
        raise ValueError("no reference metric to show")
    per_reference = (
        f"SELECT a.response_id, {pivot} FROM auto_scores a WHERE a.version = $version "
        "GROUP BY a.response_id"
    )
    renamed = ", ".join(f"x.m{n} AS {_column(name)}" for n, name in enumerate(reference))
    query = f"""
        WITH per AS (
            SELECT response_id, {scores.PANEL} AS panel, {scores.HUMAN} AS human,
                   {scores.EFFECTIVE} AS effective,
                   count(norm) FILTER (WHERE rater_kind = 'llm') AS n_judges,
                   count(norm) FILTER (WHERE rater_kind = 'human') AS n_people
            FROM ({scores.NORMALIZED}) WHERE rubric = $rubric GROUP BY response_id),
        x AS ({per_reference})
        SELECT r.dataset, r.system, r.response_id, r.item_id, i.task_type, i.question,
               i.reference_answers, i.reference_context, r.answer, r.contexts,
               p.panel, p.human, p.effective, coalesce(p.n_judges, 0) AS n_judges,
               coalesce(p.n_people, 0) AS n_people, {renamed}
        FROM responses r JOIN items i ON i.item_id = r.item_id AND i.dataset = r.dataset
        LEFT JOIN per p ON p.response_id = r.response_id
        LEFT JOIN x ON x.response_id = r.response_id
        WHERE {_IN_DATASET}
        ORDER BY r.dataset, r.item_id, r.system, r.response_id"""
    params = {"dataset": dataset, "rubric": rubric, "version": version}
    params.update({f"m{n}": name for n, name in enumerate(reference)})
    return con.execute(query, params).df()


def _column(stored: str) -> str:
    """A stored reference metric's name as a column name: code constants only (the registry's
    stored names), checked to be plain identifiers."""
    if not stored.isidentifier():
        raise ValueError(f"not a column name: {stored!r}")
    return stored


def ratings(con: Connection, *, dataset: str | None, current_only: bool) -> pd.DataFrame:
    """Every rating (current ones only, or every row with `is_current`), with its response's
    dataset and system and its normalized value."""
    source = "current_ratings" if current_only else "ratings"
    return con.execute(
        f"""
        SELECT r.dataset, r.system, g.response_id, g.rating_id, g.rater_kind, g.rater,
               g.rubric, g.rubric_version, g.value, g.scale_low, g.scale_high, g.norm,
               g.unscored_reason, g.explanation, g.comment, g.supersedes, g.overrides,
               g.call_id, g.created_utc,
               g.rating_id NOT IN (SELECT supersedes FROM ratings
                                   WHERE supersedes IS NOT NULL) AS is_current
        FROM (SELECT *, {scores.NORM} AS norm FROM {source}) g
        JOIN responses r ON r.response_id = g.response_id
        WHERE {_IN_DATASET}
        ORDER BY r.dataset, g.response_id, g.rubric, g.rater_kind, g.rater, g.created_utc""",
        {"dataset": dataset},
    ).df()


def preferences(con: Connection, *, dataset: str | None, current_only: bool) -> pd.DataFrame:
    """Every pairwise verdict, with the two responses' systems."""
    source = "current_preferences" if current_only else "preferences"
    return con.execute(
        f"""
        SELECT i.dataset, p.item_id, ra.system AS system_a, rb.system AS system_b,
               p.preference_id, p.response_a, p.response_b, p.rater_kind, p.rater, p.rubric,
               p.rubric_version, p.verdict, p.shown_first, p.unscored_reason, p.explanation,
               p.comment, p.supersedes, p.call_id, p.created_utc,
               p.preference_id NOT IN (SELECT supersedes FROM preferences
                                       WHERE supersedes IS NOT NULL) AS is_current
        FROM {source} p JOIN items i ON i.item_id = p.item_id
        JOIN responses ra ON ra.response_id = p.response_a
        JOIN responses rb ON rb.response_id = p.response_b
        WHERE $dataset IS NULL OR i.dataset = $dataset
        ORDER BY i.dataset, p.item_id, p.rater_kind, p.rater, p.shown_first, p.created_utc""",
        {"dataset": dataset},
    ).df()


def judge_calls(con: Connection, *, dataset: str | None) -> pd.DataFrame:
    """Every judge call: model, status, attempts, latency, tokens and cost (null = unknown)."""
    return con.execute(
        """
        SELECT coalesce(r.dataset, i.dataset) AS dataset, j.call_id, j.run_id, j.judge,
               j.model, j.rubric, j.rubric_version, j.target_kind, j.status, j.response_id,
               j.item_id, j.response_a, j.response_b, j.shown_first, j.attempts, j.latency_ms,
               j.prompt_tokens, j.completion_tokens, j.cost_usd, j.error, j.created_utc
        FROM judge_calls j
        LEFT JOIN responses r ON r.response_id = j.response_id
        LEFT JOIN items i ON i.item_id = j.item_id
        WHERE $dataset IS NULL OR coalesce(r.dataset, i.dataset) = $dataset
        ORDER BY j.created_utc, j.call_id""",
        {"dataset": dataset},
    ).df()


def items_of_responses(con: Connection, response_ids: Sequence[str]) -> dict[str, str]:
    """The item of each of these responses that is in the database."""
    rows = con.execute(
        "SELECT response_id, item_id FROM responses WHERE response_id IN (SELECT unnest($ids))",
        {"ids": list(response_ids)},
    ).fetchall()
    return {str(response_id): str(item_id) for response_id, item_id in rows}
