"""The SQL of a person's own labels: their current rating of each answer on one rubric (of
one campaign, or of none, for Undo last)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class MyLabel:
    """A person's current label of one answer; `value` None = withdrawn."""

    rating_id: str
    response_id: str
    value: float | None
    unscored_reason: str | None
    campaign: str | None
    created_utc: datetime
    question: str = ""  # the answer's question, so a person can tell their labels apart


def my_labels(
    con: Connection,
    annotator: str,
    rubric: str,
    *,
    limit: int,
    campaign: str | None = None,
    any_campaign: bool = True,
) -> list[MyLabel]:
    """The person's current labels on the rubric, newest first (withdrawn ones included);
    unless `any_campaign`, only those whose current row is `campaign`'s (None: outside any
    campaign). The filter applies to the current rows, after the chains are resolved."""
    return fetch(
        con.execute(
            """
        WITH mine AS (
            SELECT rating_id, response_id, value, unscored_reason, campaign, created_utc
            FROM ratings
            WHERE rater_kind = 'human' AND rater = $annotator AND rubric = $rubric)
        SELECT m.*, coalesce(i.question, '') AS question FROM mine m
        LEFT JOIN responses r ON r.response_id = m.response_id
        LEFT JOIN items i ON i.item_id = r.item_id AND i.dataset = r.dataset
        WHERE m.rating_id NOT IN (
            SELECT supersedes FROM ratings WHERE supersedes IN (SELECT rating_id FROM mine))
          AND ($any_campaign OR m.campaign IS NOT DISTINCT FROM $campaign)
        ORDER BY m.created_utc DESC, m.rating_id
        LIMIT $limit""",
            {
                "annotator": annotator,
                "rubric": rubric,
                "limit": limit,
                "campaign": campaign,
                "any_campaign": any_campaign,
            },
        ),
        MyLabel,
    )
