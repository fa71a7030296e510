"""The further questions of a campaign on the Annotate form: a radio per further rubric (a
pass/fail check for a 0 to 1 scale), the tags in one box, and the keys' path through them all
(`keys.question`): the rating, each further rubric, the tags, the comment."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from dashboard import ui
from dashboard.campaigns import campaigns
from dashboard.judging import Rubric
from dashboard.review import annotation, questions
from dashboard.review.detail import ResponseDetail
from dashboard.ui import keys

_ASKED_KEY = "annotate_questions"  # the open form's token and its questions, for the keys


def asked(rubric: Rubric, campaign: str | None) -> questions.Asked:
    found = ui.cached(campaigns.find_campaign, campaign) if campaign else None
    return questions.asked(rubric, found, ui.rubrics())


def key_of(n: int, token: str) -> str:
    """The widget key of the form's nth further question."""
    return f"annotate_q{n}_{token}"


def draw(token: str, more: Sequence[Rubric], detail: ResponseDetail, person: str) -> None:
    """Inside the form: a radio for each further rubric, preset to the person's current label
    of it (Enter keeps it, a digit changes it)."""
    for n, rubric in enumerate(more, start=1):
        low, high = annotation.rating_scale(rubric)
        points = annotation.scale_points(low, high)
        mine = next(
            (
                e.rating.value
                for e in detail.human_ratings
                if e.current and e.rating.rater == person and e.rating.rubric == rubric.name
            ),
            None,
        )
        check = questions.is_check(rubric)
        st.radio(
            f"Pass/fail check: {rubric.name} (0 = fail, 1 = pass)"
            if check
            else f"{rubric.name} ({low:g} = worst, {high:g} = best)",
            points,
            index=points.index(mine) if mine in points else None,
            horizontal=True,
            format_func=(lambda v: f"{v:g} {'pass' if v else 'fail'}") if check else _point,
            key=key_of(n, token),
            help=annotation.scale_legend(rubric) or None,
        )


def _point(value: float) -> str:
    return f"{value:g}"


def values(token: str, more: Sequence[Rubric]) -> dict[str, float | None]:
    """The answers given to the further questions, by rubric name (None: not answered)."""
    return {r.name: st.session_state.get(key_of(n, token)) for n, r in enumerate(more, start=1)}


def remember(token: str, n_more: int, *, tags: bool) -> None:
    """Record the open form's questions in order, for `listen`."""
    found = [keys.question("annotate_value_", "pick")]
    found += [keys.question(f"annotate_q{n}_", "pick") for n in range(1, n_more + 1)]
    if tags:
        found.append(keys.question("annotate_tags_", "tick"))
    found.append(keys.question("annotate_comment_", "text"))
    st.session_state[_ASKED_KEY] = (token, found)


def drawn() -> tuple[str, list[dict[str, str]]]:
    """The token and questions of the form this run drew (("", []): none), for the keys."""
    token, found = st.session_state.pop(_ASKED_KEY, None) or ("", [])
    return token, found
