"""The Pairwise page's vote form: a save bound to the pair it was made on, undo and withdraw.

As on Annotate (`labelling`): the form's widgets are keyed by a token of the pair (its item,
its two answers, the side shown first) and of the person's current vote on it, and the save
runs in the submit button's callback with that token and that pair bound to it. So a vote
applies only to the pair it was made on; a second click on the same form (a double click, or
a click on a form left on the screen while the next one draws) finds its token spent and does
nothing; and the run that follows draws the next pair at once.

A vote can be undone (`u`, or Undo last: back to the vote it replaced, else withdrawn) and the
pair is then open again, to vote anew (a new row superseding the old) or to withdraw.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from dashboard import ui
from dashboard.judging import Rubric
from dashboard.review import pair_edits, votes
from dashboard.review.votes import PairRequest, PairView, VoteError
from dashboard.store import StoreError
from dashboard.types import Preference
from dashboard.ui import callbacks, widgets

OPEN_KEY = "pairwise_open"
UNDO_KEY = "pairwise_undo"
DONE_KEY = "pairwise_done"
FLASH_KEY = "pairwise_saved"
ERROR_KEY = "pairwise_error"
CHOICES = {"left": "A (left)", "right": "B (right)", "tie": "Tie"}


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
    state = "\x1f".join(
        (
            view.item.item_id,
            view.response_a.response_id,
            view.response_b.response_id,
            view.shown_first,
            mine.preference_id if mine else "",
        )
    )
    return hashlib.md5(state.encode()).hexdigest()[:12]


@st.cache_resource(show_spinner=False)
def _claims_lock() -> threading.Lock:
    return threading.Lock()


def claim(token: str) -> bool:
    """True for the first save of a form; the check and the claim are one step, under a
    lock, before the write (a second click can start a new run while the first still saves)."""
    with _claims_lock():
        done: set[str] = st.session_state.setdefault(DONE_KEY, set())
        if token in done:
            return False
        done.add(token)
        return True


def _refused(token: str, markdown: str) -> None:
    """The form's save refused; `markdown` (escaped where it quotes anything) says why."""
    st.session_state.setdefault(DONE_KEY, set()).discard(token)  # once fixed, it may be saved
    st.session_state[ERROR_KEY] = (token, markdown)


def _flash(text: str, pending: bool) -> None:
    st.session_state[FLASH_KEY] = text + (widgets.PENDING_NOTE if pending else "")


@callbacks.whole
def save(
    token: str, view: PairView, request: PairRequest, rubric: Rubric, mine: Preference | None
) -> None:
    """The Save button's callback: the vote on this pair, once per form."""
    if not claim(token):
        return  # a second click on a form already saved, or being saved
    choice = st.session_state.get(f"pairwise_choice_{token}")
    if choice is None:
        _refused(token, "Pick A, B or Tie before saving.")
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
        _refused(token, ui.md_escape(error))
        return
    # The page moves on before the write (see `labelling._save`): a click that starts a new
    # run can stop this one at the write's own Streamlit call.
    kept = st.session_state.get(OPEN_KEY)
    st.session_state.setdefault(UNDO_KEY, []).append(preference)
    st.session_state[OPEN_KEY] = None
    text = f"Saved your vote ({CHOICES[choice]}) as {widgets.as_code(request.annotator)}."
    _flash(text, False)
    try:
        saved = ui.write(votes.save_vote, preference)
    except (VoteError, StoreError) as error:  # a callback: app.py's handler is not around
        st.session_state[UNDO_KEY].remove(preference)
        st.session_state[OPEN_KEY] = kept
        st.session_state.pop(FLASH_KEY, None)
        _refused(token, ui.md_escape(error))
        return
    if saved.pending:
        _flash(text, True)


def form(view: PairView, request: PairRequest, rubric: Rubric, mine: Preference | None) -> None:
    """The vote form of the pair on the page, keyed by its token."""
    token = token_of(view, mine)
    if mine is not None:
        shown = "withdrawn" if mine.verdict is None else _screen_choice(mine, view)
        st.text(f"Your vote: {shown}. A new save replaces it; Withdraw takes it back.")
    with st.form(f"pairwise_form_{token}", clear_on_submit=False):
        st.radio(
            "Which answer is better?",
            list(CHOICES),
            index=None,
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
    error = st.session_state.get(ERROR_KEY)
    if error and error[0] == token:
        st.error(error[1])


def _screen_choice(vote: Preference, view: PairView) -> str:
    """A stored verdict (canonical frame) as the sides on the screen now."""
    if vote.verdict == "tie":
        return CHOICES["tie"]
    left_is_a = view.shown_first == "A"
    return CHOICES["left"] if (vote.verdict == "A") == left_is_a else CHOICES["right"]


@callbacks.whole
def _undo() -> None:
    stack: list[Preference] = st.session_state.get(UNDO_KEY, [])
    if not stack:
        return
    last = stack.pop()
    try:
        saved = ui.write(pair_edits.undo, last)
    except VoteError as error:
        st.session_state[FLASH_KEY] = ui.md_escape(error)
        return
    record = saved.record
    view = ui.call(pair_edits.pair_view, record.response_a, record.response_b, record.shown_first)
    if view is not None:
        open_pair(view, "Undone: the pair again")
    restored = saved.record.verdict
    shown = "withdrawn" if restored is None or view is None else _screen_choice(saved.record, view)
    _flash(f"Undid your last vote; this pair's vote is now {shown}.", saved.pending)


@callbacks.whole
def _withdraw(mine: Preference) -> None:
    saved = ui.write(pair_edits.withdraw, mine)
    st.session_state.setdefault(UNDO_KEY, []).append(saved.record)
    st.session_state[OPEN_KEY] = None
    _flash("Withdrew your vote.", saved.pending)


def actions(
    current: OpenPair | None,
    mine: Preference | None,
    *,
    on_skip: Callable[[], None],
    can_skip: bool,
) -> None:
    """Skip, Undo last and Withdraw, in one row with where the person is."""
    skip, undo, withdraw, where = st.columns([1, 1, 1, 5])
    button: Callable[..., bool] = st.button
    with skip:
        button(
            "Skip", key="pairwise_skip", disabled=not can_skip, on_click=callbacks.whole(on_skip)
        )
    with undo:
        button(
            "Undo last",
            key="pairwise_undo_button",
            disabled=not st.session_state.get(UNDO_KEY),
            on_click=_undo,
        )
    with withdraw:
        button(
            "Withdraw",
            key="pairwise_withdraw",
            disabled=mine is None or mine.verdict is None,
            on_click=_withdraw,
            args=(mine,),
        )
    if current is not None:
        where.text(current.where)


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
    with st.expander(f"Your votes on this rubric ({len(found)} shown, newest first)"):
        if not found:
            st.caption("None yet.")
            return
        by_id = {vote.preference_id: vote for vote in found}
        chosen = st.selectbox(
            "Open one to change or withdraw it",
            list(by_id),
            index=None,
            key="pairwise_mine_pick",
            format_func=lambda pid: _describe(by_id[pid]),
        )
        st.button(
            "Open",
            key="pairwise_mine_open",
            disabled=chosen is None,
            on_click=_open_vote,
            args=(by_id.get(chosen) if chosen else None,),
        )


def _describe(vote: pair_edits.MyVote) -> str:
    verdict = {None: "withdrawn", "tie": "tie"}.get(vote.verdict, f"{vote.verdict} better")
    return f"{vote.created_utc:%Y-%m-%d %H:%M} · {verdict} · item {vote.item_id[:10]}"
