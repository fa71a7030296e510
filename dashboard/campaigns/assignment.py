"""Assignment: an admin gives a campaign's answers to named people, evenly or a chosen count
each, and may move one person's unlabelled answers to another.

An answer assigned to a person is served to them first on the Annotate page (their queue
holds their assignments before the campaign's open answers) and to nobody else; unassigned
answers stay open to everyone. Assignments are append-only rows (`campaign_assignments`):
the latest row of an answer says who has it. Only an admin assigns (`require_admin`).
"""

from __future__ import annotations

from collections.abc import Sequence

from dashboard.auth.roles import require_admin
from dashboard.auth.users import User
from dashboard.campaigns import assignment_sql as sql, campaigns_sql
from dashboard.campaigns.assignment_sql import PersonProgress as PersonProgress
from dashboard.campaigns.campaigns_sql import Campaign
from dashboard.ids import utc_now
from dashboard.store import Store, transaction
from dashboard.store.connection import Connection


class AssignmentError(ValueError):
    """An assignment that cannot be made; the message says what to change."""


def _campaign(con: Connection, name: str) -> Campaign:
    found = campaigns_sql.get_campaign(con, name)
    if found is None:
        raise AssignmentError(f"No campaign is named {name!r}.")
    return found


def _people(people: Sequence[str]) -> list[str]:
    names = list(dict.fromkeys(p.strip() for p in people if p.strip()))
    if not names:
        raise AssignmentError("Name at least one person to assign answers to.")
    return names


def assign_answers(
    store: Store,
    name: str,
    people: Sequence[str],
    *,
    count: int | None = None,
    actor: User | None = None,
    by: str | None = None,
) -> dict[str, int]:
    """Assign the campaign's open answers (nobody's yet, still wanting labels), in its order,
    to `people` in turn: all of them shared evenly (counts differ by one at most), or `count`
    each. {person: answers assigned now}."""
    require_admin(actor, "assign answers")
    names = _people(people)
    if count is not None and count < 1:
        raise AssignmentError("The count per person must be 1 or more.")
    with store.write_lock, store.connection() as con, transaction(con):
        campaign = _campaign(con, name)
        open_ids = sql.open_answers(con, campaign)
        if count is not None:
            open_ids = open_ids[: count * len(names)]
        pairs = [(rid, names[n % len(names)]) for n, rid in enumerate(open_ids)]
        sql.add_assignments(con, name, list(pairs), by=by, at=utc_now())
    given = dict.fromkeys(names, 0)
    for _, person in pairs:
        given[person] += 1
    return given


def reassign(
    store: Store,
    name: str,
    from_person: str,
    to_person: str | None,
    *,
    actor: User | None = None,
    by: str | None = None,
) -> int:
    """Move `from_person`'s assigned answers that they have not labelled to `to_person`
    (None: back to everyone); how many moved."""
    require_admin(actor, "reassign answers")
    target = (to_person or "").strip() or None
    if target == from_person:
        raise AssignmentError("Pick another person to move the answers to.")
    with store.write_lock, store.connection() as con, transaction(con):
        campaign = _campaign(con, name)
        pending = sql.pending_of(con, campaign, from_person)
        sql.add_assignments(con, name, [(rid, target) for rid in pending], by=by, at=utc_now())
    return len(pending)


def people_progress(store: Store, name: str) -> list[PersonProgress]:
    """Each assigned person's answers and how many of them they labelled."""
    with store.connection() as con:
        return sql.person_progress(con, _campaign(con, name))


def assigned_to(store: Store, name: str, person: str) -> int:
    """How many answers of the campaign are assigned to `person` and not labelled by them."""
    with store.connection() as con:
        return len(sql.pending_of(con, _campaign(con, name), person))
