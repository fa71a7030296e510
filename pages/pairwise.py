"""Pairwise: two answers to the same question side by side; A, B or tie; then the standings."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from dashboard import ui
from dashboard.review import annotation, votes
from dashboard.review.votes import PairRequest, VoteError
from dashboard.ui import keys, links, pickers, standings, widgets
from dashboard.ui.links import Link

POSITION_KEY = "pairwise_position"
FLASH_KEY = "pairwise_saved"
CHOICES = {"left": "A (left)", "right": "B (right)", "tie": "Tie"}
LINKS = (
    Link("pairwise_system_a", "system"),
    Link("pairwise_system_b", "against"),
    Link("pairwise_rubric", "rubric"),
    Link("pairwise_seed", "seed", links.INT, default=0),
    Link(POSITION_KEY, "pair", links.INT, default=0),
)


def _request(
    annotator: str, dataset: str | None, systems: Sequence[str]
) -> tuple[PairRequest, annotation.Rubric] | None:
    rubrics = {r.name: r for r in annotation.rubrics_of_kind("pairwise", ui.rubrics())}
    if not rubrics:
        return None
    first, second, third, fourth = st.columns([2, 2, 2, 1])
    widgets.keep_valid("pairwise_system_a", systems)
    widgets.keep_valid("pairwise_system_b", systems)
    system_a = first.selectbox("System", systems, index=0, key="pairwise_system_a")
    system_b = second.selectbox("Against", systems, index=1, key="pairwise_system_b")
    name = third.selectbox(
        "Rubric",
        list(rubrics),
        key="pairwise_rubric",
        index=widgets.choice_index(list(rubrics), "pairwise"),
    )
    seed = fourth.number_input(
        "Seed",
        min_value=0,
        value=0,
        step=1,
        key="pairwise_seed",
        help="Fixes the order of the pairs and the side each answer is shown on.",
    )
    return PairRequest(system_a, system_b, annotator, dataset, int(seed)), rubrics[name]


def _pair(view: votes.PairView) -> None:
    widgets.show_item(view.item)
    left, right = st.columns(2)
    for column, side, response in ((left, "A (left)", view.left), (right, "B (right)", view.right)):
        with column:
            st.subheader(side)
            ui.show_text(response.answer)
            widgets.show_contexts(response)


FORM = "pairwise_form"
EMPTY_FORM = {"pairwise_choice": None, "pairwise_comment": ""}


def _form(view: votes.PairView, request: PairRequest, rubric: annotation.Rubric) -> None:
    widgets.restore_form(FORM)
    # Not cleared on submit: a refused vote keeps its comment.
    with st.form(FORM, clear_on_submit=False):
        choice = st.radio(
            "Which answer is better?",
            list(CHOICES),
            index=None,
            horizontal=True,
            format_func=CHOICES.get,
            key="pairwise_choice",
        )
        comment = st.text_input("Comment (optional)", key="pairwise_comment")
        submitted = st.form_submit_button(
            "Save vote and next", type="primary", key="pairwise_save", shortcut="Enter"
        )
    if not submitted:
        return
    if choice is None:
        st.error("Pick A, B or Tie before saving.")
        return
    try:
        saved = ui.write(
            votes.vote,
            view,
            choice,
            annotator=request.annotator,
            rubric=rubric.name,
            rubric_version=rubric.version,
            comment=comment,
        )
    except VoteError as error:
        st.error(ui.md_escape(error))
        return
    widgets.clear_form(FORM, EMPTY_FORM)
    st.session_state[FLASH_KEY] = (
        f"Saved your vote ({CHOICES[choice]}) as "
        f"{widgets.as_code(request.annotator)}." + (widgets.PENDING_NOTE if saved.pending else "")
    )
    st.rerun()


def _standings(dataset: str | None) -> None:
    st.header("Standings")
    first, second = st.columns(2)
    with first:
        rubric = pickers.verdict_rubric_selector(dataset, key="pairwise_standings_rubric")
    with second:
        pool = pickers.pool_checkbox(key="pairwise_standings_pool")
    found = ui.cached(votes.standings, dataset=dataset, rubric=rubric, pool_raters=pool)
    if not found.groups:
        st.info(
            "No pairwise verdicts yet — vote above, or run a pairwise rubric on the Run "
            "judges page."
        )
        return
    standings.show_standings(found, key="pairwise_standings_raters")


def run() -> None:
    st.title("Pairwise")
    st.caption(
        "Which answer is better? Each answer's side is random (fixed by the seed) and "
        "recorded with your vote. Keyboard: a, b or t picks A, B or Tie, Enter saves and "
        "opens the next pair, s skips."
    )
    links.restore(LINKS)
    chosen = ui.filters()
    if flash := st.session_state.pop(FLASH_KEY, None):
        st.success(flash)
    systems = ui.dataset_systems(chosen.dataset)
    if len(systems) < 2:
        st.info(
            "Pairwise needs answers from two systems to the same questions: import a "
            "second system's answers on the Data page."
        )
        return
    if not chosen.annotator:
        st.warning("Type your name in the sidebar's Annotator box: votes are saved with it.")
    picked = _request(chosen.annotator, chosen.dataset, systems)
    if picked is None:
        st.info("No pairwise rubric can be used: see the rubric files on the Run judges page.")
        return
    request, rubric = picked
    if st.session_state.setdefault("pairwise_last", request) != request:
        st.session_state["pairwise_last"] = request
        st.session_state[POSITION_KEY] = 0
    links.publish(LINKS)
    try:
        queue = ui.cached(votes.next_pair, request, offset=st.session_state.get(POSITION_KEY, 0))
    except VoteError as error:
        st.warning(ui.md_escape(error))
        queue = None
    if queue is not None and queue.pair is None:
        st.info("No pair left for you here: pick two other systems or another dataset.")
    elif queue is not None and queue.pair is not None:
        skip, where = st.columns([1, 7])
        if skip.button("Skip", key="pairwise_skip", disabled=queue.offset + 1 >= queue.remaining):
            st.session_state[POSITION_KEY] = queue.offset + 1
            st.rerun()
        where.text(f"Pair {queue.offset + 1} of {queue.remaining} still to judge")
        _pair(queue.pair)
        _form(queue.pair, request, rubric)
    _standings(chosen.dataset)
    keys.listen(
        {
            "a": keys.pick("pairwise_choice", CHOICES["left"]),
            "b": keys.pick("pairwise_choice", CHOICES["right"]),
            "t": keys.pick("pairwise_choice", CHOICES["tie"]),
            "s": keys.click("pairwise_skip"),
        }
    )


run()
