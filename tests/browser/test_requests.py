"""The dashboard asks no host but its own: every request of every page, the page icon and
fonts included, goes to the server on 127.0.0.1 (Chromium's request log, through Playwright).
A `data:` or `blob:` URL is no request to any host: the browser makes it from the page."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page

from tests.browser.support import go, settled

pytestmark = pytest.mark.browser

TITLES = (
    "Overview",
    "Failures",
    "Annotate",
    "Pairwise",
    "Campaigns",
    "Calibration",
    "Judge QA",
    "Run judges",
    "Data",
)
# After a page is drawn, time for what it loads lazily (fonts, icons, a chart's assets). Not
# "networkidle": Streamlit's own connection and a page's key listener keep the network busy.
LAZY_MS = 1500


def test_every_request_of_every_page_goes_to_the_dashboards_own_host(
    server: tuple[str, Path], page: Page
) -> None:
    url, _ = server
    own = urlsplit(url).netloc
    requested: list[str] = []
    page.context.on("request", lambda request: requested.append(request.url))
    page.goto(url)
    settled(page)
    for title in TITLES:
        go(page, title)
        page.wait_for_timeout(LAZY_MS)
    page.reload()  # the favicon and the fonts again, from a warm start
    settled(page)
    page.wait_for_timeout(LAZY_MS)
    elsewhere = [
        u
        for u in requested
        if urlsplit(u).scheme not in ("data", "blob") and urlsplit(u).netloc != own
    ]
    assert elsewhere == []
    assert any(urlsplit(u).path.startswith("/_stcore/") for u in requested)  # the log works
