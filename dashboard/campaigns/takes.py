"""A campaign's takes and the checks of its saves on a PostgreSQL store: PostgreSQL's own SQL
(`takes_sql.py`) through psycopg (`claims.session`), so that they neither run through
DuckDB's postgres extension (which copied the campaign's ratings, holds, items and
assignments out of PostgreSQL for each one) nor queue behind one another, as they did under
one advisory lock per campaign. A file store keeps `campaigns_sql`'s DuckDB SQL under its
write lock.

Why no answer goes beyond `overlap`: every write that adds to an answer's count (a take's
hold, a save's label) is made while its transaction holds a row lock on the answer's rows in
`campaign_items` (`FOR UPDATE`), and is decided by a statement that began after the lock was
granted (a skip's end of hold only lowers the count, and needs none). Under READ COMMITTED
each statement reads a snapshot taken when it starts, so that statement sees every hold and
label committed by whoever held the rows before, and whoever holds them next sees this
one's. The writers of one answer take turns; those of different answers never meet.

- A take (`take`), in one short transaction per try: (1) the person's next answer as
  `_NEXT` chooses it, without a lock: an answer they hold already is theirs again, and
  nothing is written (as before). (2) Its rows locked without waiting (`FOR UPDATE SKIP
  LOCKED`); if another transaction holds them, the same choice `FOR UPDATE OF i SKIP
  LOCKED`: the first answer in that order whose rows nobody else holds, so that takers pass
  over one another instead of queueing; if each answer left is locked (the last ones, being
  saved), it waits for the first. (3) With the rows locked, a new statement checks the answer
  again (`NEXT_OF`). This is needed: the statement that chose the answer read the holds from
  its own snapshot, which may predate a hold committed by the taker who had just released the
  row, and PostgreSQL re-checks (EvalPlanQual) only the locked row itself, not counts read
  from other tables. (4) Still open to them: the hold is inserted and committed, a few
  milliseconds after the lock was taken. Otherwise the next try passes over the answer.
- A save (`saving`): the label is written by DuckDB through the extension, in its own
  transaction on another PostgreSQL session, so the lock that guards the check must outlast
  that transaction's commit. `saving` opens a psycopg transaction around the whole write.
  The check (`Turn.slot`, called by `label_refusal` in the write's transaction, before its
  inserts) locks the answer's rows, waiting for a take or save of that answer in progress,
  and reads the slot with a new statement. The lock ends with the block, after DuckDB
  committed the label and the end of the person's hold. Meanwhile, a take passes over the
  answer (or, with nothing else left, waits); a second save of it waits, then sees the label.
- The save locks in its check, not before the write: the check runs under the process's
  `write_lock` like every writer of this process, so a thread that removes the answer from
  the campaign (`rules_sql.drop_item`: its DELETE waits for the row) while it holds
  `write_lock` cannot meet a save that holds the row and waits for `write_lock`. And as the
  check comes before the write's inserts, the write holds no lock of PostgreSQL's while it
  waits for the row.

Kept over an advisory lock around these statements: a save holds its lock until DuckDB's
write commits (tens of milliseconds), and under one lock per campaign every take and save of
the campaign would wait for it. With row locks, only the saves of one answer wait for each
other.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from dashboard.campaigns import takes_sql as sql
from dashboard.campaigns.campaigns_sql import Assignment, Campaign, LabelSlot, next_params
from dashboard.ids import utc_now
from dashboard.store import Store
from dashboard.store.claims import Session, session


def find_campaign(store: Store, name: str) -> Campaign | None:
    with session(store.url, store.location) as found:
        return sql.get_campaign(found, name)


def take(
    store: Store,
    campaign: Campaign,
    person: str,
    *,
    now: datetime,
    skipped: Sequence[str] = (),
    only_mine: bool = False,
) -> Assignment | None:
    """The answer `person` labels next (`campaigns.assign`), now held for them; None:
    nothing left for them."""
    passed: list[str] = []  # found full once their rows were ours: not offered again
    while True:
        with session(store.url, store.location) as turn:
            params = next_params(
                campaign, person, now=now, skipped=[*skipped, *passed], only_mine=only_mine
            )
            first = sql.next_answer(turn, sql.NEXT, params)
            if first is None or first.held_by_me:
                return first
            found, locked = _lock_one(turn, campaign.name, first, params)
            mine = {**params, "response": found.response_id}
            checked = sql.next_answer(turn, sql.NEXT_OF, mine) if locked else None
            if checked is not None:
                if not checked.held_by_me:
                    until = now + timedelta(minutes=campaign.hold_minutes)
                    sql.add_hold(
                        turn, campaign.name, found.response_id, person, at=now, expires=until
                    )
                return checked
            passed.append(found.response_id)


def _lock_one(
    turn: Session, name: str, first: Assignment, params: dict[str, Any]
) -> tuple[Assignment, bool]:
    """The answer to take and whether its rows are now this transaction's: `first` if
    nobody holds it, else the first answer in the person's order whose row nobody holds (not
    all its rows: it is listed twice, and another holds the other row), else `first` once
    whoever holds it is done."""
    if sql.try_lock(turn, name, first.response_id):
        return first, True
    found = sql.next_answer(turn, sql.NEXT_UNLOCKED, params)
    if found is None:  # each answer left is being taken or saved: wait for the first
        sql.lock_answer(turn, name, first.response_id)
        return first, True
    return found, sql.try_lock(turn, name, found.response_id)


class Turn:
    """A save's turn on one answer of a campaign (`saving`): `slot` locks the answer's rows,
    until the block of `saving` ends."""

    def __init__(self, held: Session, name: str, response_id: str) -> None:
        self._session, self.name, self.response_id = held, name, response_id
        self._locked = False

    def slot(self, person: str) -> tuple[Campaign | None, LabelSlot | None]:
        """The campaign (None: no campaign of that name) and where `person` stands on the
        answer now, read once the answer's rows are this turn's (and its hold compared with
        the time after any wait for them)."""
        if not self._locked:
            sql.lock_answer(self._session, self.name, self.response_id)
            self._locked = True
        now = utc_now()
        campaign = sql.get_campaign(self._session, self.name)
        if campaign is None:
            return None, None
        return campaign, sql.label_slot(self._session, campaign, self.response_id, person, now=now)


@contextmanager
def saving(store: Store, name: str, response_id: str) -> Iterator[Turn]:
    """A save of a label of `response_id` in campaign `name`: its check (`Turn.slot`) holds
    the answer's rows from then until the block ends, after the label's write committed."""
    with session(store.url, store.location) as held:
        yield Turn(held, name, response_id)
