"""The browser tests' fixtures: `page`, a fresh headless Chromium page (Debian's, driven by
Playwright), and `server`, the dashboard served on 127.0.0.1 on a copy of the sample."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from dashboard.store import Store
from tests.browser.support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    new_page,
    start_server,
    stop,
)


@pytest.fixture
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless, closed at the end; pages for several people or tabs come
    from `support.new_page` (each in its own context)."""
    with sync_playwright() as playwright:
        found = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield found
        finally:
            found.close()


@pytest.fixture
def page(browser: Browser) -> Page:
    return new_page(browser)


@pytest.fixture
def server(sample_store: Store, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`streamlit run` of the app script (dashboard/app.py) on a free port of 127.0.0.1, on a
    copy of the sample database; yields (base URL, server log). Killed by its PID at the end."""
    log = tmp_path / "streamlit.log"
    process, url = start_server(sample_store.url, log)
    try:
        yield url, log
    finally:
        stop(process)
