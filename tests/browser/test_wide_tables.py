"""Issue 32, at 1400 × 1000 in Chromium: Judge QA's bias table, Calibration's pairwise
verdicts (too wide for one table: several, each led by the judge) and its judges against the
mean of people, the Failures list with its question and answer cut at a bounded width, the
Overview's judge-corrected estimates (the scores and the pass rates as two tables) and its
paired comparisons (with Holm's columns), and Calibration's list behind a confusion cell
(every column at a bounded width) each show their last column without scrolling sideways."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from dashboard.store import Store
from tests.browser.support import STEP_TIMEOUT_MS, go, settled

pytestmark = pytest.mark.browser


def _fits(frame: Locator) -> None:
    """The table's grid scrolls no sideways: every column, the last one too, is in view."""
    frame.scroll_into_view_if_needed()
    scroller = frame.locator(".dvn-scroller")
    expect(scroller).to_be_visible(timeout=STEP_TIMEOUT_MS)
    widths = scroller.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert widths[0] <= widths[1], f"the table is {widths[0]} px wide in {widths[1]} px"
    box = frame.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 1400


def _led_by(page: Page, *columns: str) -> Locator:
    """The page's tables with a header named each of `columns` (Streamlit keeps a hidden
    copy of a grid's cells for screen readers)."""
    tables = page.get_by_test_id("stDataFrame")
    for column in columns:
        header = page.locator("thead th", has_text=re.compile(rf"^{re.escape(column)}$"))
        tables = tables.filter(has=header)
    return tables


@pytest.fixture
def random_sample(sample_store: Store) -> Store:
    """The sample's human labels recorded as a uniform random sample, so that the
    judge-corrected estimates hold intervals (their widest text), before any page runs."""
    with sample_store.connection() as con:
        con.execute("UPDATE ratings SET selection = 'random' WHERE rater_kind = 'human'")
    return sample_store


def test_the_wide_tables_fit_a_1400_px_window(random_sample: Store, server, page: Page) -> None:
    url, _ = server
    page.goto(url)
    settled(page)

    expect(page.get_by_role("heading", name="Judge-corrected estimates")).to_be_visible(
        timeout=STEP_TIMEOUT_MS
    )
    settled(page)
    scores = _led_by(page, "system", "corrected", "labels needed (±0.05)")
    pass_rates = _led_by(page, "system", "pass rate corrected", "pass rate Rogan–Gladen")
    expect(scores).to_have_count(1)
    expect(pass_rates).to_have_count(1)
    # The corrected estimates are intervals (the widest text the columns hold).
    interval = re.compile(r"^\d\.\d+ \[\d\.\d+, \d\.\d+\]$")
    expect(scores.first.locator("tbody td", has_text=interval).first).to_be_attached()
    for table in (scores, pass_rates, _led_by(page, "system A", "win rate corrected")):
        _fits(table.first)
    # The paired comparisons: every two systems, each kind, with Holm's verdict (the sample
    # has more than two systems, so its widest form, with p (Holm) and survives Holm)
    expect(page.get_by_role("heading", name="Paired comparisons")).to_be_visible(
        timeout=STEP_TIMEOUT_MS
    )
    paired = _led_by(page, "system a", "system b", "b − a", "p (Holm)", "survives Holm")
    expect(paired).to_have_count(1)
    _fits(paired.first)

    go(page, "Judge QA")
    bias = _led_by(page, "judge", "length measured")
    expect(bias).to_have_count(1)  # the sample's judge (no family): one table that fits
    _fits(bias.first)

    go(page, "Calibration")
    # The sample's pairwise verdicts under every convention: tables one under the other, the
    # headline convention first, the judge leading each; the last holds the unscored pairs.
    first = _led_by(page, "judge", "accuracy (per order)")
    last = _led_by(page, "judge", "unscored pairs")
    expect(first).to_have_count(1)
    expect(last).to_have_count(1)
    for table in (first, _led_by(page, "judge", "consistency"), last):
        _fits(table.first)
    _fits(_led_by(page, "judge", "Kendall tau-b, item level").first)
    # Behind a confusion cell: every pair where the judge and a person disagree (the default).
    expect(page.get_by_text("pairs where")).to_be_visible(timeout=STEP_TIMEOUT_MS)
    behind = _led_by(page, "question", "person's rating", "detail")
    expect(behind).to_have_count(1)
    _fits(behind.first)

    go(page, "Failures")
    _fits(page.get_by_test_id("stDataFrame").first)  # its last column is the answer
