"""The Annotate page's glue: which answer is open, the label form, skip, undo and withdraw.

No race (`labelling_kit`): the form's token is of the answer and of the person's label it was
drawn on, so a save applies only to the answer it was made on, a second click on the same form
does nothing, and the run that follows the save draws the next answer at once.

Blind by default: until the person has saved a label of the answer, the judges' ratings and
explanations and other people's labels are not on the page; after it they can be revealed.
Each label records whether it was given blind (and how its answer was chosen).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial

import streamlit as st

from dashboard import ui
from dashboard.campaigns import assignment, campaigns
from dashboard.judging import Rubric
from dashboard.review import annotation, edits, questions
from dashboard.review.annotation import AnnotationError, Provenance, QueueRequest
from dashboard.review.detail import ResponseDetail
from dashboard.store import Store, StoreError
from dashboard.types import Rating
from dashboard.ui import callbacks, instructions, questions as questions_ui, widgets
from dashboard.ui.labelling_kit import LabellingKit

KIT = LabellingKit("annotate", "label")
OPEN_KEY = KIT.open_key
PASSED_KEY = "annotate_passed"
FLASH_KEY = KIT.flash_key
REFUSED_KEY = "annotate_refused"  # a campaign refused the save: shown as a warning
SETUP_KEY = "annotate_setup"
KEY_HELP = (
    "Keyboard: a digit picks your rating, Enter saves and opens the next answer, "
    "s skips, u undoes your last label. Typing in the comment box leaves the keys alone. "
    "A campaign of several questions: digits answer the outlined question (a tag's number "
    "ticks it), Tab moves to the next one, Enter saves them all."
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
    """A new rubric, order, seed, dataset or campaign starts from the top of its queue. An
    answer opened by hand (a link) stays open when only the name changes: typing one's name
    after following a link must not silently swap the answer for the queue's next one."""
    key = (dataclasses.replace(setup.request, exclude=()), setup.campaign)
    before = st.session_state.get(SETUP_KEY)
    if before not in (None, key):
        opened = st.session_state.get(OPEN_KEY)
        by_hand = opened is not None and opened.provenance is None
        if not (by_hand and _anyone(before) == _anyone(key)):
            st.session_state[OPEN_KEY] = None
        st.session_state[PASSED_KEY] = []
    st.session_state[SETUP_KEY] = key


def _anyone(key: tuple[QueueRequest, str | None]) -> tuple[QueueRequest, str | None]:
    return dataclasses.replace(key[0], annotator=""), key[1]


def assigned_line(setup: Setup) -> None:
    """ "Assigned to me": how many of the campaign's answers an admin gave the person that they
    have not labelled yet (their queue serves these first)."""
    person = setup.request.annotator
    if not setup.campaign or not person:
        return
    n = ui.cached(assignment.assigned_to, setup.campaign, person)
    if n:
        st.caption(
            f"Assigned to me: {n} answer(s) of {ui.md_escape(setup.campaign)} still to label; "
            "they come first."
        )


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
    return KIT.token(item.response_id, mine.rating_id if mine else "")


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


@callbacks.whole
def _save(
    token: str, item: OpenItem, setup: Setup, detail: ResponseDetail, provenance: Provenance
) -> None:
    if not KIT.claim(token):
        return  # a second click on a form already saved, or being saved
    overrides = st.session_state.get(f"annotate_override_{token}")
    rubrics = questions_ui.asked(setup.rubric, setup.campaign).rubrics
    values = {
        setup.rubric.name: st.session_state.get(f"annotate_value_{token}"),
        **questions_ui.values(token, rubrics[1:]),
    }
    try:
        labels = questions.ratings_of(
            item.response_id,
            annotator=setup.request.annotator,
            rubrics=rubrics,
            values=values,
            comment=st.session_state.get(f"annotate_comment_{token}"),
            overrides=overrides,
            provenance=provenance,
        )
    except AnnotationError as error:
        KIT.refuse(token, ui.md_escape(error))
        return
    rating, more = labels[0], labels[1:]
    # The page's state moves on before the write, so the run after it draws the next answer
    # (a click meanwhile cannot stop this callback half-way: `callbacks.whole`).
    kind = "override" if overrides else "rating"
    extra = "".join(f", {questions.answered(r, q)}" for r, q in zip(more, rubrics[1:]))
    said = f"Saved your {kind} ({rating.value:g}{extra}) as {widgets.as_code(rating.rater)}."
    KIT.flash(said, False)
    undone = tuple(labels) if more else rating  # Undo last takes the whole save back
    KIT.saves(setup.campaign).append(undone)
    _passed().append(item.response_id)
    st.session_state[OPEN_KEY] = None
    ticked = {
        tag.name: bool(st.session_state.get(f"annotate_tag_{token}_{n}"))
        for n, tag in enumerate(instructions.tags(setup.campaign))
    }
    try:
        tags = annotation.tag_labels(rating, ticked)
        result = ui.write(annotation.save_rating, rating, detail=detail, tags=tags, also=more)
    except annotation.LabelRefused as error:  # the campaign's rules: nothing saved, move on
        KIT.saves(setup.campaign).remove(undone)
        st.session_state.pop(FLASH_KEY, None)
        st.session_state[REFUSED_KEY] = str(error)
        return
    except (AnnotationError, StoreError) as error:  # a callback: app.py's handler is not around
        KIT.saves(setup.campaign).remove(undone)
        _passed().remove(item.response_id)
        st.session_state[OPEN_KEY] = item
        st.session_state.pop(FLASH_KEY, None)
        KIT.refuse(token, ui.md_escape(error))
        return
    if result.pending is not None:
        KIT.flash(said, True)


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
    points = annotation.scale_points(*scale)
    # Reopening one's own label shows it picked: Enter keeps it, a digit changes it.
    current = points.index(mine.value) if mine is not None and mine.value in points else None
    with st.form(f"annotate_form_{token}", clear_on_submit=False, border=True):
        st.radio(
            f"Your rating ({scale[0]:g} = worst, {scale[1]:g} = best)",
            points,
            index=current,
            horizontal=True,
            format_func=lambda v: f"{v:g}",
            key=f"annotate_value_{token}",
        )
        st.text(instructions.legend(setup.rubric, setup.campaign))
        asked = questions_ui.asked(setup.rubric, setup.campaign)
        questions_ui.draw(token, asked.rubrics[1:], detail, setup.request.annotator)
        ticked = instructions.ticked(
            item.response_id, setup.request.annotator, setup.campaign, labelled=mine is not None
        )
        tags = instructions.tags(setup.campaign)
        with st.container(key=f"annotate_tags_{token}"):
            if tags:
                st.caption("Tags (when outlined, a tag's number ticks it, from 1 at the top)")
            for n, tag in enumerate(tags):
                st.checkbox(
                    ui.md_escape(tag.name),  # a label renders Markdown: the admin's text, escaped
                    value=tag.name in ticked,
                    key=f"annotate_tag_{token}_{n}",
                    help=ui.md_escape(tag.description) if tag.description else None,
                )
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
    if asked.missing:
        st.warning(
            "This campaign also asks about "
            f"{ui.md_escape(', '.join(asked.missing))}, which no rubric file defines now."
        )
    questions_ui.remember(token, len(asked.rubrics) - 1, tags=bool(tags))
    KIT.show_refusal(token)


@callbacks.whole
def _skip(item: OpenItem, setup: Setup) -> None:
    if setup.campaign:
        ui.write(campaigns.release, setup.campaign, item.response_id, setup.request.annotator)
    _passed().append(item.response_id)
    st.session_state[OPEN_KEY] = None


def _undo_save(store: Store, last: Rating | tuple[Rating, ...]) -> annotation.Saved[Rating]:
    """Undo one save: a label, or every answer of a form of several questions."""
    return edits.undo_all(store, last) if isinstance(last, tuple) else edits.undo(store, last)


def _stored_undo(setup: Setup) -> tuple[Rating, ...] | None:
    """The person's newest save in the store that Undo last can take back (none this
    session's undos wrote): of the campaign on the page, its whole form; outside one, a
    label given outside any campaign. Read when this session saved nothing in the campaign
    shown (its saves are kept per campaign: `KIT.saves(campaign)`)."""
    skip = tuple(sorted(KIT.undone()))
    person, rubric = setup.request.annotator, setup.rubric.name
    return ui.call(edits.last_save, person, rubric, campaign=setup.campaign, skip=skip)


@callbacks.whole
def _undo(setup: Setup) -> None:
    saved = KIT.undo_last(
        _undo_save,
        refused=AnnotationError,
        stored=partial(_stored_undo, setup),
        scope=setup.campaign,
    )
    if saved is None:
        return
    restored: Rating = saved.record
    KIT.undone().add(restored.rating_id)
    chosen = Provenance(restored.selection or "unknown", restored.inclusion_probability)
    chosen = dataclasses.replace(chosen, campaign=restored.campaign)
    st.session_state[OPEN_KEY] = OpenItem(restored.response_id, chosen, "Undone: the answer again")
    shown = "withdrawn" if restored.value is None else f"{restored.value:g}"
    KIT.flash(f"Undid your last label; this answer's label is now {shown}.", saved.pending)


def actions(item: OpenItem | None, setup: Setup, mine: Rating | None) -> None:
    """Skip, Undo last and Withdraw, in one row with where the person is. Undo last reaches
    back to the store when this session saved nothing in the campaign shown (a label saved
    in an earlier session): a save of another campaign is never the one taken back."""
    stored = not KIT.has_saves(setup.campaign) and bool(setup.request.annotator)
    if stored:
        skip = tuple(sorted(KIT.undone()))
        person, rubric = setup.request.annotator, setup.rubric.name
        found = ui.cached(edits.last_save, person, rubric, campaign=setup.campaign, skip=skip)
        stored = found is not None
    KIT.actions(
        item.where if item is not None else None,
        skip=partial(_skip, item, setup) if item is not None else None,
        withdraw=(
            # The whole save (further questions, tags), kept whole for Undo last.
            partial(KIT.withdraw, edits.withdraw_save, mine, setup.campaign)
            if mine is not None and mine.value is not None
            else None
        ),
        undo=partial(_undo, setup),
        stored_undo=stored,
        scope=setup.campaign,
    )


@callbacks.whole
def open_by_hand(response_id: str, where: str) -> None:
    """Open an answer (one of the person's labels, or a link's) in place of the queue's."""
    st.session_state[OPEN_KEY] = OpenItem(response_id, None, where)


def _open_label(label: edits.MyLabel | None) -> None:
    if label is not None:
        open_by_hand(label.response_id, "One of your labels")


def your_labels(setup: Setup) -> None:
    """The person's labels on the rubric, newest first; one opens for a change."""
    labels = ui.cached(edits.my_labels, setup.request.annotator, setup.rubric.name)
    by_id = {label.response_id: label for label in labels}
    KIT.your_own(by_id, describe=_describe, on_open=_open_label)


def _describe(label: edits.MyLabel) -> str:
    """The answer by its question (cut to one line), then the person's label and when."""
    value = "withdrawn" if label.value is None else f"your {label.value:g}"
    question = " ".join(label.question.split()) or f"answer {label.response_id[:10]}"
    if len(question) > 70:
        question = question[:69] + "…"
    return f"{question} · {value} · {label.created_utc:%Y-%m-%d %H:%M}"
