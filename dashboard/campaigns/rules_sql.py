"""The SQL of rule-filled campaigns: the answers a saved filter matches that the campaign has
not held yet, and the answers people skipped or an admin removed (which a rule never adds)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dashboard.review.failures_sql import SCORED
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch, scalar

_EPSILON = 1e-9  # a bound of 0.4 keeps a score of exactly 2/5

# The filter over the per-response scores of `failures_sql.SCORED` (normalized onto [0, 1]):
# the judges' panel score in a range, the judges' spread or the gap between the panel and the
# people at or over a threshold, a ticked tag, no person's label yet; minus every answer the
# campaign holds or held (its items, and those skipped or removed).
_MATCHES = f"""
    SELECT response_id, panel FROM ({SCORED})
    WHERE ($score_low IS NULL OR panel >= $score_low - {_EPSILON})
      AND ($score_high IS NULL OR panel <= $score_high + {_EPSILON})
      AND ($disagree IS NULL
           OR ($disagree = 'judges' AND spread >= $threshold - {_EPSILON})
           OR ($disagree = 'people' AND abs(panel - human) >= $threshold - {_EPSILON}))
      AND ($tag IS NULL OR response_id IN (
           SELECT response_id FROM tag_labels WHERE NOT superseded AND ticked AND tag = $tag))
      AND (NOT $unlabelled OR n_humans = 0)
      AND response_id NOT IN (SELECT response_id FROM campaign_items WHERE campaign = $campaign)
      AND response_id NOT IN (
           SELECT response_id FROM campaign_removals WHERE campaign = $campaign)"""


def add_matches(con: Connection, campaign: str, params: dict[str, Any], *, room: int) -> int:
    """Append up to `room` matching answers to the campaign's items after its last position,
    lowest panel score first (a targeted pick); return how many were added."""
    start = scalar(
        con.execute(
            "SELECT coalesce(max(position) + 1, 0) FROM campaign_items WHERE campaign = ?",
            [campaign],
        )
    )
    added = con.execute(
        f"""
        INSERT INTO campaign_items
        SELECT $campaign, response_id, $start + row_number() OVER () - 1, 'targeted', NULL
        FROM (SELECT response_id FROM ({_MATCHES})
              ORDER BY panel ASC NULLS LAST, response_id LIMIT $room)""",
        {**params, "campaign": campaign, "start": int(start), "room": room},
    ).fetchone()
    return int(added[0]) if added else 0


def add_removal(
    con: Connection, campaign: str, response_id: str, person: str, *, kind: str, at: Any
) -> None:
    con.execute(
        "INSERT INTO campaign_removals VALUES (?, ?, ?, ?, ?)",
        [campaign, response_id, person, kind, at],
    )


def drop_item(con: Connection, campaign: str, response_id: str) -> bool:
    """Take an answer out of the campaign's items (its removal is recorded beside)."""
    found = con.execute(
        "DELETE FROM campaign_items WHERE campaign = ? AND response_id = ?",
        [campaign, response_id],
    ).fetchone()
    return bool(found and found[0])


def skipped_by(con: Connection, campaign: str, person: str) -> list[str]:
    rows = con.execute(
        "SELECT DISTINCT response_id FROM campaign_removals "
        "WHERE campaign = ? AND person = ? AND kind = 'skip' ORDER BY ALL",
        [campaign, person],
    ).fetchall()
    return [str(row[0]) for row in rows]


def rule_campaigns(con: Connection) -> list[tuple[str, str]]:
    """(name, filter JSON) of every rule-filled campaign."""
    rows = con.execute(
        "SELECT name, filter FROM campaigns WHERE filter IS NOT NULL ORDER BY name"
    ).fetchall()
    return [(str(name), str(saved)) for name, saved in rows]


@dataclass(frozen=True)
class CampaignAnswer:
    """One of a campaign's answers, as an admin picks it to remove it."""

    response_id: str
    system: str
    question: str


def list_items(con: Connection, campaign: str) -> list[CampaignAnswer]:
    """The campaign's answers in its order, with their system and question."""
    cursor = con.execute(
        "SELECT c.response_id, r.system, i.question FROM campaign_items c "
        "JOIN responses r ON r.response_id = c.response_id "
        "JOIN items i ON i.item_id = r.item_id AND i.dataset = r.dataset "
        "WHERE c.campaign = ? ORDER BY c.position",
        [campaign],
    )
    return fetch(cursor, CampaignAnswer)
