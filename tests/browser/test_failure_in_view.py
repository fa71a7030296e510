"""At 1400 × 1000 in Chromium: a Failures row clicked opens its detail where the person is
looking (brought into view), not about 1,400 px down under the table; choosing another answer
by name brings that one into view too."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import STEP_TIMEOUT_MS, settled

pytestmark = pytest.mark.browser


def test_a_failure_opened_is_shown_in_view(server, page: Page) -> None:
    url, _ = server
    page.goto(f"{url}/failures")
    expect(page.get_by_role("heading", name="Failures", exact=True)).to_be_visible(
        timeout=STEP_TIMEOUT_MS
    )
    settled(page)
    table = page.get_by_test_id("stDataFrame").first
    box = table.bounding_box()
    assert box is not None
    # A click on the third row's question cell (header 35 px, rows 35 px).
    page.mouse.click(box["x"] + box["width"] - 300, box["y"] + 35 + 2 * 35 + 17)
    detail = page.locator(".st-key-failures_detail")
    expect(detail.get_by_text("Judges", exact=True)).to_be_in_viewport(timeout=STEP_TIMEOUT_MS)
    settled(page)
    top = detail.bounding_box()
    assert top is not None and -2 <= top["y"] < 1000, top  # at the top, give or take a pixel
    # back to the top, then another answer chosen by name: it comes into view as well
    page.evaluate("window.scrollTo(0, 0)")
    page.get_by_test_id("stMain").evaluate("e => e.scrollTo(0, 0)")
    expect(detail.get_by_text("Judges", exact=True)).not_to_be_in_viewport(timeout=STEP_TIMEOUT_MS)
    chooser = page.get_by_role("combobox", name="Open an answer")
    chooser.click()
    page.get_by_role("option").nth(0).click()
    settled(page)
    expect(detail.get_by_text("Judges", exact=True)).to_be_in_viewport(timeout=STEP_TIMEOUT_MS)
