"""The reads of rubric versions side by side: on the responses of a selection that people
rated, each judge's latest scored rating under every rubric version it ran with (current or
superseded; a few-shot version's own examples and the workbench's unadopted drafts left out),
people's current ratings, and the examples each few-shot version used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from dashboard.metrics.calibration.calibration_sql import NOT_AN_EXAMPLE
from dashboard.metrics.selection import Selection
from dashboard.metrics.selection_sql import RATED, RATED_PARAMS, SELECTED, SELECTED_PARAMS
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class VersionedLabel:
    """One rating of a labelled response: a judge's under `rubric_version` (its latest of
    that version), or a person's current one (`rubric_version` None)."""

    rater_kind: str
    rater: str
    rubric_version: str | None
    first_utc: datetime | None  # when the judge first rated under this version
    response_id: str
    value: float


# A judge's rating under a workbench version never adopted: the workbench compares drafts on
# its dev split (and counts each look at the test split), so Judge QA leaves them out.
_A_DRAFT = """(EXISTS (SELECT 1 FROM rubric_versions v
                WHERE v.rubric = g.rubric AND v.rubric_version = g.rubric_version)
        AND NOT EXISTS (SELECT 1 FROM adoptions a
                WHERE a.rubric = g.rubric AND a.rubric_version = g.rubric_version))"""


def versioned_labels(con: Connection, sel: Selection) -> list[VersionedLabel]:
    """Every judge's latest scored rating per rubric version, and every person's current
    scored rating, of the selection's rubric on the selected responses people rated."""
    cursor = con.execute(
        f"""
        WITH chosen AS ({SELECTED}),
        people AS (
            SELECT g.rater, g.response_id, g.value FROM current_ratings g
            WHERE g.rubric = $rubric AND g.rater_kind = 'human' AND g.value IS NOT NULL
              AND g.response_id IN (SELECT response_id FROM chosen)),
        judged AS (
            SELECT g.rater, g.rubric_version, g.response_id,
                   arg_max(g.value, g.created_utc) AS value, min(g.created_utc) AS first_utc
            FROM ratings g
            WHERE g.rubric = $rubric AND g.rater_kind = 'llm' AND g.value IS NOT NULL
              AND g.response_id IN (SELECT response_id FROM people)
              AND NOT {NOT_AN_EXAMPLE.format(table="g")} AND NOT {_A_DRAFT}
            GROUP BY ALL)
        SELECT 'llm' AS rater_kind, rater, rubric_version,
               min(first_utc) OVER (PARTITION BY rater, rubric_version) AS first_utc,
               response_id, value
        FROM judged
        UNION ALL
        SELECT 'human', rater, NULL, NULL, response_id, value FROM people
        ORDER BY ALL""",
        sel.params(*SELECTED_PARAMS, "rubric"),
    )
    return fetch(cursor, VersionedLabel)


@dataclass(frozen=True)
class ResponseText:
    response_id: str
    system: str
    question: str


def response_texts(con: Connection, response_ids: Sequence[str]) -> list[ResponseText]:
    """The system and question of each response named."""
    cursor = con.execute(
        """
        SELECT r.response_id, r.system, i.question FROM responses r
        JOIN items i ON i.item_id = r.item_id AND i.dataset = r.dataset
        WHERE r.response_id IN (SELECT unnest($ids)) ORDER BY ALL""",
        {"ids": list(response_ids)},
    )
    return fetch(cursor, ResponseText)


@dataclass(frozen=True)
class UsedExample:
    """A person's label that a few-shot rubric version showed in its prompt."""

    rubric_version: str
    position: int
    response_id: str
    rater: str
    value: float


def used_examples(con: Connection, *, rubric: str) -> list[UsedExample]:
    """The labels every few-shot version of the rubric used as examples."""
    cursor = con.execute(
        "SELECT rubric_version, position, response_id, rater, value FROM few_shot_examples "
        "WHERE rubric = ? ORDER BY ALL",
        [rubric],
    )
    return fetch(cursor, UsedExample)


@dataclass(frozen=True)
class ComparedVersion:
    rubric_version: str


def compared_versions(con: Connection, sel: Selection) -> list[ComparedVersion]:
    """The rubric versions of the judges' current ratings that calibration compares with
    people: on the selected responses a person rated, each version's own examples left out."""
    cursor = con.execute(  # NOT MATERIALIZED: as in `calibration_sql.labelled_ratings`
        f"""
        WITH rated AS NOT MATERIALIZED ({RATED})
        SELECT DISTINCT rubric_version FROM rated
        WHERE rater_kind = 'llm' AND rubric_version IS NOT NULL
          AND response_id IN (SELECT response_id FROM rated WHERE rater_kind = 'human')
          AND NOT {NOT_AN_EXAMPLE.format(table="rated")}
        ORDER BY ALL""",
        sel.params(*RATED_PARAMS),
    )
    return fetch(cursor, ComparedVersion)
