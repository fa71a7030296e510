"""The browser tests' fixtures: `page`, a fresh headless Chromium page (Debian's, driven by
Playwright), and `server`, the dashboard served on 127.0.0.1 on a copy of the sample."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright

from dashboard.store import Store
from tests.browser.support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    STEP_TIMEOUT_MS,
    VIEWPORT,
    start_server,
    stop,
)


@pytest.fixture
def page() -> Iterator[Page]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport=VIEWPORT)
            context.set_default_timeout(STEP_TIMEOUT_MS)
            yield context.new_page()
        finally:
            browser.close()


@pytest.fixture
def server(sample_store: Store, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`streamlit run` of the app script (dashboard/app.py) on a free port of 127.0.0.1, on a
    copy of the sample database; yields (base URL, server log). Killed by its PID at the end."""
    log = tmp_path / "streamlit.log"
    process, url = start_server(sample_store.path, log)
    try:
        yield url, log
    finally:
        stop(process)
