"""People's and models' text in Chromium: a campaign named `**bold** [x](http://127.0.0.1/)`
shows as typed on Campaigns and Annotate, and an answer, a question's document and a
highlighted context with bare URLs and e-mail addresses show as text: no <a> and no bold
comes of them anywhere in the page's content."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import Page, expect

from dashboard.store import Store
from tests import builders
from tests.browser.support import settled, start_server, stop

# Where a link made from the data would point (the server itself is on another port).
TARGETS = ("127.0.0.1/", "127.0.0.1:9", "example.org")


def _no_link_or_bold(page: Page) -> None:
    main = page.get_by_test_id("stMain")
    hrefs = main.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert not [h for h in hrefs if h and any(t in h for t in TARGETS)], hrefs
    assert main.locator("strong", has_text="bold").count() == 0
    assert main.locator("strong", has_text="here").count() == 0


def test_user_text_shows_as_typed_with_no_link(store: Store, tmp_path: Path, page: Page) -> None:
    builders.user_text(store)
    process, url = start_server(store.url, tmp_path / "log.txt")
    try:
        page.goto(f"{url}/campaigns?dataset={builders.URL_DATASET}")
        settled(page)
        # as typed (an invisible word joiner inside "://" keeps it from becoming a link)
        expect(page.get_by_text("**bold** [x](http:").first).to_be_visible()
        _no_link_or_bold(page)

        campaign = quote(builders.CAMPAIGN_NAME)
        page.goto(
            f"{url}/annotate?dataset={builders.URL_DATASET}&rubric=likert-rag&campaign={campaign}"
        )
        settled(page)
        page.get_by_role("textbox", name="Annotator").fill("zoe")
        page.keyboard.press("Enter")
        settled(page)
        expect(page.get_by_text(builders.URL_ANSWER).first).to_be_visible()
        expect(page.get_by_text(f"Campaign {builders.CAMPAIGN_NAME}")).to_be_visible()
        page.get_by_text("Reference context").first.click()
        settled(page)
        expect(page.get_by_text("127.0.0.1:9/context").first).to_be_visible()
        _no_link_or_bold(page)
    finally:
        stop(process)
