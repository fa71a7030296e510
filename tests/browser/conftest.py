"""The `page` fixture: a fresh headless Chromium page (Debian's, driven by Playwright)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, sync_playwright

from tests.browser.support import CHROMIUM, CHROMIUM_ARGS, STEP_TIMEOUT_MS, VIEWPORT


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
