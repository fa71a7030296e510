"""At 1400 × 1000 in Chromium: the Overview, Calibration and Failures tables show their last
column without scrolling, a click on a Failures row opens its detail, and a reload keeps the
page, the filters and the open answer (they are in the URL)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.support import STEP_TIMEOUT_MS, choose, go, settled

pytestmark = pytest.mark.browser


def _fits(frame: Locator) -> None:
    """The table's grid scrolls no sideways: every column, the last one too, is in view."""
    scroller = frame.locator(".dvn-scroller")
    expect(scroller).to_be_visible(timeout=STEP_TIMEOUT_MS)
    widths = scroller.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert widths[0] <= widths[1], f"the table is {widths[0]} px wide in {widths[1]} px"
    box, grid = frame.bounding_box(), scroller.bounding_box()
    assert box is not None and grid is not None and box["x"] + box["width"] <= 1400


def _frames(page: Page) -> Locator:
    return page.get_by_test_id("stDataFrame")


def test_the_tables_fit_and_a_row_opens_its_detail_and_a_reload_keeps_it(server, page: Page):
    url, _ = server
    page.goto(url)
    expect(page.get_by_role("heading", name="Overview", exact=True)).to_be_visible(
        timeout=STEP_TIMEOUT_MS
    )
    settled(page)
    for index in range(3):  # ratings, pairwise, against the references
        _fits(_frames(page).nth(index))

    go(page, "Calibration")
    _fits(_frames(page).first)

    go(page, "Failures")
    table = _frames(page).first
    _fits(table)
    box = table.bounding_box()
    assert box is not None
    # A click on the third row's question cell (header 35 px, rows 35 px).
    page.mouse.click(box["x"] + box["width"] - 300, box["y"] + 35 + 2 * 35 + 17)
    expect(page.get_by_text("Judges", exact=True)).to_be_visible(timeout=STEP_TIMEOUT_MS)
    settled(page)
    # The dropdown shows the same answer, named by its question.
    chooser = page.get_by_role("combobox", name="Open an answer")
    expect(chooser).to_have_value(re.compile(r"^#3 · .+\?"))
    item = parse_qs(urlsplit(page.url).query)["item"][0]
    question = chooser.input_value().split(" · ")[1].rstrip("…")

    # A filter, then a reload: the page, the filter and the open answer come back.
    system = page.get_by_role("combobox", name="System", exact=True)
    choose(page, system, "eo-rag-small")
    expect(page).to_have_url(re.compile(r"system=eo-rag-small"), timeout=STEP_TIMEOUT_MS)
    page.reload()
    expect(page.get_by_role("heading", name="Failures", exact=True)).to_be_visible(
        timeout=STEP_TIMEOUT_MS
    )
    settled(page)
    assert urlsplit(page.url).path.endswith("/failures")
    query = parse_qs(urlsplit(page.url).query)
    assert query["item"] == [item] and query["system"] == ["eo-rag-small"]
    expect(system).to_have_value("eo-rag-small")
    # The same answer is open, though no longer in the (filtered) list.
    expect(page.get_by_text("Judges", exact=True)).to_be_visible()
    expect(page.get_by_test_id("stCode").filter(has_text=question).first).to_be_visible()

    # Navigating away leaves the Failures' query behind.
    go(page, "Overview")
    assert "item" not in parse_qs(urlsplit(page.url).query)
