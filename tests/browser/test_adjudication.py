"""Adjudication in Chromium: a reviewer signs in, opens the Review page, reads each person's
label and comment of a disagreed answer, picks the adjudicated label and saves it; the row is
in the database with the reviewer's name, and people's labels are unchanged."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from dashboard.auth import users
from dashboard.campaigns import adjudication
from dashboard.store import Store
from tests.browser.support import STEP_TIMEOUT_MS, go, settled, shoot, sign_in, start_server, stop
from tests.pages.test_review import _disagreed


def test_a_reviewer_adjudicates_in_the_browser(
    sample_store: Store, tmp_path: Path, page: Page
) -> None:
    _disagreed(sample_store)  # ana 1 ("wrong date"), ben 4 in campaign "adj"
    with sample_store.connection() as con:
        before = con.execute("SELECT count(*) FROM ratings WHERE campaign = 'adj'").fetchone()
    path = tmp_path / "users.json"
    users.add_user(path, "rita", "password-rita", role="reviewer")
    process, url = start_server(sample_store.url, tmp_path / "log.txt", JUDGEBOARD_USERS=str(path))
    try:
        page.goto(url)
        sign_in(page, "rita", "password-rita")
        go(page, "Review")
        expect(page.get_by_text("1 to adjudicate")).to_be_visible(timeout=STEP_TIMEOUT_MS)
        shoot(page, "review")
        table = page.get_by_test_id("stDataFrame").first
        expect(table).to_be_visible(timeout=STEP_TIMEOUT_MS)
        form = page.get_by_test_id("stForm").filter(has_text="Adjudicated label")
        form.get_by_role("radiogroup").get_by_text("2", exact=True).click()
        form.get_by_role("textbox", name="Why (optional)").fill("a date is off")
        form.get_by_role("button", name="Save the adjudicated label").click()
        expect(page.get_by_text("Saved the adjudicated label 2.")).to_be_visible(
            timeout=STEP_TIMEOUT_MS
        )
        settled(page)
    finally:
        stop(process)
    [done] = adjudication.review_queue(sample_store, "adj").items
    assert (done.adjudication.value, done.adjudication.reviewer) == (2.0, "rita")
    assert done.adjudication.reason == "a date is off"
    with sample_store.connection() as con:
        after = con.execute("SELECT count(*) FROM ratings WHERE campaign = 'adj'").fetchone()
    assert after == before
