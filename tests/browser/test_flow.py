"""The main flow in a real browser: `streamlit run` on 127.0.0.1, driven by Debian's Chromium
through Playwright.

Overview → Failures → an answer's detail → Annotate: type the annotator's name in the sidebar,
rate with the keyboard (the flow the page's caption describes), save → the rating is in the
database with that name and comment. Then Pairwise, Calibration, Run judges and Data. Every page is
photographed into test-artifacts/screenshots/; with JUDGEBOARD_UPDATE_SCREENSHOTS=1 the
pictures are also copied to docs/screenshots/ (the README shows those).

Synchronisation: each step waits for something the page draws (a heading, a text) and then
for Streamlit's own "script not running" state on the app root; no fixed sleeps.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, TimeoutError as PlaywrightTimeout, expect

from dashboard.review import annotation
from dashboard.review.annotation import QueueRequest
from dashboard.store import Store
from tests.browser.support import (
    STEP_TIMEOUT_MS,
    VIEWPORT,
    go,
    log_tail,
    settled,
    shoot,
)

pytestmark = pytest.mark.browser

ANNOTATOR = "Browser Tester"
COMMENT = "typed in the browser"
DETAIL_SHOT_HEIGHT = 1500


def _first_in_queue(store: Store) -> str:
    """The answer the Annotate page opens on with its defaults (a seeded random order, every
    dataset, the sample's rubric)."""
    rubric = next(r for r in annotation.rubrics_of_kind("rating") if r.name == "likert-rag")
    request = QueueRequest(rubric=rubric.name, annotator=ANNOTATOR, task_types=rubric.task_types)
    return annotation.annotation_queue(store, request, limit=1).entries[0].response_id


def _human_ratings(store: Store) -> list[tuple]:
    with store.connection() as con:
        return con.execute(
            "SELECT response_id, rater_kind, value, comment FROM ratings WHERE rater = ?",
            [ANNOTATOR],
        ).fetchall()


def _open_a_detail(page: Page) -> None:
    """On Failures, open the first answer of the list in the detail view."""
    # The keyboard opens the selectbox's list reliably (a click on its text field may not);
    # a relayout right after the screenshot's resize can close it again, so it is reopened.
    chooser = page.get_by_role("combobox", name="Open an answer")
    option = page.get_by_role("option").first
    for attempt in range(3):
        settled(page)
        chooser.focus()
        chooser.press("ArrowDown")
        try:
            option.wait_for(state="visible", timeout=5_000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
    option.click()
    expect(page.get_by_text("Judges", exact=True)).to_be_visible(timeout=STEP_TIMEOUT_MS)
    settled(page)
    page.set_viewport_size({"width": VIEWPORT["width"], "height": DETAIL_SHOT_HEIGHT})
    chooser.evaluate("e => e.scrollIntoView({block: 'start'})")


def _annotate(page: Page) -> None:
    """On Annotate, sign with the annotator's name in the sidebar, then rate with the
    keyboard as the page's caption says: the digit 2, the comment, Enter saves."""
    name = page.get_by_role("textbox", name="Annotator", exact=True)
    name.fill(ANNOTATOR)
    name.press("Enter")
    expect(page.get_by_text("ratings are saved with it")).to_have_count(0, timeout=STEP_TIMEOUT_MS)
    settled(page)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.keyboard.press("2")
    expect(page.get_by_test_id("stRadioGroup").get_by_role("radio", checked=True)).to_have_count(1)
    comment = page.get_by_role("textbox", name="Comment (required for an override)")
    comment.focus()
    page.keyboard.type(COMMENT)
    page.keyboard.press("Enter")
    expect(
        page.get_by_test_id("stAlert").filter(has_text="Saved your rating (2) as")
    ).to_contain_text(ANNOTATOR, timeout=STEP_TIMEOUT_MS)
    settled(page)
    # The next answer starts with an empty form in the browser too (the form is emptied on
    # success only, by the server, so that a refused label keeps its input).
    expect(page.get_by_role("textbox", name="Comment (required for an override)")).to_have_value("")
    expect(page.get_by_test_id("stRadioGroup").get_by_role("radio", checked=True)).to_have_count(0)


def test_overview_failures_detail_annotate_flow(server, page: Page, sample_store: Store) -> None:
    url, log = server
    expected = _first_in_queue(sample_store)
    page.goto(url)
    expect(page.get_by_role("heading", name="Overview", exact=True)).to_be_visible(
        timeout=STEP_TIMEOUT_MS
    )
    settled(page)
    shoot(page, "overview")

    go(page, "Failures")
    expect(page.get_by_text("Answers 1–20 of ")).to_be_visible()
    shoot(page, "failures")
    _open_a_detail(page)
    shoot(page, "detail", whole=False)

    go(page, "Annotate")
    _annotate(page)
    shoot(page, "annotate")
    # The page opens the database per operation, so the test can read it while it launcher.
    assert _human_ratings(sample_store) == [(expected, "human", 2.0, COMMENT)], log_tail(log)

    for title, shot in (
        ("Pairwise", "pairwise"),
        ("Calibration", "calibration"),
        ("Run judges", "run_judges"),
        ("Data", "data"),
    ):
        go(page, title)
        shoot(page, shot)
    assert "Traceback" not in log.read_text(encoding="utf-8", errors="replace"), log_tail(log)
