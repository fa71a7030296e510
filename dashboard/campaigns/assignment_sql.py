"""The SQL of assignment: who each answer of a campaign is assigned to (the latest row of
`campaign_assignments` per answer; a NULL person unassigns it), and each person's progress."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from dashboard.campaigns.campaigns_sql import ASSIGNED, LABELS, Campaign
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class PersonProgress:
    """How far a person is with what is assigned to them: `n_labelled` of `n_assigned`."""

    person: str
    n_assigned: int
    n_labelled: int


# The campaign's answers nobody is assigned, that still want labels (fewer than `overlap`
# current labels), in the campaign's order.
_OPEN = f"""{LABELS},
    assigned AS ({ASSIGNED}),
    counted AS (SELECT response_id, count(*) AS n FROM labels GROUP BY response_id)
    SELECT i.response_id FROM items i
    LEFT JOIN assigned a USING (response_id) LEFT JOIN counted c USING (response_id)
    WHERE a.person IS NULL AND coalesce(c.n, 0) < $overlap
    ORDER BY i.position"""

# A person's assigned answers they have not labelled yet, in the campaign's order.
_PENDING = f"""{LABELS},
    assigned AS ({ASSIGNED})
    SELECT i.response_id FROM items i JOIN assigned a USING (response_id)
    WHERE a.person = $person AND i.response_id NOT IN (
        SELECT response_id FROM labels WHERE rater = $person)
    ORDER BY i.position"""

_PROGRESS = f"""{LABELS},
    assigned AS ({ASSIGNED})
    SELECT a.person, count(*) AS n_assigned,
           count(*) FILTER (WHERE EXISTS (
               SELECT 1 FROM labels l WHERE l.response_id = a.response_id
                 AND l.rater = a.person)) AS n_labelled
    FROM assigned a WHERE a.person IS NOT NULL
    GROUP BY a.person ORDER BY a.person"""


def _ids(con: Connection, query: str, params: dict[str, object]) -> list[str]:
    return [str(row[0]) for row in con.execute(query, params).fetchall()]


def open_answers(con: Connection, campaign: Campaign) -> list[str]:
    return _ids(
        con,
        _OPEN,
        {"campaign": campaign.name, "rubric": campaign.rubric, "overlap": campaign.overlap},
    )


def pending_of(con: Connection, campaign: Campaign, person: str) -> list[str]:
    return _ids(
        con, _PENDING, {"campaign": campaign.name, "rubric": campaign.rubric, "person": person}
    )


def add_assignments(
    con: Connection,
    campaign: str,
    pairs: list[tuple[str, str | None]],
    *,
    by: str | None,
    at: datetime,
) -> None:
    """Append (answer, person) rows; a later row of an answer replaces its assignment."""
    if pairs:
        con.executemany(
            "INSERT INTO campaign_assignments VALUES (?, ?, ?, ?, ?)",
            [[campaign, response_id, person, by, at] for response_id, person in pairs],
        )


def person_progress(con: Connection, campaign: Campaign) -> list[PersonProgress]:
    return fetch(
        con.execute(_PROGRESS, {"campaign": campaign.name, "rubric": campaign.rubric}),
        PersonProgress,
    )
