"""The reads of judge drift: the anchor items, and every judge rating (current or superseded)
with the judge version it came from: the rubric version and the model version the provider
reported (else the model string)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class VersionedRating:
    """A judge's rating of a response under one version of the judge (latest if several)."""

    rater: str
    version: str
    first_utc: object
    response_id: str
    system: str
    value: float
    anchor: bool


def versioned_ratings(
    con: Connection, *, rubric: str, dataset: str | None
) -> list[VersionedRating]:
    """Every judge's scored ratings of the rubric, one per (judge, version, response), with
    when the version first rated anything and whether the response is an anchor."""
    cursor = con.execute(
        """
        WITH versioned AS (
            SELECT g.rater, concat('rubric v', g.rubric_version, ' · ',
                   coalesce(c.model_version, c.model)) AS version,
                   g.response_id, r.system, g.value, g.created_utc
            FROM ratings g JOIN judge_calls c ON c.call_id = g.call_id
            JOIN responses r ON r.response_id = g.response_id
            WHERE g.rater_kind = 'llm' AND g.rubric = $rubric AND g.value IS NOT NULL
              AND ($dataset IS NULL OR r.dataset = $dataset))
        SELECT rater, version, min(min(created_utc)) OVER (PARTITION BY rater, version)
                   AS first_utc,
               response_id, system, arg_max(value, created_utc) AS value,
               response_id IN (SELECT response_id FROM anchors) AS anchor
        FROM versioned GROUP BY rater, version, response_id, system ORDER BY ALL""",
        {"rubric": rubric, "dataset": dataset},
    )
    return fetch(cursor, VersionedRating)


def anchor_count(con: Connection, *, dataset: str | None) -> int:
    row = con.execute(
        "SELECT count(DISTINCT a.response_id) FROM anchors a "
        "JOIN responses r USING (response_id) WHERE $dataset IS NULL OR r.dataset = $dataset",
        {"dataset": dataset},
    ).fetchone()
    return int(row[0]) if row else 0


def sample_responses(con: Connection, *, dataset: str | None) -> Sequence[str]:
    """Every response id of the dataset (None: of all), in a stable order."""
    rows = con.execute(
        "SELECT response_id FROM responses WHERE $dataset IS NULL OR dataset = $dataset "
        "ORDER BY response_id",
        {"dataset": dataset},
    ).fetchall()
    return [str(r[0]) for r in rows]
