"""A campaign's take and a save's check in PostgreSQL's own SQL, run through psycopg
(`takes.py`): twins of `campaigns_sql`'s `_NEXT` and `_SLOT`, over `PG_LABELS`, the twin of
its `_LABELS`, and the row locks on the campaign's items that order them.

What DuckDB spells otherwise: `arg_max(x, t)` is the row with the latest `t` (`DISTINCT ON
… ORDER BY t DESC`); like `arg_max`, which passes over a NULL `x`, an answer's assignment is
its latest row that names a person. `list_contains` is `= ANY`. The times are `timestamp`
(without time zone) columns holding UTC on both stores, compared with the naive UTC `now`
the caller binds (psycopg sends a naive datetime as a `timestamp`, so no time zone of the
session enters the comparison).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from dashboard.campaigns.campaigns_sql import PG_LABELS, Assignment, Campaign, LabelSlot
from dashboard.store.claims import Session
from dashboard.store.rows import fetch_one

# The person's next answer, as `_NEXT`: {only} narrows it to one answer (a take's check
# once it holds the answer's row), {lock} locks the row it returns. `others` and `assigned`
# are computed once (MATERIALIZED): inlined, PostgreSQL may run them again for each item.
_NEXT = f"""{PG_LABELS},
    latest AS (
        SELECT DISTINCT ON (response_id, person) response_id, person, expires_utc AS expires
        FROM campaign_holds WHERE campaign = %(campaign)s
        ORDER BY response_id, person, held_utc DESC, expires_utc DESC),
    busy AS (
        SELECT response_id, person FROM latest WHERE expires > %(now)s
        UNION SELECT response_id, rater FROM labels),
    others AS MATERIALIZED (
        SELECT response_id, count(DISTINCT person) AS n FROM busy
        WHERE person <> %(person)s GROUP BY response_id),
    assigned AS MATERIALIZED (
        SELECT DISTINCT ON (response_id) response_id, person FROM campaign_assignments
        WHERE campaign = %(campaign)s AND person IS NOT NULL
        ORDER BY response_id, created_utc DESC)
    SELECT i.response_id, i.position, i.selection, i.inclusion_probability,
           i.response_id IN (SELECT response_id FROM latest
                             WHERE person = %(person)s AND expires > %(now)s) AS held_by_me
    FROM campaign_items i LEFT JOIN others o USING (response_id)
    LEFT JOIN assigned a USING (response_id)
    WHERE i.campaign = %(campaign)s {{only}}
      AND i.response_id NOT IN (SELECT response_id FROM labels WHERE rater = %(person)s)
      AND NOT (i.response_id = ANY(%(skipped)s::varchar[]))
      AND i.response_id NOT IN (
          SELECT response_id FROM campaign_removals
          WHERE campaign = %(campaign)s AND person = %(person)s AND kind = 'skip')
      AND coalesce(o.n, 0) < %(overlap)s
      AND (a.person IS NULL AND NOT %(only_mine)s OR a.person = %(person)s)
    ORDER BY held_by_me DESC, a.person = %(person)s DESC NULLS LAST, i.position
    LIMIT 1 {{lock}}"""
NEXT = _NEXT.format(only="", lock="")
# The first answer whose row nobody else has locked (a take or a save of it in progress).
NEXT_UNLOCKED = _NEXT.format(only="", lock="FOR UPDATE OF i SKIP LOCKED")
NEXT_OF = _NEXT.format(only="AND i.response_id = %(response)s", lock="")

_ROWS = "FROM campaign_items WHERE campaign = %(campaign)s AND response_id = %(response)s"
# Wait for the answer's rows (in one order, so that two waiters cannot deadlock).
LOCK = f"SELECT 1 {_ROWS} ORDER BY ctid FOR UPDATE"
# Lock the answer's rows unless another transaction holds one; whether every row is now this
# transaction's (an answer listed twice in the campaign is two rows: a take that locked one
# must not go on while another holds the other).
ALL_LOCKED = f"""
    WITH mine AS (SELECT 1 {_ROWS} FOR UPDATE SKIP LOCKED)
    SELECT (SELECT count(*) FROM mine) = (SELECT count(*) {_ROWS})"""

_SLOT = f"""{PG_LABELS},
    latest AS (
        SELECT DISTINCT ON (person) person, expires_utc AS expires FROM campaign_holds
        WHERE campaign = %(campaign)s AND response_id = %(response)s
        ORDER BY person, held_utc DESC, expires_utc DESC),
    busy AS (
        SELECT person FROM latest WHERE expires > %(now)s
        UNION SELECT rater FROM labels WHERE response_id = %(response)s)
    SELECT EXISTS (SELECT 1 FROM items WHERE response_id = %(response)s) AS in_campaign,
           EXISTS (SELECT 1 FROM latest WHERE person = %(person)s AND expires > %(now)s)
               AS held_by_me,
           EXISTS (SELECT 1 FROM labels WHERE response_id = %(response)s
                   AND rater = %(person)s) AS labelled_by_me,
           (SELECT count(*) FROM busy WHERE person <> %(person)s) AS others"""


def get_campaign(session: Session, name: str) -> Campaign | None:
    return fetch_one(session.execute("SELECT * FROM campaigns WHERE name = %s", [name]), Campaign)


def next_answer(session: Session, query: str, params: dict[str, Any]) -> Assignment | None:
    """The answer `query` (`NEXT`, `NEXT_UNLOCKED` or `NEXT_OF`) chooses, if any."""
    return fetch_one(session.execute(query, params), Assignment)


def lock_answer(session: Session, campaign: str, response_id: str) -> None:
    """Hold the answer's rows until the transaction ends, waiting for whoever holds them."""
    session.execute(LOCK, {"campaign": campaign, "response": response_id}).fetchall()


def try_lock(session: Session, campaign: str, response_id: str) -> bool:
    """Whether the answer's rows are now this transaction's (without waiting: False when
    another transaction holds one)."""
    found = session.execute(ALL_LOCKED, {"campaign": campaign, "response": response_id})
    return bool(found.fetchone()[0])


def add_hold(
    session: Session,
    campaign: str,
    response_id: str,
    person: str,
    *,
    at: datetime,
    expires: datetime,
) -> None:
    session.execute(
        "INSERT INTO campaign_holds (campaign, response_id, person, held_utc, expires_utc) "
        "VALUES (%s, %s, %s, %s, %s)",
        [campaign, response_id, person, at, expires],
    )


def label_slot(
    session: Session, campaign: Campaign, response_id: str, person: str, *, now: datetime
) -> LabelSlot:
    params = {
        "campaign": campaign.name,
        "rubric": campaign.rubric,
        "response": response_id,
        "person": person,
        "now": now,
    }
    found = fetch_one(session.execute(_SLOT, params), LabelSlot)
    assert found is not None  # a SELECT without FROM returns one row
    return found
