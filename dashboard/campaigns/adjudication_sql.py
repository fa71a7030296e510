"""The SQL of adjudication: people's current labels of a campaign's answers with their
comments, and reviewers' adjudicated labels (append-only: a new one supersedes the answer's
current one in the campaign)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from dashboard.store.connection import Connection
from dashboard.store.rows import fetch

# People's current labels in the campaign, as `campaigns_sql._LABELS` reads them, with each
# label's comment, time and scale.
_LABELS = """
    WITH rows AS (
        SELECT rating_id, response_id, rater, value, comment, scale_low, scale_high,
               created_utc
        FROM ratings
        WHERE rater_kind = 'human' AND rubric = $rubric AND campaign = $campaign
          AND response_id IN (SELECT response_id FROM campaign_items WHERE campaign = $campaign))
    SELECT response_id, rater, value, comment, scale_low, scale_high, created_utc FROM rows
    WHERE rating_id NOT IN (
        SELECT supersedes FROM ratings WHERE supersedes IN (SELECT rating_id FROM rows))
      AND value IS NOT NULL
    ORDER BY response_id, created_utc, rater"""

# Each answer's current adjudication in each campaign: the rows no later row supersedes.
CURRENT = """
    SELECT * FROM adjudications
    WHERE adjudication_id NOT IN (
        SELECT supersedes FROM adjudications WHERE supersedes IS NOT NULL)"""


@dataclass(frozen=True)
class ReviewLabel:
    """One person's current label of a campaign's answer, as a reviewer sees it."""

    response_id: str
    rater: str
    value: float
    comment: str | None
    scale_low: float
    scale_high: float
    created_utc: datetime


@dataclass(frozen=True)
class Adjudication:
    """A reviewer's label of an answer the campaign's people disagreed on; `labels` is the
    people's labels as they stood then (JSON text: [{"rater", "value", "comment"}])."""

    adjudication_id: str
    campaign: str
    response_id: str
    rubric: str
    value: float
    reviewer: str
    reason: str | None
    labels: str
    supersedes: str | None
    created_utc: datetime


def review_labels(con: Connection, campaign: str, rubric: str) -> list[ReviewLabel]:
    return fetch(con.execute(_LABELS, {"campaign": campaign, "rubric": rubric}), ReviewLabel)


def current_adjudications(con: Connection, campaign: str) -> list[Adjudication]:
    return fetch(
        con.execute(f"SELECT * FROM ({CURRENT}) WHERE campaign = ? ORDER BY ALL", [campaign]),
        Adjudication,
    )


def add_adjudication(con: Connection, row: Adjudication) -> None:
    """Append an adjudication; the caller holds the transaction."""
    con.execute(
        "INSERT INTO adjudications VALUES ($adjudication_id, $campaign, $response_id, $rubric, "
        "$value, $reviewer, $reason, $labels, $supersedes, $created_utc)",
        row.__dict__,
    )
