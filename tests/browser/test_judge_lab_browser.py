"""The Judge lab in Chromium on the sample with the offline judge: the dev disagreements are
listed, the prompt is edited and saved (the diff shown), the version runs on the labelled
answers, is compared on test and adopted; the judge card then shows. Every step waits for
what it needs (the machine is shared), never for the network to fall idle."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.support import STEP_TIMEOUT_MS, go, settled

pytestmark = pytest.mark.browser


def _keyed(page: Page, key: str) -> Locator:
    """A widget's container by its Streamlit key."""
    return page.locator(f".st-key-{key}")


def _click(page: Page, key: str) -> None:
    settled(page)
    _keyed(page, key).get_by_role("button").click()
    settled(page)


def test_the_judge_lab_loop(server: tuple[str, str], page: Page) -> None:
    url, _ = server
    page.goto(f"{url}/?dataset=eo-rag")
    settled(page)
    go(page, "Judge lab")
    expect(page.get_by_role("heading", name="Dev disagreements, worst first")).to_be_visible()
    expect(
        page.get_by_text("disagreements of baseline at version 1 on the dev split")
    ).to_be_visible()

    template = _keyed(page, "jb_lab_template_1").locator("textarea")
    text = template.input_value()
    template.fill(text.replace("{{reference_answer}}", "(not shown)"))
    template.press("Control+Enter")
    settled(page)
    expect(_keyed(page, "jb_lab_save").get_by_role("button")).to_be_enabled()  # a diff
    expect(page.locator("code").filter(has_text="(not shown)").first).to_be_visible()
    _click(page, "jb_lab_save")
    expect(page.get_by_text("Saved version 1-wb1")).to_be_visible(timeout=STEP_TIMEOUT_MS)

    expect(_keyed(page, "jb_lab_run").get_by_role("button")).to_have_text("Run (30 calls)")
    _click(page, "jb_lab_run")
    expect(page.locator("code").filter(has_text="summary").first).to_be_visible(
        timeout=STEP_TIMEOUT_MS
    )

    _click(page, "jb_lab_compare")
    expect(page.get_by_text("Verdict:", exact=False)).to_be_visible(timeout=STEP_TIMEOUT_MS)

    reason = _keyed(page, "jb_lab_reason").locator("input")
    reason.fill("fewer hints")
    reason.press("Enter")
    _click(page, "jb_lab_adopt")
    expect(page.get_by_text("Adopted 1-wb1 for baseline on eo-rag")).to_be_visible(
        timeout=STEP_TIMEOUT_MS
    )
    expect(
        page.get_by_text("Judge card: baseline with likert-rag 1-wb1", exact=False)
    ).to_be_visible()
