"""Rough edges a newcomer hit on Annotate, in Chromium against `streamlit run`: the name typed
in survives a reload (it is in the URL), Enter in the name box leaves it so that the next
digit rates the answer instead of joining the name ("carol4"), and a link to an answer the
person already labelled opens that answer with their label picked."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from dashboard.store import Store
from tests.browser.support import STEP_TIMEOUT_MS, keys_ready, settled, start_server, stop

CHECKED = '[class*="st-key-annotate_value_"] input:checked'


def _rated(store: Store, person: str) -> list[tuple]:
    with store.connection() as con:
        return con.execute(
            "SELECT response_id, value FROM ratings WHERE rater = ? ORDER BY created_utc",
            [person],
        ).fetchall()


def test_name_kept_on_reload_no_digit_in_the_name_and_a_link_to_a_label(
    sample_store: Store, tmp_path: Path, page: Page
) -> None:
    process, url = start_server(sample_store.url, tmp_path / "log.txt")
    try:
        page.goto(f"{url}/annotate?dataset=eo-rag")
        settled(page)
        name = page.get_by_role("textbox", name="Annotator", exact=True)
        name.click()
        page.keyboard.type("carol")
        page.keyboard.press("Enter")
        settled(page)
        # no blur by hand: Enter leaves the name box (once the page's key script has run),
        # and then the digit rates, it does not join the name
        expect(name).not_to_be_focused(timeout=STEP_TIMEOUT_MS)
        keys_ready(page, "4")
        page.keyboard.press("4")
        expect(page.locator(CHECKED)).to_have_count(1, timeout=STEP_TIMEOUT_MS)
        assert name.input_value() == "carol"
        expect(page.locator(f"{CHECKED}[value]")).to_have_count(1, timeout=STEP_TIMEOUT_MS)
        page.keyboard.press("Enter")
        expect(
            page.get_by_test_id("stAlert").filter(has_text="Saved your rating (4)")
        ).to_be_visible(timeout=STEP_TIMEOUT_MS)
        settled(page)
        ((labelled, value),) = _rated(sample_store, "carol")
        assert value == 4.0
        page.wait_for_url("**annotator=carol**", timeout=STEP_TIMEOUT_MS)
        # a reload keeps the name
        page.reload()
        settled(page)
        expect(page.get_by_role("textbox", name="Annotator", exact=True)).to_have_value(
            "carol", timeout=STEP_TIMEOUT_MS
        )
        # a link to the answer already labelled opens it, the label picked and editable
        page.goto(
            f"{url}/annotate?dataset=eo-rag&rubric=likert-rag&item={labelled}&annotator=carol"
        )
        settled(page)
        expect(page.get_by_text("Your label: 4.")).to_be_visible(timeout=STEP_TIMEOUT_MS)
        expect(page.locator(CHECKED)).to_have_count(1, timeout=STEP_TIMEOUT_MS)
        page.wait_for_url(f"**item={labelled}**", timeout=STEP_TIMEOUT_MS)
        keys_ready(page, "2")
        page.keyboard.press("2")
        picked = page.locator('[class*="st-key-annotate_value_"] label:has(input:checked)')
        expect(picked).to_have_text("2", timeout=STEP_TIMEOUT_MS)
        settled(page)
        page.keyboard.press("Enter")
        expect(
            page.get_by_test_id("stAlert").filter(has_text="Saved your rating (2)")
        ).to_be_visible(timeout=STEP_TIMEOUT_MS)
        assert _rated(sample_store, "carol")[-1] == (labelled, 2.0)
    finally:
        stop(process)
