"""Reopening one's own vote in Chromium: the Pairwise URL names the pair on the page (its
answers as shown), the address opened in a new tab (a new session) shows that pair with the
vote picked, and `u` there takes back the vote saved in the first tab (read from the store)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import Browser, Page, expect

from dashboard.review import votes
from dashboard.review.votes import PairRequest
from dashboard.store import Store
from tests.browser.support import (
    STEP_TIMEOUT_MS,
    keys_ready,
    new_page,
    settled,
    start_server,
    stop,
)

SYSTEMS = ("eo-rag-large", "eo-rag-small")
QUERY = f"dataset=eo-rag&annotator=kim&system={SYSTEMS[0]}&against={SYSTEMS[1]}"


def _votes(store: Store, person: str) -> list[tuple]:
    with store.connection() as con:
        return con.execute(
            "SELECT verdict, unscored_reason, supersedes FROM preferences "
            "WHERE rater = ? ORDER BY created_utc",
            [person],
        ).fetchall()


def _pair_in_url(page: Page) -> str:
    page.wait_for_function("() => location.search.includes('pair=')", timeout=STEP_TIMEOUT_MS)
    return parse_qs(urlparse(page.url).query)["pair"][0]


def test_the_pair_in_the_url_opens_with_the_vote_picked_and_u_undoes_it_in_a_new_tab(
    sample_store: Store, tmp_path: Path, browser: Browser
) -> None:
    first = votes.next_pair(sample_store, PairRequest(*SYSTEMS, "kim", "eo-rag")).pair
    assert first is not None
    named = f"{first.left.response_id},{first.right.response_id}"
    process, url = start_server(sample_store.url, tmp_path / "log.txt")
    try:
        page = new_page(browser)
        page.goto(f"{url}/pairwise?{QUERY}")
        settled(page)
        assert _pair_in_url(page) == named
        address = page.url
        keys_ready(page, "b")
        page.evaluate("document.activeElement && document.activeElement.blur()")
        page.keyboard.press("b")
        checked = page.locator('[class*="st-key-pairwise_choice_"] input:checked')
        expect(checked).to_have_count(1, timeout=STEP_TIMEOUT_MS)
        page.keyboard.press("Enter")
        expect(page.get_by_text("Saved your vote")).to_be_visible(timeout=STEP_TIMEOUT_MS)
        settled(page)
        page.wait_for_function(
            "(named) => !location.search.includes('pair=' + encodeURIComponent(named))",
            arg=named,
            timeout=STEP_TIMEOUT_MS,
        )
        assert [v[0] for v in _votes(sample_store, "kim")] == [
            "B" if first.shown_first == "A" else "A"
        ]

        # the first address in a new tab: the same pair, the vote picked on its side
        other = new_page(browser)
        other.goto(address)
        settled(other)
        expect(other.get_by_text("Your vote: B (right)")).to_be_visible(timeout=STEP_TIMEOUT_MS)
        expect(other.get_by_test_id("stCode").nth(2)).to_be_visible(timeout=STEP_TIMEOUT_MS)
        shown = [t.strip() for t in other.get_by_test_id("stCode").all_inner_texts()]
        assert shown.index(first.left.answer) < shown.index(first.right.answer), shown
        picked = other.locator('[class*="st-key-pairwise_choice_"] input:checked')
        expect(picked).to_have_count(1, timeout=STEP_TIMEOUT_MS)
        assert _pair_in_url(other) == named
        # u in this tab, which saved nothing: the vote saved in the first one is taken back
        keys_ready(other, "u")
        other.evaluate("document.activeElement && document.activeElement.blur()")
        other.keyboard.press("u")
        expect(other.get_by_text("Undid your last vote")).to_be_visible(timeout=STEP_TIMEOUT_MS)
        settled(other)
        found = _votes(sample_store, "kim")
        assert len(found) == 2 and found[1][:2] == (None, "withdrawn")
        expect(other.get_by_text("Your vote: withdrawn")).to_be_visible()
    finally:
        stop(process)
