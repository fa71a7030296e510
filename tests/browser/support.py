"""What the browser tests share: Debian's Chromium, a free port on 127.0.0.1, waiting for a
server to answer and for Streamlit to finish a script run. No fixed sleeps: every wait is a
bounded poll or a Playwright expectation."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Locator,
    Page,
    TimeoutError as PlaywrightTimeout,
    expect,
)

from dashboard.cli.serve import streamlit_command
from tests.paths import REPO_ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Generous: two cores shared with other test runs; a cold page imports plotly.
START_TIMEOUT_S = 90
STEP_TIMEOUT_MS = 90_000
# Every expect() without its own timeout: Playwright's 5 s default is too short for a grid or
# a page drawn while other test runs share the cores (a flaky failure, not a slow page).
expect.set_options(timeout=30_000)
VIEWPORT = {"width": 1400, "height": 1000}
# Every page photographed by the browser tests goes to SCREENSHOTS; with
# JUDGEBOARD_UPDATE_SCREENSHOTS=1 also to docs/screenshots/ (the README shows those).
SCREENSHOTS = REPO_ROOT / "test-artifacts" / "screenshots"
DOCS_SCREENSHOTS = REPO_ROOT / "docs" / "screenshots"
UPDATE_ENV = "JUDGEBOARD_UPDATE_SCREENSHOTS"
MAX_SHOT_HEIGHT = 3200
# A selectbox's list: how often it is opened again, and how long each opening is waited for.
LIST_ATTEMPTS = 3
LIST_WAIT_MS = 10_000


def new_context(browser: Browser) -> BrowserContext:
    """A browser context (its own cookies: another person, or another tab's session) at the
    tests' window size, every step waiting up to `STEP_TIMEOUT_MS`."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(STEP_TIMEOUT_MS)
    return context


def new_page(browser: Browser) -> Page:
    """A page in a context of its own (`new_context`)."""
    return new_context(browser).new_page()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def log_tail(log: Path, lines: int = 40) -> str:
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    return "\n".join(text.splitlines()[-lines:])


def wait_for_health(
    url: str, process: subprocess.Popen, log: Path, *, timeout_s: float = START_TIMEOUT_S
) -> None:
    """Bounded poll of /_stcore/health: it only says the server is up, not that pages work
    (the tests check those in the browser)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the server exited with {process.returncode}:\n{log_tail(log)}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.25)
    pytest.fail(f"the server did not answer within {timeout_s:.0f} s:\n{log_tail(log)}")


def stop(process: subprocess.Popen) -> None:
    """End a server this test started, by its PID."""
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=15)


def settled(page: Page) -> None:
    """The script run has finished and no page shows a Python exception."""
    expect(page.get_by_test_id("stApp")).to_have_attribute(
        "data-test-script-state", "notRunning", timeout=STEP_TIMEOUT_MS
    )
    expect(page.get_by_test_id("stException")).to_have_count(0)
    charts = page.locator(".js-plotly-plot .main-svg")
    if charts.count():
        expect(charts.first).to_be_visible(timeout=STEP_TIMEOUT_MS)


def keys_ready(page: Page, key: str) -> None:
    """The page's key listener is installed and knows `key` (its iframe runs after the page
    is drawn; a key pressed before it is heard by nobody)."""
    page.wait_for_function(
        "(key) => window.__jbKeysInstalled && (window.__jbKeys || {})[key] !== undefined",
        arg=key,
        timeout=STEP_TIMEOUT_MS,
    )


def press_until(page: Page, key: str, shown: Locator, tries: int = 3) -> None:
    """Press `key` (a page binding) until `shown` is in the page: a key pressed while a rerun
    installs the page's key listener again is heard by nobody, and a person presses it again.
    Only for keys whose second press does what the first did (a digit picks a value)."""
    for attempt in range(tries):
        keys_ready(page, key)
        page.keyboard.press(key)
        try:
            expect(shown.first).to_be_attached(timeout=STEP_TIMEOUT_MS // 3)
            return
        except AssertionError:
            if attempt == tries - 1:
                raise


def commit_text(page: Page, box: Locator, text: str, shown: Locator, tries: int = 3) -> None:
    """Type `text` into a text area, commit it with Ctrl+Enter and wait until `shown` appears.
    A run still drawing the page when the text is typed redraws the box with its old value;
    the text is typed again then, as a person would."""
    for attempt in range(tries):
        box.fill(text)
        box.press("Control+Enter")
        settled(page)
        try:
            expect(shown).to_be_visible(timeout=STEP_TIMEOUT_MS // 3)
            return
        except AssertionError:
            if attempt == tries - 1:
                raise


def choose(page: Page, field: Locator, option: str, tries: int = LIST_ATTEMPTS) -> None:
    """Pick `option` in a selectbox whose text field is `field`. The keyboard opens the list
    reliably (a click on its text may not); a rerun that draws the page again closes the list,
    so it is opened again, as a person would. The field is scrolled to the middle of the window
    first (the list opens beside it: under a detail brought into view, or at the window's
    bottom edge, it would open outside the window, where no click reaches it)."""
    choice = page.get_by_role("listbox").get_by_role("option", name=option, exact=True)
    for attempt in range(tries):
        settled(page)
        # A turn of the wheel first, as a person scrolls: it tells the page that brings an
        # opened detail into view to stop (a scroll made by a script alone would be undone).
        page.mouse.wheel(0, -1)
        # the middle of the window: a list opened at its bottom edge is placed outside it
        field.evaluate("e => e.scrollIntoView({block: 'center'})")
        field.focus()
        field.press("ArrowDown")
        try:
            choice.wait_for(state="visible", timeout=LIST_WAIT_MS)
            break
        except PlaywrightTimeout:
            field.press("Escape")
            if attempt == tries - 1:
                raise
    choice.click()
    expect(field).to_have_value(option, timeout=STEP_TIMEOUT_MS)
    settled(page)


def sign_in(page: Page, name: str, password: str) -> None:
    """Fill the sign-in form on the page open (the users file's name and password) and wait
    until the page says who is signed in."""
    page.get_by_role("textbox", name="Name").fill(name)
    page.get_by_role("textbox", name="Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_text(f"Signed in as {name}")).to_be_visible(timeout=STEP_TIMEOUT_MS)
    settled(page)


def shoot(page: Page, name: str, *, whole: bool = True) -> None:
    """Save a screenshot; `whole` grows the window to the page's height first (Streamlit
    scrolls inside its main block, so a "full page" shot would stop at the window)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    if whole:
        height = page.get_by_test_id("stMain").evaluate("m => m.scrollHeight")
        page.set_viewport_size(
            {
                "width": VIEWPORT["width"],
                "height": max(VIEWPORT["height"], min(height, MAX_SHOT_HEIGHT)),
            }
        )
        settled(page)
    page.screenshot(path=str(path))
    page.set_viewport_size(VIEWPORT)
    if os.environ.get(UPDATE_ENV) == "1":
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_SCREENSHOTS / path.name)


def go(page: Page, title: str) -> None:
    """Open a page from the sidebar's navigation and wait until it is drawn."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible(
        timeout=STEP_TIMEOUT_MS
    )
    settled(page)


def start_server(db: Path | str, log: Path, **env: str) -> tuple[subprocess.Popen, str]:
    """`streamlit run` of the app script as `judgeboard serve` starts it, on a free port of
    127.0.0.1 on the database `db` (a file or a PostgreSQL URL), with `env` added; once it
    answers, (the process, its base URL). Stop it with `stop`."""
    port = free_port()
    # what `judgeboard serve` runs, without watching the files
    command = [
        *streamlit_command(address="127.0.0.1", port=port),
        "--server.fileWatcherType",
        "none",
    ]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command,
            cwd=REPO_ROOT,
            env={**os.environ, "JUDGEBOARD_DB": str(db), **env},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_health(url, process, log)
    except BaseException:
        stop(process)
        raise
    return process, url
