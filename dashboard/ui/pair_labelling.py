"""The Pairwise page's vote form: a save bound to the pair it was made on, undo and withdraw.

As on Annotate (`labelling_kit`): the form's token is of the pair (its item, its two answers,
the side shown first) and of the person's current vote on it, so a vote applies only to the
pair it was made on, a second click on the same form does nothing, and the run that follows
draws the next pair at once.

A vote can be undone (`u`, or Undo last: back to the vote it replaced, else withdrawn) and the
pair is then open again, to vote anew (a new row superseding the old) or to withdraw.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import streamlit as st

from dashboard import ui
from dashboard.judging import Rubric
from dashboard.review import pair_edits, votes
from dashboard.review.votes import PairRequest, PairView, VoteError
from dashboard.store import StoreError
from dashboard.types import Preference
from dashboard.ui import callbacks, widgets
from dashboard.ui.labelling_kit import LabellingKit

KIT = LabellingKit("pairwise", "vote")
OPEN_KEY = KIT.open_key
FLASH_KEY = KIT.flash_key
CHOICES = {"left": "A (left)", "right": "B (right)", "tie": "Tie"}
POSITION_KEY, LAST_KEY = "pairwise_position", "pairwise_last"


@dataclass(frozen=True)
class OpenPair:
    """The pair on the page and where it came from (the queue, or an undo)."""

    view: PairView
    where: str
    from_queue: bool


def open_pair(view: PairView, where: str) -> None:
    """Show this pair in place of the queue's (after an undo)."""
    st.session_state[OPEN_KEY] = OpenPair(view, where, from_queue=False)


def opened() -> OpenPair | None:
    found = st.session_state.get(OPEN_KEY)
    return found if isinstance(found, OpenPair) else None


def reset_on_change(request: PairRequest) -> None:
    """Other systems, another dataset or seed start from the top of the queue. A pair opened
    by hand (a link, Your votes) stays open when only the name changes: typing one's name
    after following a link must not swap the pair for the queue's next one."""
    before = st.session_state.get(LAST_KEY)
    st.session_state[LAST_KEY] = request
    if before is None or before == request:
        return
    st.session_state[POSITION_KEY] = 0
    anyone = dataclasses.replace(request, annotator="")
    if opened() is None or dataclasses.replace(before, annotator="") != anyone:
        st.session_state[OPEN_KEY] = None


def my_vote(view: PairView, request: PairRequest, rubric: Rubric) -> Preference | None:
    return ui.cached(
        pair_edits.current_vote,
        request.annotator,
        rubric.name,
        view.item.item_id,
        view.response_a.response_id,
        view.response_b.response_id,
    )


def token_of(view: PairView, mine: Preference | None) -> str:
    """The form's token: the pair and the person's current vote on it."""
    return KIT.token(
        view.item.item_id,
        view.response_a.response_id,
        view.response_b.response_id,
        view.shown_first,
        mine.preference_id if mine else "",
    )


@callbacks.whole
def save(
    token: str, view: PairView, request: PairRequest, rubric: Rubric, mine: Preference | None
) -> None:
    """The Save button's callback: the vote on this pair, once per form."""
    if not KIT.claim(token):
        return  # a second click on a form already saved, or being saved
    choice = st.session_state.get(f"pairwise_choice_{token}")
    if choice is None:
        KIT.refuse(token, "Pick A, B or Tie before saving.")
        return
    try:
        preference = votes.human_preference(
            view,
            choice,
            annotator=request.annotator,
            rubric=rubric.name,
            rubric_version=rubric.version,
            comment=st.session_state.get(f"pairwise_comment_{token}"),
            supersedes=mine.preference_id if mine else None,
        )
    except VoteError as error:
        KIT.refuse(token, ui.md_escape(error))
        return
    # The page moves on before the write (see `labelling._save`): a click that starts a new
    # run can stop this one at the write's own Streamlit call.
    kept = st.session_state.get(OPEN_KEY)
    KIT.saves().append(preference)
    st.session_state[OPEN_KEY] = None
    text = f"Saved your vote ({CHOICES[choice]}) as {widgets.as_code(request.annotator)}."
    KIT.flash(text, False)
    try:
        saved = ui.write(votes.save_vote, preference)
    except (VoteError, StoreError) as error:  # a callback: app.py's handler is not around
        KIT.saves().remove(preference)
        st.session_state[OPEN_KEY] = kept
        st.session_state.pop(FLASH_KEY, None)
        KIT.refuse(token, ui.md_escape(error))
        return
    if saved.pending:
        KIT.flash(text, True)


def form(view: PairView, request: PairRequest, rubric: Rubric, mine: Preference | None) -> None:
    """The vote form of the pair on the page, keyed by its token."""
    token = token_of(view, mine)
    # Reopening one's own vote shows it picked: Enter keeps it, a, b or t changes it.
    current = None if mine is None or mine.verdict is None else _screen_key(mine, view)
    if mine is not None:
        shown = "withdrawn" if current is None else CHOICES[current]
        st.text(f"Your vote: {shown}. A new save replaces it; Withdraw takes it back.")
    with st.form(f"pairwise_form_{token}", clear_on_submit=False):
        st.radio(
            "Which answer is better?",
            list(CHOICES),
            index=None if current is None else list(CHOICES).index(current),
            horizontal=True,
            format_func=CHOICES.get,
            key=f"pairwise_choice_{token}",
        )
        st.text_input("Comment (optional)", key=f"pairwise_comment_{token}")
        st.form_submit_button(
            "Save vote and next",
            type="primary",
            key=f"pairwise_save_{token}",
            on_click=save,
            args=(token, view, request, rubric, mine),
        )
    KIT.show_refusal(token)


def _screen_key(vote: Preference, view: PairView) -> str:
    """A stored verdict (canonical frame) as the side on the screen now (`CHOICES`' key)."""
    if vote.verdict == "tie":
        return "tie"
    left_is_a = view.shown_first == "A"
    return "left" if (vote.verdict == "A") == left_is_a else "right"


def _screen_choice(vote: Preference, view: PairView) -> str:
    return CHOICES[_screen_key(vote, view)]


def _stored_undo(request: PairRequest, rubric: Rubric) -> Preference | None:
    """The person's newest vote in the store that Undo last can take back (none this
    session's undos wrote)."""
    skip = tuple(sorted(KIT.undone()))
    return ui.call(pair_edits.last_vote, request.annotator, rubric.name, skip=skip)


@callbacks.whole
def _undo(request: PairRequest, rubric: Rubric) -> None:
    stored = partial(_stored_undo, request, rubric)
    saved = KIT.undo_last(pair_edits.undo, refused=VoteError, stored=stored)
    if saved is None:
        return
    record: Preference = saved.record
    KIT.undone().add(record.preference_id)
    view = ui.call(pair_edits.pair_view, record.response_a, record.response_b, record.shown_first)
    if view is not None:
        open_pair(view, "Undone: the pair again")
    restored = saved.record.verdict
    shown = "withdrawn" if restored is None or view is None else _screen_choice(saved.record, view)
    KIT.flash(f"Undid your last vote; this pair's vote is now {shown}.", saved.pending)


def actions(
    current: OpenPair | None,
    mine: Preference | None,
    *,
    on: tuple[PairRequest, Rubric],
    on_skip: Callable[[], None],
    can_skip: bool,
) -> None:
    """Skip, Undo last and Withdraw, in one row with where the person is. Undo last reaches
    back to the store when this session saved nothing (a vote saved in an earlier one)."""
    request, rubric = on
    stored = not st.session_state.get(KIT.undo_key) and bool(request.annotator)
    if stored:
        skip = tuple(sorted(KIT.undone()))
        found = ui.cached(pair_edits.last_vote, request.annotator, rubric.name, skip=skip)
        stored = found is not None
    KIT.actions(
        current.where if current is not None else None,
        skip=callbacks.whole(on_skip) if can_skip else None,
        withdraw=(
            partial(KIT.withdraw, pair_edits.withdraw, mine)
            if mine is not None and mine.verdict is not None
            else None
        ),
        undo=partial(_undo, request, rubric),
        stored_undo=stored,
    )


@callbacks.whole
def _open_vote(vote: pair_edits.MyVote | None) -> None:
    if vote is None:
        return
    view = ui.call(pair_edits.pair_view, vote.response_a, vote.response_b, vote.shown_first)
    if view is not None:
        open_pair(view, "One of your votes")


def your_votes(request: PairRequest, rubric: Rubric) -> None:
    """The person's votes on the rubric, newest first; one opens to change or withdraw it."""
    found = ui.cached(pair_edits.my_votes, request.annotator, rubric.name)
    by_id = {vote.preference_id: vote for vote in found}
    KIT.your_own(by_id, describe=_describe, on_open=_open_vote)


def _describe(vote: pair_edits.MyVote) -> str:
    verdict = {None: "withdrawn", "tie": "tie"}.get(vote.verdict, f"{vote.verdict} better")
    return f"{vote.created_utc:%Y-%m-%d %H:%M} · {verdict} · item {vote.item_id[:10]}"
