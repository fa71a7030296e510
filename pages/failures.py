"""Failures: the worst-rated answers first, filtered and paged, with one answer's detail."""

from __future__ import annotations

import streamlit as st

from dashboard import ui
from dashboard.metrics import panels
from dashboard.metrics.selection import Selection
from dashboard.review import failures
from dashboard.review.detail import response_detail
from dashboard.review.failures import FailureFilter
from dashboard.ui import failure_list, gold, links, pickers, scroll, tags, widgets
from dashboard.ui.links import Link

ANY = "(any)"
PAGE_KEY = "failures_page"
OPEN_ID_KEY = failure_list.OPEN_ID_KEY
LAST_KEY = "failures_last"
SHOWN_KEY = "failures_shown"  # the answer whose detail was last brought into view
LINKS = (
    Link(f"{pickers.RUBRIC_KEY}_failures", links.RUBRIC_PARAM),
    Link("failures_system", "system", default=ANY),
    Link("failures_task", "task", default=ANY),
    Link("failures_judge", "judge", default=ANY),
    Link("failures_range", "range", links.RANGE, default=(0.0, 1.0)),
    Link("failures_spread", "spread", links.FLOAT, default=0.0),
    Link("failures_search", "search"),
    Link(PAGE_KEY, "page", links.INT, default=1),
    Link(OPEN_ID_KEY, links.ITEM_PARAM),
)


def _filters(dataset: str | None) -> FailureFilter | None:
    top = st.columns(4)
    with top[0]:
        rubric = pickers.rubric_selector(dataset, page="failures")
    if rubric is None:
        return None
    options = ui.cached(failures.filter_options, dataset=dataset, rubric=rubric.name)
    choices = {
        "failures_system": [ANY, *options.systems],
        "failures_task": [ANY, *options.task_types],
        "failures_judge": [ANY, *options.judges],
    }
    for key, values in choices.items():
        widgets.keep_valid(key, values)
    system = top[1].selectbox("System", choices["failures_system"], key="failures_system")
    task = top[2].selectbox("Task type", choices["failures_task"], key="failures_task")
    judge = top[3].selectbox(
        "Judge",
        choices["failures_judge"],
        key="failures_judge",
        help="Rank by this judge's score and list only what it rated.",
    )
    bottom = st.columns([2, 2, 3, 2])
    with bottom[3]:
        name = pickers.panel_selector(dataset, rubric.name, page="failures")
    panel = ui.cached(panels.with_panel, Selection(dataset, rubric.name, panel=name))
    low, high = bottom[0].slider(
        "Score range (0 = worst, 1 = best)",
        0.0,
        1.0,
        (0.0, 1.0),
        step=0.05,
        key="failures_range",
        help="The full range also lists answers nobody rated, last.",
    )
    spread = bottom[1].slider(
        "Judge disagreement at least",
        0.0,
        1.0,
        0.0,
        step=0.05,
        key="failures_spread",
        help="Highest minus lowest normalized judge score.",
    )
    search = bottom[2].text_input("Search question and answer", key="failures_search")
    tagged = tags.tag_filter(dataset, key="failures_tags")
    full_range = (low, high) == (0.0, 1.0)
    return FailureFilter(
        rubric=rubric.name,
        dataset=dataset,
        system=None if system == ANY else system,
        judge=None if judge == ANY else judge,
        min_score=None if full_range else low,
        max_score=None if full_range else high,
        task_type=None if task == ANY else task,
        min_disagreement=spread or None,
        search=search.strip() or None,
        tags=tagged,
        panel=panel.panel,
        panel_judges=panel.panel_judges,
        panel_version=panel.panel_version,
        panel_versions=panel.panel_versions,
    )


def _detail(response_id: str) -> None:
    detail = ui.cached(response_detail, response_id)
    if detail is None:
        st.warning("That answer is no longer in the database.")
        return
    st.divider()
    with st.container(key="failures_detail"):
        widgets.show_detail(detail, open_contexts=True, people_of=ui.labeller_name())
        gold.reference_box(detail, author=ui.filters().annotator)
    # Opened now (a row clicked, a link followed): brought into view, not left below the table.
    if st.session_state.get(SHOWN_KEY) != response_id:
        st.session_state[SHOWN_KEY] = response_id
        scroll.into_view("failures_detail", why=response_id)


st.title("Failures")
st.caption(
    "The worst-rated answers first. Scores are normalized onto 0–1: a person's "
    "rating where there is one (the effective score), the judge panel's otherwise. "
    "Click a row to open its detail; the address bar then links to it."
)
links.restore(LINKS)
chosen = ui.filters()
selection = _filters(chosen.dataset)
if selection is None:
    st.info(
        "No ratings yet — run the judges on the Run judges page, or rate answers on "
        "the Annotate page."
    )
else:
    if st.session_state.setdefault(LAST_KEY, selection) != selection:
        st.session_state[LAST_KEY] = selection
        st.session_state[PAGE_KEY] = 1
    page = ui.cached(failures.failures, selection, page=st.session_state.get(PAGE_KEY) or 1)
    st.caption(failure_list.panel_line(selection))
    open_id = st.session_state.get(OPEN_ID_KEY)
    if page.total:
        st.text(f"Answers {page.first}–{page.first + len(page.rows) - 1} of {page.total}")
        open_id = st.session_state[OPEN_ID_KEY] = failure_list.table(page, open_id)
        left, right = st.columns([1, 4])
        with left:
            widgets.pager(page.total, page_size=page.page_size, key=PAGE_KEY)
        with right:
            failure_list.choose(page, open_id)
    else:
        st.info("No answer matches these filters; widen the score range or clear the search.")
    links.publish(LINKS)
    if open_id:
        _detail(open_id)
