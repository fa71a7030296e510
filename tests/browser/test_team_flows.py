"""Labelling as teams do it, clicked in Chromium: an admin makes a campaign kept filled by a
rule on the Campaigns page, removes one of its answers, and sees it grow after
`judgeboard import` without the removed one; an admin assigns a campaign's answers to named
people and reassigns them, while a labeller, signed in in another window, sees what is
assigned to them and labels it. The same flows through AppTest, with a skip and the golden
export: tests/pages/test_team_flows.py."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from dashboard.auth import users
from dashboard.campaigns import assignment, campaigns
from dashboard.store import Store
from dashboard.ui import campaign_team
from tests.browser.support import (
    STEP_TIMEOUT_MS,
    choose,
    go,
    new_page,
    settled,
    shoot,
    sign_in,
    start_server,
    stop,
)
from tests.pages.test_team_flows import RUBRIC, _answers, _import, _items

pytestmark = pytest.mark.browser


def _keyed(page: Page, key: str) -> Locator:
    """A widget's container by its Streamlit key."""
    return page.locator(f".st-key-{key}")


def _said(page: Page, text: str) -> None:
    expect(page.get_by_text(text, exact=True)).to_be_visible(timeout=STEP_TIMEOUT_MS)
    settled(page)


def _campaign_line(page: Page, pattern: str) -> None:
    expect(page.get_by_text(re.compile(pattern)).first).to_be_visible(timeout=STEP_TIMEOUT_MS)


def test_a_rule_campaign_clicked_on_the_page_grows_after_an_import(
    sample_store: Store, tmp_path: Path, page: Page
) -> None:
    _import(sample_store, _answers(tmp_path / "a.jsonl", range(3)))
    path = tmp_path / "users.json"
    users.add_user(path, "ada", "password-ada", role="admin")
    process, url = start_server(sample_store.url, tmp_path / "log.txt", JUDGEBOARD_USERS=str(path))
    try:
        page.goto(url)
        sign_in(page, "ada", "password-ada")
        go(page, "Campaigns")
        form = page.get_by_test_id("stForm").filter(has_text="New campaign")
        form.get_by_role("textbox", name="Name", exact=True).fill("fresh")
        choose(
            page, form.get_by_role("combobox", name="Which answers"), campaign_team.FROM_RULE_TEXT
        )
        choose(page, _keyed(page, "campaign_rule_system").get_by_role("combobox"), "rule-sys")
        _keyed(page, "campaign_rule_unlabelled").locator("label").click()
        expect(_keyed(page, "campaign_rule_unlabelled").get_by_role("checkbox")).to_be_checked()
        for label, value in (("How many answers", "100"), ("People per answer (k)", "1")):
            field = form.get_by_role("spinbutton", name=label, exact=True)
            field.fill(value)
            field.press("Tab")
        form.get_by_role("button", name="Create").click()
        _said(page, "Created fresh with 3 answers.")
        _campaign_line(page, r"kept filled by a rule: system rule-sys, not yet labelled · .* 3 of ")
        first = _items(sample_store, "fresh")
        assert len(first) == 3
        # the admin takes the campaign's first answer out for good
        with sample_store.connection() as con:
            (question,) = con.execute(
                "SELECT question FROM items JOIN responses USING (item_id, dataset) "
                "WHERE response_id = ?",
                [first[0]],
            ).fetchone()
        removed = f"{question} · rule-sys · {first[0]}"
        choose(page, _keyed(page, "remove_fresh_answer").get_by_role("combobox"), removed)
        page.get_by_role("button", name="Remove", exact=True).click()
        _said(page, f"Removed {removed}: it does not come back.")

        # beside the running dashboard: an import of the same three answers and two new ones
        _import(sample_store, _answers(tmp_path / "b.jsonl", range(5)))
        page.reload()
        settled(page)
        # the two new answers join; the removed one does not come back: 3 - 1 + 2
        _campaign_line(page, r"kept filled by a rule: system rule-sys, not yet labelled · .* 4 of ")
        expect(page.get_by_text("0 of 4 answers done", exact=False)).to_be_visible(
            timeout=STEP_TIMEOUT_MS
        )
        shoot(page, "campaign-rule-grown")
    finally:
        stop(process)
    grown = _items(sample_store, "fresh")
    assert len(grown) == 4 and first[0] not in grown and set(first[1:]) < set(grown)


def _progress(page: Page) -> dict[str, tuple[int, int]]:
    """The Assigned table as the page draws it (Streamlit's hidden copy of the grid's cells,
    kept for screen readers): {person: (assigned, labelled)}."""
    header = page.locator("thead th", has_text=re.compile(r"^n_assigned$"))
    table = page.get_by_test_id("stDataFrame").filter(has=header)
    expect(table).to_have_count(1, timeout=STEP_TIMEOUT_MS)
    rows = table.first.locator("tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.querySelectorAll('td,th')].map(c => c.textContent.trim()))"
    )
    return {row[-3]: (int(row[-2]), int(row[-1])) for row in rows}


def _wait_for_progress(page: Page, wanted: dict[str, tuple[int, int]]) -> None:
    """The table comes to show `wanted`: a bounded poll, as the grid's cells are drawn after
    the run that read them has ended."""
    deadline = time.monotonic() + STEP_TIMEOUT_MS / 1000
    while True:
        settled(page)
        shown = _progress(page)
        if shown == wanted or time.monotonic() > deadline:
            break
        page.wait_for_timeout(250)
    assert shown == wanted


def test_an_admin_assigns_and_reassigns_while_a_labeller_labels(
    sample_store: Store, tmp_path: Path, browser: Browser
) -> None:
    path = tmp_path / "users.json"
    users.add_user(path, "ada", "password-ada", role="admin")
    users.add_user(path, "lee", "password-lee", role="labeller")
    campaigns.create_campaign(
        sample_store, "team", RUBRIC, dataset="eo-rag", rule="random", size=5, overlap=1
    )
    process, url = start_server(sample_store.url, tmp_path / "log.txt", JUDGEBOARD_USERS=str(path))
    admin, labeller = new_page(browser), new_page(browser)
    try:
        admin.goto(url)
        sign_in(admin, "ada", "password-ada")
        go(admin, "Campaigns")
        _keyed(admin, "assign_team_who").get_by_role("textbox").fill("lee, mo")
        admin.get_by_role("button", name="Assign", exact=True).click()
        _said(admin, "Assigned: lee 3, mo 2.")
        _wait_for_progress(admin, {"lee": (3, 0), "mo": (2, 0)})

        labeller.goto(url)
        sign_in(labeller, "lee", "password-lee")
        go(labeller, "Annotate")
        choose(labeller, _keyed(labeller, "annotate_campaign").locator("input").first, "team")
        _said(labeller, "Assigned to me: 3 answer(s) of team still to label; they come first.")
        labeller.locator('[class*="st-key-annotate_value_"]').get_by_text("4", exact=True).click()
        labeller.locator('[class*="st-key-annotate_save_"] button').click()
        _said(labeller, "Assigned to me: 2 answer(s) of team still to label; they come first.")
        shoot(labeller, "assigned-to-me")
        go(labeller, "Campaigns")  # a labeller sees the progress, not the forms
        _wait_for_progress(labeller, {"lee": (3, 1), "mo": (2, 0)})
        expect(labeller.get_by_role("button", name="Assign", exact=True)).to_have_count(0)
        expect(labeller.get_by_role("button", name="Reassign", exact=True)).to_have_count(0)

        admin.reload()
        settled(admin)
        _wait_for_progress(admin, {"lee": (3, 1), "mo": (2, 0)})
        choose(admin, _keyed(admin, "reassign_team_from").get_by_role("combobox"), "lee")
        _keyed(admin, "reassign_team_to").get_by_role("textbox").fill("mo")
        admin.get_by_role("button", name="Reassign", exact=True).click()
        _said(admin, "Moved 2 answer(s) of lee.")
        _wait_for_progress(admin, {"lee": (1, 1), "mo": (4, 0)})
        shoot(admin, "campaign-assigned")

        go(labeller, "Annotate")
        choose(labeller, _keyed(labeller, "annotate_campaign").locator("input").first, "team")
        expect(labeller.get_by_text(re.compile("^Assigned to me"))).to_have_count(0)
    finally:
        stop(process)
    assert assignment.assigned_to(sample_store, "team", "lee") == 0
    assert assignment.assigned_to(sample_store, "team", "mo") == 4
