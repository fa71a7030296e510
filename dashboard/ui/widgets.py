"""Streamlit pieces shared by Failures, Annotate and Pairwise: one answer's detail, paging.

Text that comes from data (questions, answers, contexts, explanations, comments, even names)
goes through `ui.show_text` or `st.text`, which never interpret Markdown or HTML; labels and
captions given to Streamlit hold only this module's own words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from dashboard import ui
from dashboard.review import support
from dashboard.review.detail import RatingEntry, ResponseDetail, describe_time
from dashboard.types import Item, Response

PENDING_NOTE = (
    " The database file is busy right now: saved, applied when the file is free (it then "
    "shows in the numbers)."
)


def show_confirmation(key: str) -> None:
    """The line a save (or an undo) left under `key` for the page drawn after it. It stays
    until a run of the page ends (`confirmation_shown`): a run stopped half-way (a click
    meanwhile, or the file held by another process, which shows in place of the page) must not
    take it along, or the next answer shows with no word of the save."""
    if text := st.session_state.get(key):
        st.success(text)


def show_refusal(key: str) -> None:
    """The line a refused save left under `key` (a campaign's rules), kept like a confirmation."""
    if text := st.session_state.get(key):
        st.warning(text)


def confirmation_shown(key: str) -> None:
    """Call once the page has run to its end: its confirmation was on the page, and goes."""
    st.session_state.pop(key, None)


def _value(entry: RatingEntry) -> str:
    r = entry.rating
    if r.value is None:
        return f"unscored ({r.unscored_reason or 'no reason given'})"
    return f"{r.value:g} on {r.scale_low:g}–{r.scale_high:g}"


def _status(entry: RatingEntry) -> str:
    return "current" if entry.current else "superseded"


def show_item(item: Item, *, open_contexts: bool = False) -> None:
    """The question with what the raters saw besides the answer."""
    if item.history:
        turns = [
            f"{t.get('role', 'user')}: {t.get('content', '')}" if isinstance(t, dict) else str(t)
            for t in item.history
        ]
        ui.show_text("\n".join(turns), label="Conversation so far")
    ui.show_text(item.question, label="Question")
    if item.options:
        ui.show_text(
            "\n".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(item.options)), label="Options"
        )
        if item.gold_letters:
            st.text(f"Correct: {', '.join(item.gold_letters)}")
    if item.candidate_answer:
        ui.show_text(item.candidate_answer, label="Candidate answer under test")
        if item.hallucination_gold is not None:
            st.text(f"Hallucinated (gold): {'yes' if item.hallucination_gold else 'no'}")
    if item.reference_answers:
        show_references(item.reference_answers)
    if item.reference_context or item.document:
        with st.expander("Reference context", expanded=open_contexts):
            if item.document:
                st.text(f"Document: {item.document}")
            show_passage(item.reference_context, item.reference_answers)


def show_references(answers: Sequence[str]) -> None:
    """One gold answer as text; several as a numbered list, one block each."""
    if len(answers) == 1:
        ui.show_text(answers[0], label="Reference answer")
        return
    st.caption(f"Reference answers ({len(answers)}, any one is correct)")
    for number, answer in enumerate(answers, start=1):
        ui.show_text(f"{number}. {answer}")


def show_passage(text: str | None, references: Sequence[str]) -> None:
    """A context, with the passage that supports a reference answer highlighted (escaped:
    nothing in the text becomes a link, an image or HTML); plain text when none is found."""
    found = support.supporting_passage(text, references)
    if found is None:
        ui.show_text(text)
        return
    st.markdown(
        _md_text(found.before)
        + f":orange-background[{_md_text(found.passage)}]"
        + _md_text(found.after)
    )
    st.caption("Highlighted: the passage that supports the reference answer.")


def _md_text(text: str) -> str:
    # Markdown would join lines: a line break is kept as a hard break.
    return ui.md_escape(text).replace("\n", "  \n")


def show_contexts(
    response: Response, *, open_contexts: bool = False, references: Sequence[str] = ()
) -> None:
    if response.contexts:
        label = f"Retrieved contexts ({len(response.contexts)})"
        with st.expander(label, expanded=open_contexts):
            for number, passage in enumerate(response.contexts, start=1):
                st.caption(f"Passage {number}")
                show_passage(passage, references)


def show_judge_ratings(detail: ResponseDetail) -> None:
    entries = sorted(detail.judge_ratings, key=lambda e: (not e.current, e.rating.rater))
    if not entries:
        st.caption("No judge has rated this answer yet — run the judges on the Run judges page.")
    for entry in entries:
        r = entry.rating
        st.text(
            f"{r.rater} · {r.rubric} v{r.rubric_version} · {_value(entry)} · "
            f"{_status(entry)} · {describe_time(r.created_utc)}"
        )
        for override_id in entry.overridden_by:
            by = detail.find(override_id)
            if by is not None:
                st.text(f"↳ overridden by {by.rating.rater}: {_value(by)}")
        if r.explanation:
            ui.show_text(r.explanation, label="Explanation")
        if r.raw_output:
            with st.expander("Raw output"):
                ui.show_text(r.raw_output)


def show_human_ratings(detail: ResponseDetail, *, only: str | None = None) -> None:
    """Every person's rating, oldest first, superseded ones and overrides included; with
    `only`, that person's alone (a labeller's: the others' are an admin's to see)."""
    entries = detail.human_ratings
    if only is not None:
        others = sum(e.rating.rater != only for e in entries)
        entries = tuple(e for e in entries if e.rating.rater == only)
        if others:
            st.caption(f"{others:,} label(s) by other people: only an admin sees them.")
    if not entries:
        st.caption("No person has rated this answer yet — rate it on the Annotate page.")
    for entry in entries:
        r = entry.rating
        line = (
            f"{r.rater} · {r.rubric} v{r.rubric_version} · {_value(entry)} · "
            f"{_status(entry)} · {describe_time(r.created_utc)}"
            + (f" · via {r.source}" if r.source else "")
        )
        st.text(line)
        if r.overrides:
            judged = detail.find(r.overrides)
            target = (
                f"{judged.rating.rater}'s rating ({_value(judged)})"
                if judged
                else f"rating {r.overrides}"
            )
            st.text(f"↳ overrides {target}")
        if r.comment:
            ui.show_text(r.comment, label="Comment")


def show_detail(
    detail: ResponseDetail,
    *,
    ratings: bool = True,
    open_contexts: bool = False,
    people_of: str | None = None,
) -> None:
    """The item, the answer, and (optionally) every judge's and person's rating of it (with
    `people_of`, of people only that one's); `open_contexts` opens the reference and
    retrieved contexts (the passage supporting the reference highlighted)."""
    item, response = detail.item, detail.response
    st.text(
        f"{item.dataset} · {response.system} · {item.task_type}"
        + (f" · {item.external_id}" if item.external_id else "")
    )
    show_item(item, open_contexts=open_contexts)
    show_contexts(response, open_contexts=open_contexts, references=item.reference_answers)
    ui.show_text(response.answer, label="Answer")
    if ratings:
        left, right = st.columns(2)
        with left:
            st.markdown("**Judges**")
            show_judge_ratings(detail)
        with right:
            st.markdown("**People**")
            show_human_ratings(detail, only=people_of)


def pager(total: int, *, page_size: int, key: str) -> int:
    """A page number input under a list; returns the 1-based page to show."""
    n_pages = max(1, -(-total // page_size))
    if n_pages == 1:
        return 1
    if st.session_state.get(key, 1) > n_pages:
        st.session_state[key] = n_pages
    return int(
        st.number_input(f"Page (of {n_pages})", min_value=1, max_value=n_pages, step=1, key=key)
    )


def as_code(name: str) -> str:
    """A name typed by a person, as inline code inside a message that Streamlit renders as
    Markdown: nothing in it is read as a link, an image or HTML."""
    return "`" + name.replace("`", "'") + "`"


def keep_valid(key: str, options: Sequence[object]) -> None:
    """Drop a widget's remembered value once it is no longer among its options (for
    instance after the sidebar's dataset changed), so the widget falls back to its default."""
    if key in st.session_state and st.session_state[key] not in options:
        del st.session_state[key]


def _reset_key(form: str) -> str:
    return f"{form}__reset"


def clear_form(form: str, defaults: Mapping[str, object]) -> None:
    """After a successful submit: empty the form's widgets on the next run (call
    `restore_form` before drawing them). A form keeps what was typed when a submit fails
    (`clear_on_submit=False`), so it is emptied here, on success only. Dropping the values
    now and assigning the defaults before the widgets exist makes Streamlit send them to the
    browser too, which otherwise keeps showing (and would submit again) the old choice."""
    for key in defaults:
        st.session_state.pop(key, None)
    st.session_state[_reset_key(form)] = dict(defaults)


def restore_form(form: str) -> None:
    """Apply a pending `clear_form` (before the form's widgets are drawn)."""
    for key, value in st.session_state.pop(_reset_key(form), {}).items():
        st.session_state[key] = value


def rating_label(entry: RatingEntry) -> str:
    """ "j1: 4 on 1–5", for a widget's option (plain text there)."""
    return f"{entry.rating.rater}: {_value(entry)}"


def choice_index(options: Sequence[str], value: str | None) -> int:
    """Index of `value` in `options`, 0 when absent (for a widget's default)."""
    return list(options).index(value) if value is not None and value in options else 0
