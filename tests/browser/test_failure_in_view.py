"""At 1400 × 1000 in Chromium: a Failures row clicked opens its detail where the person is
looking (brought into view), not about 1,400 px down under the table. (An answer chosen by
name is brought into view by the same call: tests/pages/test_failure_in_view.py.)"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.support import STEP_TIMEOUT_MS, settled

pytestmark = pytest.mark.browser

# The top of the opened answer's detail, at the top of the window (give or take a pixel). The
# detail itself can be taller than the window, so its top is what is checked.
_DETAIL_TOP = "document.querySelector('.st-key-failures_detail')?.getBoundingClientRect().top"
IN_VIEW = f"() => {{ const t = {_DETAIL_TOP}; return t !== undefined && t >= -2 && t < 200; }}"


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
    expect(detail.get_by_text("Judges", exact=True)).to_be_attached(timeout=STEP_TIMEOUT_MS)
    settled(page)
    page.wait_for_function(IN_VIEW, timeout=STEP_TIMEOUT_MS)
