"""Pairwise votes by people: which pair comes next, which side each answer is shown on, and
the vote as a `Preference`.

A pair is two responses to the same item from two systems. Its canonical orientation (which
response is `response_a`) follows earlier verdicts on the same pair, so a person's vote and a
judge's verdict land on the same key for calibration. The side each answer is shown on is
random but fixed by a seed, so a rerun of the page does not swap the answers under the
person's eyes; it is recorded in `shown_first`. The vote is given on the screen's sides and
stored in the canonical frame.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from dashboard.ids import new_id, utc_now
from dashboard.metrics.overview import Pairwise, pairwise_standings
from dashboard.metrics.selection import Selection
from dashboard.review import detail_sql, votes_sql
from dashboard.review.annotation import Saved
from dashboard.review.detail import item_and_response
from dashboard.review.paging import paged
from dashboard.review.requests import PairRequest as PairRequest
from dashboard.store import Store
from dashboard.types import Item, Preference, Response

# What the person picks, by screen side: the left answer, the right one, or a tie.
SCREEN_CHOICES: tuple[str, ...] = ("left", "right", "tie")


class VoteError(ValueError):
    """A vote that cannot be saved; the message tells the person what to fix."""


@dataclass(frozen=True)
class PairView:
    """One pair as the page shows it: `left` is the response shown first."""

    item: Item
    response_a: Response
    response_b: Response
    shown_first: str  # "A" or "B": which canonical response is on the left

    @property
    def left(self) -> Response:
        return self.response_a if self.shown_first == "A" else self.response_b

    @property
    def right(self) -> Response:
        return self.response_b if self.shown_first == "A" else self.response_a


@dataclass(frozen=True)
class PairQueue:
    pair: PairView | None
    remaining: int
    offset: int


def shown_first(seed: int, item_id: str, response_a: str, response_b: str) -> str:
    """ "A" or "B", each with probability 1/2 over pairs, and the same for the same seed."""
    digest = hashlib.md5(f"{seed}\x1f{item_id}\x1f{response_a}\x1f{response_b}".encode())
    return "A" if digest.digest()[0] % 2 == 0 else "B"


def next_pair(store: Store, request: PairRequest, *, offset: int = 0) -> PairQueue:
    """The pair at `offset` among those the annotator has not voted on yet (past the end:
    the last one)."""
    if request.system_a == request.system_b:
        raise VoteError("Pick two different systems to compare.")
    with store.connection() as con:
        found = paged(
            lambda at, size: votes_sql.pair_rows(con, request, limit=size, offset=at),
            lambda: votes_sql.count_pairs(con, request),
            offset=offset,
            limit=1,
        )
        if not found.rows:
            return PairQueue(None, found.total, found.offset)
        (pair,) = found.rows
        rows = detail_sql.response_rows(con, [pair.response_a, pair.response_b])
    responses = {row.response_id: row for row in rows}
    item, response_a = item_and_response(responses[pair.response_a])
    _, response_b = item_and_response(responses[pair.response_b])
    side = shown_first(request.seed, item.item_id, response_a.response_id, response_b.response_id)
    return PairQueue(PairView(item, response_a, response_b, side), found.total, found.offset)


def canonical_verdict(choice: str, shown: str) -> str:
    """The screen choice ("left", "right", "tie") as a verdict on (response_a, response_b)."""
    if choice not in SCREEN_CHOICES:
        raise VoteError(f"A vote is one of {', '.join(SCREEN_CHOICES)}, not {choice!r}.")
    if choice == "tie":
        return "tie"
    left_is_a = shown == "A"
    return "A" if (choice == "left") == left_is_a else "B"


def human_preference(
    pair: PairView,
    choice: str,
    *,
    annotator: str,
    rubric: str,
    rubric_version: str,
    comment: str | None = None,
    supersedes: str | None = None,
) -> Preference:
    """A person's vote on the pair; `supersedes`: their current vote on it, which it replaces."""
    name = (annotator or "").strip()
    if not name:
        raise VoteError(
            "Type your name in the sidebar's Annotator box first: every vote is "
            "stored with the name of the person who gave it."
        )
    return Preference(
        preference_id=new_id(),
        item_id=pair.item.item_id,
        response_a=pair.response_a.response_id,
        response_b=pair.response_b.response_id,
        rater_kind="human",
        rater=name,
        rubric=rubric,
        rubric_version=rubric_version,
        verdict=canonical_verdict(choice, pair.shown_first),
        shown_first=pair.shown_first,
        created_utc=utc_now(),
        comment=(comment or "").strip() or None,
        supersedes=supersedes,
        # The pairs come in a seeded random order (`votes_sql`), and no judge's verdict or
        # other person's vote is on the page before the vote.
        selection="random",
        blind=True,
        source="page",
    )


def vote(
    store: Store,
    pair: PairView,
    choice: str,
    *,
    annotator: str,
    rubric: str,
    rubric_version: str,
    comment: str | None = None,
) -> Saved[Preference]:
    """Check and store a person's vote on one pair."""
    preference = human_preference(
        pair,
        choice,
        annotator=annotator,
        rubric=rubric,
        rubric_version=rubric_version,
        comment=comment,
    )
    return save_vote(store, preference)


def save_vote(store: Store, preference: Preference) -> Saved[Preference]:
    """Store a vote made by `human_preference`."""
    result = store.add_preferences([preference])
    return Saved(preference, pending=result.pending is not None)


def standings(
    store: Store,
    *,
    dataset: str | None = None,
    rubric: str | None = None,
    pool_raters: bool = False,
) -> Pairwise:
    """The head-to-head win rates and Bradley–Terry ratings of the dataset's pairwise
    verdicts (of `rubric` alone, or of every rubric), per rater kind and per judge, and
    pooled over people and judges when `pool_raters` (the Pairwise page's standings)."""
    return pairwise_standings(store, Selection(dataset, rubric), pool_raters=pool_raters)
