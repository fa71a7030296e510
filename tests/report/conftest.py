"""Fixtures for the report, export and metrics tests: the sample database with judges' ratings.

`judged_db_path` is the bundled sample (tests/conftest.py) with the offline baseline judge's
ratings of every RAG and conversational answer (rubric likert-rag) and its comparison of
eo-rag-large with eo-rag-small (rubric pairwise), so the report has histograms, calibration
against the sample's human labels, pairwise standings and judge calls. Loading the sample
already runs these (`dashboard.sample.BASELINE_RUNS`); running them here again costs nothing
(calls already made are cached) and keeps these tests whole if the sample's runs change.
It is built once per session; `judged_store` is each test's own copy.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from dashboard.judging import BackgroundLoop, run_judges
from dashboard.store import Store
from tests.conftest import DB_NAME, TEST_WAIT_S
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
ARTIFACTS = REPO_ROOT / "test-artifacts" / "screenshots"
PAIR = ("eo-rag-large", "eo-rag-small")


def copy_db(source: Path, target: Path) -> Path:
    shutil.copyfile(source, target)
    wal = source.with_name(source.name + ".wal")
    if wal.exists():
        shutil.copyfile(wal, target.with_name(target.name + ".wal"))
    return target


@pytest.fixture(scope="session")
def judged_db_path(sample_db_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = copy_db(sample_db_path, tmp_path_factory.mktemp("judged-db") / DB_NAME)
    store = Store(path, wait_s=TEST_WAIT_S)
    # Its own loop: Playwright's sync API may already run one on this thread.
    loop = BackgroundLoop(name="report-test-judges")
    try:
        rated = run_judges(store, "offline", "likert-rag", loop=loop)
        compared = run_judges(
            store, "offline", "pairwise", dataset="eo-rag", pairwise=PAIR, loop=loop
        )
    finally:
        loop.close()
    if rated.failures or compared.failures:
        raise RuntimeError("the offline judge failed on the sample")
    return path


@pytest.fixture
def judged_store(judged_db_path: Path, tmp_path: Path) -> Store:
    return Store(copy_db(judged_db_path, tmp_path / DB_NAME), wait_s=TEST_WAIT_S)


@pytest.fixture(scope="module")
def chromium(judged_db_path: Path) -> Iterator[object]:
    """Debian's Chromium, driven by Playwright, for one test module.

    Playwright's sync API keeps an event loop running on this thread while it is open, and
    building the sample database (and `judgeboard judge`) run the judges with asyncio.run: the
    database is built first, and the browser closes with the module, so that tests run after
    it in any order can still call asyncio.run.
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
