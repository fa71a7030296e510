"""A person's own pairwise votes: the list of them, the current one on a pair, withdrawing it,
undoing the last.

As with ratings (`edits`), every change is a new row that supersedes the person's current
vote on the pair (append-only; the history stays), and the metrics read only the current rows
(`current_preferences`). Changing a vote is voting on the pair again. Withdrawing writes a row
with no verdict (`annotation.WITHDRAWN`), which counts in no win rate. Undoing a vote writes a
row equal to the vote it replaced (or withdraws a first vote), so an undo is itself on record.
Every successor keeps the side its pair was shown on (`shown_first`), so it stays in the same
stream as the vote it replaces.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from dashboard.ids import new_id, utc_now
from dashboard.review import detail_sql, votes_sql
from dashboard.review.annotation import WITHDRAWN, Saved
from dashboard.review.detail import item_and_response
from dashboard.review.votes import PairView, VoteError
from dashboard.review.votes_sql import MyVote
from dashboard.store import Store
from dashboard.types import Preference

__all__ = [
    "MyVote",
    "current_vote",
    "last_vote",
    "linked_pair",
    "my_votes",
    "pair_view",
    "undo",
    "withdraw",
]


def current_vote(
    store: Store, annotator: str, rubric: str, item_id: str, response_a: str, response_b: str
) -> Preference | None:
    """The person's current vote on the pair (a withdrawn one too); None: none yet."""
    if not annotator:
        return None
    with store.connection() as con:
        return votes_sql.current_vote(con, annotator, rubric, item_id, response_a, response_b)


def my_votes(store: Store, annotator: str, rubric: str, *, limit: int = 50) -> list[MyVote]:
    """The person's current votes on the rubric, newest first."""
    if not annotator:
        return []
    with store.connection() as con:
        return votes_sql.my_votes(con, annotator, rubric, limit=limit)


def pair_view(store: Store, response_a: str, response_b: str, shown_first: str) -> PairView | None:
    """A pair a vote was given on, shown on the sides it was shown then; None once its
    answers are gone (the dataset was deleted)."""
    with store.connection() as con:
        rows = detail_sql.response_rows(con, [response_a, response_b])
    responses = {row.response_id: row for row in rows}
    if response_a not in responses or response_b not in responses:
        return None
    item, first = item_and_response(responses[response_a])
    _, second = item_and_response(responses[response_b])
    return PairView(item, first, second, shown_first)


def linked_pair(store: Store, left: str, right: str, *, system_a: str) -> PairView | None:
    """The pair a link names by its answers as shown (`left`, `right`), oriented as the queue
    orients it (as earlier verdicts on it, else `system_a`'s answer as A); None when either
    answer is gone or they answer different questions."""
    with store.connection() as con:
        rows = detail_sql.response_rows(con, [left, right])
        straight = votes_sql.voted_as(con, left, right)
        flipped = not straight and votes_sql.voted_as(con, right, left)
    responses = {row.response_id: row for row in rows}
    if left not in responses or right not in responses or left == right:
        return None
    first, second = responses[left], responses[right]
    if (first.item_id, first.dataset) != (second.item_id, second.dataset):
        return None
    if flipped or (not straight and second.system == system_a != first.system):
        return pair_view(store, right, left, "B")
    return pair_view(store, left, right, "A")


def last_vote(
    store: Store, annotator: str, rubric: str, *, skip: Collection[str] = ()
) -> Preference | None:
    """The person's newest current vote on the rubric saved on a page, leaving out `skip`
    (the rows undos wrote): what Undo last takes back when this session saved nothing."""
    for vote in my_votes(store, annotator, rubric, limit=len(skip) + 1):
        if vote.preference_id in skip:
            continue
        with store.connection() as con:
            (found,) = votes_sql.preference_rows(con, [vote.preference_id])
        return found if found.source in ("page", None) else None
    return None


def _successor(vote: Preference, **changes: object) -> Preference:
    fields = {**dataclasses.asdict(vote), "source": "page", **changes}
    return Preference(**{**fields, "preference_id": new_id(), "created_utc": utc_now()})


def withdraw(store: Store, vote: Preference) -> Saved[Preference]:
    """Take a person's vote back: a row with no verdict superseding it."""
    if vote.rater_kind != "human":
        raise VoteError("Only a person's own vote can be withdrawn.")
    row = _successor(
        vote, verdict=None, unscored_reason=WITHDRAWN, comment=None, supersedes=vote.preference_id
    )
    result = store.add_preferences([row])
    return Saved(row, pending=result.pending is not None)


def undo(store: Store, vote: Preference) -> Saved[Preference]:
    """Undo the change `vote` made: back to the vote it superseded, else withdrawn. Refused
    once the vote is no longer the person's current one on the pair (changed since)."""
    with store.connection() as con:
        now = votes_sql.current_vote(
            con, vote.rater, vote.rubric, vote.item_id, vote.response_a, vote.response_b
        )
        before = votes_sql.preference_rows(con, [vote.supersedes]) if vote.supersedes else []
    if now is None or now.preference_id != vote.preference_id:
        raise VoteError("That vote was changed since (in another tab?); nothing was undone.")
    if not before:
        return withdraw(store, vote)
    row = _successor(before[0], supersedes=vote.preference_id)
    result = store.add_preferences([row])
    return Saved(row, pending=result.pending is not None)
