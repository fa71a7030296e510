"""The browser tests' fixtures: `page`, a fresh headless Chromium page (Debian's, driven by
Playwright), and `server`, the dashboard served on 127.0.0.1 on a copy of the sample."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright

from dashboard.settings import app_script
from dashboard.store import Store
from tests.browser.support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    STEP_TIMEOUT_MS,
    VIEWPORT,
    free_port,
    stop,
    wait_for_health,
)
from tests.paths import REPO_ROOT


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
    port = free_port()
    log = tmp_path / "streamlit.log"
    env = {**os.environ, "JUDGEBOARD_DB": str(sample_store.path)}
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(app_script()),
        "--server.address",
        "127.0.0.1",
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
    ]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command, cwd=REPO_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for_health(url, process, log)
        yield url, log
    finally:
        stop(process)
