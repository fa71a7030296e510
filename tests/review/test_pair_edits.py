"""A person's pairwise votes on the sample: a change supersedes, an undo goes back to the vote
it replaced (or withdraws a first vote), an undo of a vote changed since is refused, and only
the current vote is the person's vote on the pair."""

from __future__ import annotations

import dataclasses

import pytest

from dashboard.review import pair_edits, votes
from dashboard.review.annotation import WITHDRAWN
from dashboard.review.votes import PairRequest, VoteError

RUBRIC = "pairwise"


def _vote(store, pair, choice, supersedes=None):
    made = votes.human_preference(
        pair, choice, annotator="kim", rubric=RUBRIC, rubric_version="1", supersedes=supersedes
    )
    return votes.save_vote(store, made).record


def _current(store, pair):
    ids = (pair.item.item_id, pair.response_a.response_id, pair.response_b.response_id)
    return pair_edits.current_vote(store, "kim", RUBRIC, *ids)


def test_change_undo_and_a_refused_undo(sample_store):
    request = PairRequest("eo-rag-large", "eo-rag-small", "kim", "eo-rag")
    pair = votes.next_pair(sample_store, request).pair
    first = _vote(sample_store, pair, "left")
    second = _vote(sample_store, pair, "tie", supersedes=first.preference_id)
    assert _current(sample_store, pair).preference_id == second.preference_id
    # the pair left kim's queue with the first vote and stays out
    assert votes.next_pair(sample_store, request).pair.item.item_id != pair.item.item_id
    with pytest.raises(VoteError, match="changed since"):
        pair_edits.undo(sample_store, first)  # no longer the current vote
    back = pair_edits.undo(sample_store, second).record
    assert (back.verdict, back.supersedes) == (first.verdict, second.preference_id)
    assert _current(sample_store, pair).verdict == first.verdict
    gone = pair_edits.undo(sample_store, back).record  # `back` superseded `second`: tie again
    assert gone.verdict == "tie"
    withdrawn = pair_edits.withdraw(sample_store, gone).record
    assert (withdrawn.verdict, withdrawn.unscored_reason) == (None, WITHDRAWN)
    assert withdrawn.shown_first == pair.shown_first
    mine = pair_edits.my_votes(sample_store, "kim", RUBRIC)
    assert [(v.preference_id, v.verdict) for v in mine] == [(withdrawn.preference_id, None)]
    view = pair_edits.pair_view(
        sample_store, pair.response_a.response_id, pair.response_b.response_id, pair.shown_first
    )
    assert view == pair


def test_only_a_persons_own_vote_can_be_withdrawn(sample_store):
    request = PairRequest("eo-rag-large", "eo-rag-small", "kim", "eo-rag")
    pair = votes.next_pair(sample_store, request).pair
    judge = dataclasses.replace(_vote(sample_store, pair, "left"), rater_kind="llm")
    with pytest.raises(VoteError, match="own vote"):
        pair_edits.withdraw(sample_store, judge)
