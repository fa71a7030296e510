"""The Annotate page's glue: which answer is open, the label form, skip, undo and withdraw.

No race: the form's widgets are keyed by a token of the answer and of the person's label it
was drawn on, and the save runs in the submit button's callback with that token and that
answer bound to it. So a save applies only to the answer it was made on; a second click on
the same form (a double click, or a click on a form left on the screen while the next one
draws) finds its token spent and does nothing; and the run that follows the save draws the
next answer at once, with no second run.

Blind by default: until the person has saved a label of the answer, the judges' ratings and
explanations and other people's labels are not on the page; after it they can be revealed.
Each label records whether it was given blind (and how its answer was chosen).
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from dashboard import ui
from dashboard.campaigns import campaigns
from dashboard.judging import Rubric
from dashboard.review import annotation, edits
from dashboard.review.annotation import AnnotationError, Provenance, QueueRequest
from dashboard.review.detail import ResponseDetail
from dashboard.store import StoreError
from dashboard.types import Rating
from dashboard.ui import callbacks, widgets

OPEN_KEY = "annotate_open"
PASSED_KEY = "annotate_passed"
UNDO_KEY = "annotate_undo"
DONE_KEY = "annotate_done"
FLASH_KEY = "annotate_saved"
ERROR_KEY = "annotate_error"
SETUP_KEY = "annotate_setup"
KEY_HELP = (
    "Keyboard: a digit picks your rating, Enter saves and opens the next answer, "
    "s skips, u undoes your last label. Typing in the comment box leaves the keys alone."
)


@dataclass(frozen=True)
class Setup:
    """What the page's controls chose."""

    request: QueueRequest
    rubric: Rubric
    campaign: str | None
    blind: bool


@dataclass(frozen=True)
class OpenItem:
    """The answer on the page; `provenance` None: opened by hand (a link, Your labels)."""

    response_id: str
    provenance: Provenance | None
    where: str


def reset_on_change(setup: Setup) -> None:
    """A new rubric, order, seed, dataset or campaign starts from the top of its queue."""
    key = (dataclasses.replace(setup.request, exclude=()), setup.campaign)
    if st.session_state.get(SETUP_KEY) not in (None, key):
        st.session_state[OPEN_KEY] = None
        st.session_state[PASSED_KEY] = []
    st.session_state[SETUP_KEY] = key


def _passed() -> list[str]:
    return st.session_state.setdefault(PASSED_KEY, [])


def open_item(setup: Setup) -> OpenItem | None:
    """The open answer, else the next one of the person's queue (or campaign)."""
    found = st.session_state.get(OPEN_KEY)
    if found is not None:
        return found
    person, passed = setup.request.annotator, tuple(_passed())
    if setup.campaign:
        taken = ui.write(campaigns.assign, setup.campaign, person, skipped=passed)
        if taken is None:
            return None
        chosen = Provenance(taken.selection, taken.inclusion_probability, setup.campaign)
        found = OpenItem(taken.response_id, chosen, f"Campaign {setup.campaign}")
    else:
        request = dataclasses.replace(setup.request, exclude=passed)
        queue = ui.cached(annotation.annotation_queue, request, offset=0, limit=1)
        if not queue.entries:
            return None
        chosen = Provenance.of_order(request.order, blind=setup.blind)
        where = f"Answer 1 of {queue.remaining} still to label"
        found = OpenItem(queue.entries[0].response_id, chosen, where)
    st.session_state[OPEN_KEY] = found
    return found


def my_label(detail: ResponseDetail, person: str, rubric: str) -> Rating | None:
    """The person's current label of the answer on the rubric (withdrawn ones too)."""
    for entry in detail.human_ratings:
        r = entry.rating
        if entry.current and r.rater == person and r.rubric == rubric:
            return r
    return None


def _token(item: OpenItem, mine: Rating | None) -> str:
    state = f"{item.response_id}\x1f{mine.rating_id if mine else ''}"
    return hashlib.md5(state.encode()).hexdigest()[:12]


def provenance_for(item: OpenItem, mine: Rating | None, setup: Setup) -> Provenance:
    """How the open answer was chosen: by the queue or the campaign; for an answer opened
    by hand, as the person's earlier label of it says, else a targeted pick."""
    if item.provenance is not None:
        return item.provenance
    if mine is not None and mine.selection:
        return Provenance(mine.selection, mine.inclusion_probability, mine.campaign)
    if setup.campaign:
        found = ui.cached(campaigns.campaign_item, setup.campaign, item.response_id)
        if found is not None:
            return Provenance(found.selection, found.inclusion_probability, setup.campaign)
    return Provenance("targeted")


def shows_ratings(setup: Setup, item: OpenItem, mine: Rating | None) -> bool:
    """Whether the judges' and others' labels are on the page: not blind, or revealed."""
    if not setup.blind:
        return True
    return mine is not None and bool(st.session_state.get(f"annotate_reveal_{item.response_id}"))


def reveal_toggle(setup: Setup, item: OpenItem, mine: Rating | None) -> None:
    if setup.blind and mine is not None:
        st.toggle(
            "Reveal the judges' ratings and other people's labels",
            key=f"annotate_reveal_{item.response_id}",
        )


def _flash(text: str, pending: bool) -> None:
    st.session_state[FLASH_KEY] = text + (widgets.PENDING_NOTE if pending else "")


@st.cache_resource(show_spinner=False)
def _claims_lock() -> threading.Lock:
    return threading.Lock()


def _claim(token: str) -> bool:
    """True for the first save of a form. A second click can start a new run while the
    first still saves (Streamlit stops the old run and starts the next one at once), so the
    check and the claim are one step, under a lock, before the write."""
    with _claims_lock():
        done: set[str] = st.session_state.setdefault(DONE_KEY, set())
        if token in done:
            return False
        done.add(token)
        return True


@callbacks.whole
def _save(
    token: str, item: OpenItem, setup: Setup, detail: ResponseDetail, provenance: Provenance
) -> None:
    if not _claim(token):
        return  # a second click on a form already saved, or being saved
    value = st.session_state.get(f"annotate_value_{token}")
    overrides = st.session_state.get(f"annotate_override_{token}")
    try:
        rating = annotation.human_rating(
            item.response_id,
            annotator=setup.request.annotator,
            rubric=setup.rubric.name,
            rubric_version=setup.rubric.version,
            value=value,
            scale=annotation.rating_scale(setup.rubric),
            comment=st.session_state.get(f"annotate_comment_{token}"),
            overrides=overrides,
            provenance=provenance,
        )
    except AnnotationError as error:
        _refused(token, error)
        return
    # The page's state moves on before the write, so the run after it draws the next answer
    # (a click meanwhile cannot stop this callback half-way: `callbacks.whole`).
    kind = "override" if overrides else "rating"
    _flash(f"Saved your {kind} ({rating.value:g}) as {widgets.as_code(rating.rater)}.", False)
    st.session_state.setdefault(UNDO_KEY, []).append(rating)
    _passed().append(item.response_id)
    st.session_state[OPEN_KEY] = None
    try:
        result = ui.write(annotation.save_rating, rating, detail=detail)
    except (AnnotationError, StoreError) as error:  # a callback: app.py's handler is not around
        st.session_state[UNDO_KEY].remove(rating)
        _passed().remove(item.response_id)
        st.session_state[OPEN_KEY] = item
        st.session_state.pop(FLASH_KEY, None)
        _refused(token, error)
        return
    if result.pending is not None:
        _flash(f"Saved your {kind} ({rating.value:g}) as {widgets.as_code(rating.rater)}.", True)


def _refused(token: str, error: AnnotationError | StoreError) -> None:
    st.session_state[DONE_KEY].discard(token)  # once fixed, the same form may be saved
    st.session_state[ERROR_KEY] = (token, str(error))


def label_form(
    item: OpenItem, setup: Setup, detail: ResponseDetail, mine: Rating | None, *, reveal: bool
) -> None:
    """The rating form of the open answer (with the override of a judge once revealed)."""
    token = _token(item, mine)
    scale = annotation.rating_scale(setup.rubric)
    provenance = dataclasses.replace(
        provenance_for(item, mine, setup), blind=not reveal and setup.blind
    )
    judged = {
        e.rating.rating_id: e
        for e in detail.judge_ratings
        if e.current and e.rating.rubric == setup.rubric.name
    }
    if mine is not None:
        shown = "withdrawn" if mine.value is None else f"{mine.value:g}"
        st.text(f"Your label: {shown}. A new save replaces it; Withdraw takes it back.")
    with st.form(f"annotate_form_{token}", clear_on_submit=False, border=True):
        st.radio(
            f"Your rating ({scale[0]:g} = worst, {scale[1]:g} = best)",
            annotation.scale_points(*scale),
            index=None,
            horizontal=True,
            format_func=lambda v: f"{v:g}",
            key=f"annotate_value_{token}",
        )
        st.text(annotation.scale_legend(setup.rubric))
        if reveal and judged:
            st.selectbox(
                "Override a judge's rating (optional)",
                list(judged),
                index=None,
                key=f"annotate_override_{token}",
                placeholder="no override",
                format_func=lambda rid: widgets.rating_label(judged[rid]),
            )
        st.text_input("Comment (required for an override)", key=f"annotate_comment_{token}")
        st.form_submit_button(
            "Save and next",
            type="primary",
            key=f"annotate_save_{token}",
            on_click=_save,
            args=(token, item, setup, detail, provenance),
        )
    error = st.session_state.get(ERROR_KEY)
    if error and error[0] == token:
        st.error(ui.md_escape(error[1]))


@callbacks.whole
def _skip(item: OpenItem, setup: Setup) -> None:
    if setup.campaign:
        ui.write(campaigns.release, setup.campaign, item.response_id, setup.request.annotator)
    _passed().append(item.response_id)
    st.session_state[OPEN_KEY] = None


@callbacks.whole
def _undo() -> None:
    stack: list[Rating] = st.session_state.get(UNDO_KEY, [])
    if not stack:
        return
    last = stack.pop()
    try:
        saved = ui.write(edits.undo, last)
    except AnnotationError as error:
        st.session_state[FLASH_KEY] = ui.md_escape(error)
        return
    restored = saved.record
    chosen = Provenance(restored.selection or "unknown", restored.inclusion_probability)
    chosen = dataclasses.replace(chosen, campaign=restored.campaign)
    st.session_state[OPEN_KEY] = OpenItem(last.response_id, chosen, "Undone: the answer again")
    shown = "withdrawn" if restored.value is None else f"{restored.value:g}"
    _flash(f"Undid your last label; this answer's label is now {shown}.", saved.pending)


@callbacks.whole
def _withdraw(mine: Rating) -> None:
    saved = ui.write(edits.withdraw, mine)
    st.session_state.setdefault(UNDO_KEY, []).append(saved.record)
    st.session_state[OPEN_KEY] = None
    _flash("Withdrew your label.", saved.pending)


def actions(item: OpenItem | None, setup: Setup, mine: Rating | None) -> None:
    """Skip, Undo last and Withdraw, in one row with where the person is."""
    skip, undo, withdraw, where = st.columns([1, 1, 1, 5])
    button: Callable[..., bool] = st.button
    with skip:
        button(
            "Skip", key="annotate_skip", disabled=item is None, on_click=_skip, args=(item, setup)
        )
    with undo:
        button(
            "Undo last",
            key="annotate_undo_button",
            disabled=not st.session_state.get(UNDO_KEY),
            on_click=_undo,
        )
    with withdraw:
        button(
            "Withdraw",
            key="annotate_withdraw",
            disabled=mine is None or mine.value is None,
            on_click=_withdraw,
            args=(mine,),
        )
    if item is not None:
        where.text(item.where)


@callbacks.whole
def open_by_hand(response_id: str, where: str) -> None:
    """Open an answer (one of the person's labels, or a link's) in place of the queue's."""
    st.session_state[OPEN_KEY] = OpenItem(response_id, None, where)


def your_labels(setup: Setup) -> None:
    """The person's labels on the rubric, newest first; one opens for a change."""
    labels = ui.cached(edits.my_labels, setup.request.annotator, setup.rubric.name)
    with st.expander(f"Your labels on this rubric ({len(labels)} shown, newest first)"):
        if not labels:
            st.caption("None yet.")
            return
        by_id = {label.response_id: label for label in labels}
        chosen = st.selectbox(
            "Open one to change or withdraw it",
            list(by_id),
            index=None,
            key="annotate_mine_pick",
            format_func=lambda rid: _describe(by_id[rid]),
        )
        st.button(
            "Open",
            key="annotate_mine_open",
            disabled=chosen is None,
            on_click=open_by_hand,
            args=(chosen, "One of your labels"),
        )


def _describe(label: edits.MyLabel) -> str:
    value = "withdrawn" if label.value is None else f"{label.value:g}"
    return f"{label.created_utc:%Y-%m-%d %H:%M} · {value} · answer {label.response_id[:10]}"
