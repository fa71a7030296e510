"""The Data page in a real browser at 1400 x 1000: an uploaded file shows its first rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from dashboard.ui import imports
from tests.browser.support import STEP_TIMEOUT_MS, choose, go, log_tail, settled

pytestmark = pytest.mark.browser

LABELS = "prompt,left,right,label\nq1,a1,b1,A>B\nq2,a2,b2,B>A\nq3,a3,b3,A=B\n"


def test_an_upload_shows_its_preview(server, page: Page, tmp_path: Path) -> None:
    url, log = server
    path = tmp_path / "labels.csv"
    path.write_text(LABELS, encoding="utf-8")
    page.goto(url)
    expect(page.get_by_role("heading", name="Overview", exact=True)).to_be_visible(
        timeout=STEP_TIMEOUT_MS
    )
    settled(page)
    go(page, "Data")
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
    expect(page.get_by_text("labels.csv: its first 3 rows and 4 columns")).to_be_visible(
        timeout=STEP_TIMEOUT_MS
    )
    settled(page)
    # The preview by its key: the page has other tables (the datasets, the reference rules).
    preview = page.locator(f".st-key-{imports.PREVIEW_KEY}").get_by_test_id("stDataFrame")
    expect(preview).to_be_visible()
    box = preview.bounding_box()
    assert box is not None and box["width"] > 600 and box["x"] + box["width"] <= 1400
    # The grid's cells are in the page (Streamlit keeps an accessible copy of them).
    for cell in ("prompt", "label", "A>B", "q3"):
        expect(preview.get_by_text(cell, exact=True).first).to_be_attached()
    # A picker per field once the format is chosen.
    choose(page, page.get_by_role("combobox", name="Format"), "pairwise")
    expect(page.get_by_text("question (required)")).to_be_visible()
    assert "Traceback" not in log.read_text(encoding="utf-8", errors="replace"), log_tail(log)
