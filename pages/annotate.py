"""Annotate: a queue of answers to rate on the rubric's scale, or to override a judge on."""

from __future__ import annotations

import streamlit as st

from dashboard import ui
from dashboard.metrics import choices
from dashboard.metrics.selection import Selection
from dashboard.review import annotation
from dashboard.review.annotation import AnnotationError, QueueRequest
from dashboard.review.detail import ResponseDetail, response_detail
from dashboard.ui import pickers, widgets

POSITION_KEY = "annotate_position"
FLASH_KEY = "annotate_saved"


def _request(annotator: str, dataset: str | None) -> tuple[QueueRequest, annotation.Rubric] | None:
    rubrics = {r.name: r for r in annotation.rubrics_of_kind("rating", ui.rubrics())}
    if not rubrics:
        return None
    used = ui.cached(choices.default_rubric, Selection(dataset))
    # The rubric picked on another page comes first, then the most used one.
    first = annotation.default_rubric_name(
        list(rubrics), st.session_state.get(pickers.RUBRIC_KEY), used.name if used else None
    )
    left, middle, right = st.columns([2, 2, 1])
    name = left.selectbox(
        "Rubric",
        list(rubrics),
        key="annotate_rubric",
        index=widgets.choice_index(list(rubrics), first),
    )
    orders: list[str] = list(annotation.QUEUE_ORDERS)
    order = (
        middle.selectbox(
            "Order",
            orders,
            key="annotate_order",
            format_func=lambda o: annotation.QUEUE_ORDERS[o],
        )
        or orders[0]
    )
    seed = right.number_input(
        "Seed",
        min_value=0,
        value=0,
        step=1,
        key="annotate_seed",
        disabled=order != "random",
        help="Fixes the random order.",
    )
    rubric = rubrics[name]
    return QueueRequest(
        rubric=name,
        annotator=annotator,
        order=order,
        dataset=dataset,
        task_types=rubric.task_types,
        seed=int(seed),
    ), rubric


FORM = "annotate_form"
EMPTY_FORM = {"annotate_value": None, "annotate_override": None, "annotate_comment": ""}


def _form(detail: ResponseDetail, request: QueueRequest, rubric: annotation.Rubric) -> None:
    scale = annotation.rating_scale(rubric)
    judged = {
        e.rating.rating_id: e
        for e in detail.judge_ratings
        if e.current and e.rating.rubric == request.rubric
    }
    widgets.restore_form(FORM)
    # Not cleared on submit: a refused label (no comment on an override...) keeps its input.
    with st.form(FORM, clear_on_submit=False):
        value = st.radio(
            f"Your rating ({scale[0]:g} = worst, {scale[1]:g} = best)",
            annotation.scale_points(*scale),
            index=None,
            horizontal=True,
            format_func=lambda v: f"{v:g}",
            key="annotate_value",
        )
        st.text(annotation.scale_legend(rubric))
        overrides = st.selectbox(
            "Override a judge's rating (optional)",
            list(judged),
            index=None,
            key="annotate_override",
            placeholder="no override",
            format_func=lambda rid: widgets.rating_label(judged[rid]),
        )
        comment = st.text_input("Comment (required for an override)", key="annotate_comment")
        submitted = st.form_submit_button("Save and next", type="primary")
    if not submitted:
        return
    try:
        saved = ui.write(
            annotation.rate,
            detail.response.response_id,
            annotator=request.annotator,
            rubric=rubric.name,
            rubric_version=rubric.version,
            value=value,
            scale=scale,
            comment=comment,
            overrides=overrides,
            detail=detail,
        )
    except AnnotationError as error:
        st.error(ui.md_escape(error))
        return
    widgets.clear_form(FORM, EMPTY_FORM)
    kind = "override" if overrides else "rating"
    st.session_state[FLASH_KEY] = (
        f"Saved your {kind} ({value:g}) as "
        f"{widgets.as_code(request.annotator)}." + (widgets.PENDING_NOTE if saved.pending else "")
    )
    st.rerun()


def _navigation(queue: annotation.Queue) -> None:
    back, skip, where = st.columns([1, 1, 6])
    if back.button("Previous", disabled=queue.offset == 0, key="annotate_back"):
        st.session_state[POSITION_KEY] = queue.offset - 1
        st.rerun()
    if skip.button("Skip", disabled=queue.offset + 1 >= queue.remaining, key="annotate_skip"):
        st.session_state[POSITION_KEY] = queue.offset + 1
        st.rerun()
    where.text(f"Answer {queue.offset + 1} of {queue.remaining} still to label")


def run() -> None:
    st.title("Annotate")
    st.caption(
        "Keyboard: click the rating, choose with the arrow keys, Tab twice (past the "
        "optional override) to the comment, type, and Enter saves; the next answer "
        "loads at once. Skip leaves an answer for later."
    )
    chosen = ui.filters()
    if flash := st.session_state.pop(FLASH_KEY, None):
        st.success(flash)
    if not chosen.annotator:
        st.warning("Type your name in the sidebar's Annotator box: ratings are saved with it.")
    picked = _request(chosen.annotator, chosen.dataset)
    if picked is None:
        st.info("No rating rubric can be used: see the rubric files on the Run judges page.")
        return
    request, rubric = picked
    if st.session_state.get("annotate_last") != request:
        st.session_state["annotate_last"] = request
        st.session_state[POSITION_KEY] = 0
    queue = ui.cached(
        annotation.annotation_queue, request, offset=st.session_state.get(POSITION_KEY, 0), limit=1
    )
    if not queue.entries:
        st.info(
            "Nothing left to label here: pick another order or rubric, or another "
            "dataset in the sidebar."
        )
        return
    _navigation(queue)
    detail = ui.cached(response_detail, queue.entries[0].response_id)
    if detail is None:
        st.warning("That answer is no longer in the database.")
        return
    answer, label = st.columns([3, 2], gap="large")
    with answer:
        widgets.show_detail(detail)
    with label:
        _form(detail, request, rubric)


run()
