"""Pairwise: two answers to the same question side by side; A, B or tie; then the standings."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import streamlit as st

from dashboard import ui
from dashboard.judging import Rubric
from dashboard.review import annotation, votes
from dashboard.review.votes import PairRequest, VoteError
from dashboard.ui import keys, links, pair_labelling, pairwise_url, pickers, standings, widgets
from dashboard.ui.links import Link
from dashboard.ui.pair_labelling import CHOICES, POSITION_KEY, OpenPair

LINKS = (
    Link("pairwise_system_a", "system"),
    Link("pairwise_system_b", "against"),
    Link("pairwise_rubric", "rubric"),
    Link("pairwise_seed", "seed", links.INT, default=0),
)


def _request(
    annotator: str, dataset: str | None, systems: Sequence[str]
) -> tuple[PairRequest, Rubric] | None:
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


def _current(request: PairRequest) -> tuple[OpenPair | None, bool]:
    """The pair on the page (one an undo opened, else the queue's) and whether Skip can
    move on; says so when there is none."""
    if (found := pair_labelling.opened()) is not None:
        return found, True
    try:
        queue = ui.cached(votes.next_pair, request, offset=st.session_state.get(POSITION_KEY, 0))
    except VoteError as error:
        st.warning(ui.md_escape(error))
        return None, False
    if queue.pair is None:
        st.info("No pair left for you here: pick two other systems or another dataset.")
        return None, False
    where = f"Pair {queue.offset + 1} of {queue.remaining} still to judge"
    return OpenPair(queue.pair, where, from_queue=True), queue.offset + 1 < queue.remaining


def _skip(current: OpenPair | None) -> None:
    if current is None:
        return
    if current.from_queue:
        st.session_state[POSITION_KEY] = st.session_state.get(POSITION_KEY, 0) + 1
    else:
        st.session_state[pair_labelling.OPEN_KEY] = None


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


st.title("Pairwise")
st.caption(
    "Which answer is better? Each answer's side is random (fixed by the seed) and "
    "recorded with your vote. Keyboard: a, b or t picks A, B or Tie, Enter saves and "
    "opens the next pair, s skips, u undoes your last vote."
)
links.restore(LINKS)
chosen = ui.filters()
widgets.show_confirmation(pair_labelling.FLASH_KEY)
systems = ui.dataset_systems(chosen.dataset)
picked = None
if len(systems) < 2:
    st.info(
        "Pairwise needs answers from two systems to the same questions: import a "
        "second system's answers on the Data page."
    )
else:
    if not chosen.annotator:
        st.warning("Type your name in the sidebar's Annotator box: votes are saved with it.")
    picked = _request(chosen.annotator, chosen.dataset, systems)
    if picked is None:
        st.info("No pairwise rubric can be used: see the rubric files on the Run judges page.")
if picked is not None:
    request, rubric = picked
    pairwise_url.restore(system_a=request.system_a)
    pair_labelling.reset_on_change(request)
    links.publish(LINKS)
    current, can_skip = _current(request)
    pairwise_url.save(current)
    mine = pair_labelling.my_vote(current.view, request, rubric) if current else None
    pair_labelling.actions(
        current, mine, on=(request, rubric), on_skip=partial(_skip, current), can_skip=can_skip
    )
    if current is not None:
        _pair(current.view)
        pair_labelling.form(current.view, request, rubric, mine)
    pair_labelling.your_votes(request, rubric)
    _standings(chosen.dataset)
    pair_labelling.KIT.listen(
        {
            "a": keys.pick("pairwise_choice_", CHOICES["left"]),
            "b": keys.pick("pairwise_choice_", CHOICES["right"]),
            "t": keys.pick("pairwise_choice_", CHOICES["tie"]),
        }
    )

widgets.confirmation_shown(pair_labelling.FLASH_KEY)  # reached only when the run ended
