"""The Overview's judge-corrected section in a real browser (Chromium through Playwright):
the panel named, the side-by-side estimates, the labels-needed target, the paired
comparisons; then the Calibration page names the same panel."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from dashboard.store import Store
from tests.browser.support import SCREENSHOTS, STEP_TIMEOUT_MS, go, settled

pytestmark = pytest.mark.browser


@pytest.fixture
def random_sample(sample_store: Store) -> Store:
    """The sample's human labels recorded as a uniform random sample, before any page runs."""
    with sample_store.connection() as con:
        con.execute("UPDATE ratings SET selection = 'random' WHERE rater_kind = 'human'")
    return sample_store


def test_overview_shows_corrected_estimates_and_names_the_panel(
    random_sample: Store, server, page: Page
) -> None:
    url, _ = server
    page.goto(url)
    expect(page.get_by_role("heading", name="Judge-corrected estimates")).to_be_visible(
        timeout=STEP_TIMEOUT_MS
    )
    settled(page)
    panel = "Panel: offline (baseline; likert-rag v1, the default)"
    expect(page.get_by_text(panel).first).to_be_visible()
    expect(page.get_by_role("heading", name="Paired comparisons")).to_be_visible()
    expect(page.get_by_text("No valid human sample")).to_have_count(0)
    target = page.get_by_role("spinbutton", name="Target half-width of the corrected interval")
    target.fill("0.2")
    target.press("Enter")
    settled(page)
    expect(target).to_have_value("0.200")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.get_by_role("heading", name="Judge-corrected estimates").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "overview-corrected.png"))

    go(page, "Calibration")
    expect(page.get_by_text(panel).first).to_be_visible()
