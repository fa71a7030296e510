"""The labelling benchmark's moving parts: the served dashboard and the scripted labellers.

`serve` runs `streamlit run dashboard/app.py` on a free port of 127.0.0.1 (killed by its PID
at the end). `label` drives one Chromium context as one annotator on the Annotate page: it
types its name in the sidebar's Annotator box (no users file: the identity the app uses
then), and then, `saves` times: waits its think time, presses a digit (the keyboard binding
picks that rating; a digit that has rated nothing after 15 s is noted, with what the page
showed, and pressed again), and from the Enter that saves, waits until the next answer is
on the page and the save is confirmed. That interval is one save-and-next:
- Enter pressed ->
- the URL names a different answer (the page writes it at the end of the run that drew it),
- the script run has finished (`data-test-script-state` = notRunning), and
- the run shows the "Saved your rating" line (a save that went to the journal says so).
The answer each save was made on is taken from the URL before the save, so the database can
be checked afterwards: each save is exactly one row.
"""

from __future__ import annotations

import asyncio
import os
import random
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from playwright.async_api import Browser, Page, TimeoutError as PlaywrightTimeout

REPO_ROOT = Path(__file__).resolve().parents[1]
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
VIEWPORT = {"width": 1400, "height": 1000}
STEP_TIMEOUT_MS = 120_000
KEY_TIMEOUT_MS = 15_000  # a digit whose rating has not shown by then is pressed again
SAVED = "Saved your rating"
PENDING = "applied when the file is free"
POLL_MS = 20

# True once the next answer is drawn and the run that drew it confirmed the save.
_NEXT_SHOWN = """([previous, saved]) => {
  if (document.querySelector('[data-testid="stException"]')) return true;
  const item = new URLSearchParams(window.location.search).get("item");
  const app = document.querySelector('[data-testid="stApp"]');
  if (!item || item === previous || !app) return false;
  if (app.getAttribute("data-test-script-state") !== "notRunning") return false;
  const alerts = Array.from(document.querySelectorAll('[data-testid="stAlert"]'));
  return alerts.some((a) => a.innerText.includes(saved));
}"""
_STATE = """() => ({
  url: window.location.search,
  script: document.querySelector('[data-testid="stApp"]')?.getAttribute("data-test-script-state"),
  alerts: Array.from(document.querySelectorAll('[data-testid="stAlert"]')).map((a) => a.innerText),
  checked: document.querySelectorAll('[class*="st-key-annotate_value_"] input:checked').length,
  radios: Array.from(document.querySelectorAll('[class*="st-key-annotate_value_"]')).map((b) =>
    `${b.getAttribute("data-stale")}:${b.querySelectorAll("label").length}`),
  focus: document.activeElement ? document.activeElement.tagName : null,
  keys: Object.keys(window.__jbKeys || {}).join(""),
})"""
_NAMED = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return app && app.getAttribute("data-test-script-state") === "notRunning" &&
    document.body.innerText.includes("Your labels on this rubric") &&
    !document.body.innerText.includes("Type your name in the sidebar");
}"""
_ITEM = "() => new URLSearchParams(window.location.search).get('item')"
_SETTLED = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return app && app.getAttribute("data-test-script-state") === "notRunning";
}"""


@dataclass(frozen=True)
class Save:
    """One save-and-next: who, on which answer, its seconds, when it started (monotonic);
    `key_lost`: what the page showed when the digit rated nothing (pressed again), if so."""

    person: str
    response_id: str
    seconds: float
    started: float
    pending: bool
    key_lost: str | None = None


@dataclass(frozen=True)
class Stuck:
    """A save whose next answer never came (within STEP_TIMEOUT_MS): what the page showed."""

    person: str
    response_id: str
    state: str


class SaveStuck(RuntimeError):
    def __init__(self, stuck: Stuck) -> None:
        super().__init__(f"{stuck.person}: no next answer after saving {stuck.response_id}")
        self.stuck = stuck


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _healthy(url: str, process: subprocess.Popen[bytes], timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the dashboard exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"the dashboard did not answer within {timeout_s:.0f} s")


@contextmanager
def serve(
    db: Path, log: Path, timings: Path | None = None, env: Mapping[str, str] | None = None
) -> Iterator[tuple[str, int]]:
    """The dashboard on the database, on 127.0.0.1, started as `judgeboard serve` starts it;
    yields (base URL, server PID). With `timings`, the server writes there the server's part
    of each run a browser asks for (`bench/timed_server.py`); `env` is added to its
    environment."""
    from dashboard.cli.serve import streamlit_command

    port = _free_port()
    command = streamlit_command(address="127.0.0.1", port=port)  # what `judgeboard serve` runs
    if timings is not None:
        assert command[1:3] == ["-m", "streamlit"], command
        command[2:3] = ["bench.timed_server", str(timings)]
    command += ["--server.fileWatcherType", "none"]
    environment = {**os.environ, **(env or {}), "JUDGEBOARD_DB": str(db)}
    environment.pop("JUDGEBOARD_USERS", None)  # no users file: the Annotator box names them
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command, cwd=REPO_ROOT, env=environment, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        url = f"http://127.0.0.1:{port}"
        _healthy(url, process)
        yield url, process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)


async def _settled(page: Page) -> None:
    await page.wait_for_function(_SETTLED, polling=POLL_MS, timeout=STEP_TIMEOUT_MS)
    if await page.get_by_test_id("stException").count():
        raise RuntimeError("the Annotate page shows an exception")


async def _item(page: Page) -> str:
    found = await page.evaluate(_ITEM)
    if not found:
        raise RuntimeError("the Annotate page names no open answer (nothing left to label?)")
    return str(found)


async def open_annotate(browser: Browser, url: str, person: str, seed: int) -> Page:
    """A new context on the Annotate page (random order, its own seed), named `person`."""
    context = await browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(STEP_TIMEOUT_MS)
    page = await context.new_page()
    await page.goto(f"{url}/annotate?order=random&seed={seed}")
    await _settled(page)
    name = page.get_by_role("textbox", name="Annotator", exact=True)
    await name.fill(person)
    await name.press("Enter")
    # named once the page no longer asks for a name, at the end of a run
    await page.wait_for_function(_NAMED, polling=POLL_MS, timeout=STEP_TIMEOUT_MS)
    await _settled(page)
    await page.wait_for_function(_ITEM, polling=POLL_MS, timeout=STEP_TIMEOUT_MS)
    # out of the name box: keys typed in a text box are left alone
    await page.evaluate("document.activeElement && document.activeElement.blur()")
    return page


async def save_and_next(page: Page, person: str, digit: str) -> Save:
    """One labelled answer by keys: a digit, then Enter; timed from Enter."""
    before = await _item(page)
    await page.keyboard.press(digit)
    checked = page.locator('[class*="st-key-annotate_value_"] input:checked')
    key_lost = None
    try:
        await checked.wait_for(state="attached", timeout=KEY_TIMEOUT_MS)
    except PlaywrightTimeout:
        # the digit rated nothing: kept as a finding (with the page), and pressed again
        key_lost = str(await page.evaluate(_STATE))
        await page.keyboard.press(digit)
        try:
            await checked.wait_for(state="attached")
        except PlaywrightTimeout as error:
            stuck = Stuck(person, before, f"the digit rated nothing twice: {key_lost}")
            raise SaveStuck(stuck) from error
    started = time.monotonic()
    await page.keyboard.press("Enter")
    try:
        await page.wait_for_function(
            _NEXT_SHOWN, arg=[before, SAVED], polling=POLL_MS, timeout=STEP_TIMEOUT_MS
        )
    except PlaywrightTimeout as error:
        state = str(await page.evaluate(_STATE))
        raise SaveStuck(Stuck(person, before, state)) from error
    seconds = time.monotonic() - started
    if await page.get_by_test_id("stException").count():
        shown = await page.get_by_test_id("stException").first.inner_text()
        raise RuntimeError(f"{person}: the Annotate page raised after a save:\n{shown}")
    pending = PENDING in await page.get_by_test_id("stAlert").first.inner_text()
    return Save(person, before, seconds, started, pending, key_lost)


async def label(
    page: Page,
    person: str,
    saves: int,
    think_s: float,
    seed: int,
    on_save: Callable[[], None] | None = None,
) -> tuple[list[Save], Stuck | None]:
    """`saves` answers labelled in turn, each after a think time of 0.5-1.5 x `think_s`; a
    save that never shows the next answer ends the session (and is reported). `on_save` is
    called after each save."""
    rng = random.Random(seed)
    done: list[Save] = []
    for n in range(saves):
        if think_s > 0:
            await asyncio.sleep(think_s * rng.uniform(0.5, 1.5))
        try:
            done.append(await save_and_next(page, person, str(1 + (n + seed) % 5)))
        except SaveStuck as stuck:
            return done, stuck.stuck
        if on_save is not None:
            on_save()
    return done, None
