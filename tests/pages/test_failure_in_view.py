"""Failures, through AppTest on the sample database: the detail of an answer just opened is
brought into view (a scroll script naming the detail's container), once: the runs after it,
with the same answer open, leave the page where the person put it."""

from __future__ import annotations

from dashboard.review import failures
from dashboard.review.failures import FailureFilter
from tests.pages.helpers import open_page, page_path

PAGE = page_path("failures")


def _scrolls(app) -> list[str]:
    found = [str(e.proto) for e in app.get("iframe")]
    return [f for f in found if "st-key-failures_detail" in f]


def test_an_answer_opened_is_brought_into_view_once(app, sample_store) -> None:
    open_page(app, PAGE)
    assert not _scrolls(app)  # nothing open: nothing to bring into view
    rows = failures.failures(sample_store, FailureFilter(rubric="likert-rag")).rows
    first, second = rows[0].response_id, rows[1].response_id
    app.selectbox(key="failures_open").set_value(first).run()
    (script,) = _scrolls(app)
    assert first in script
    app.run()  # the same answer still open: no scroll
    assert not _scrolls(app)
    app.selectbox(key="failures_open").set_value(second).run()
    (script,) = _scrolls(app)
    assert second in script
