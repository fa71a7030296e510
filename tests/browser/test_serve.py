"""`judgeboard serve` as `make run` starts it: on an empty database it loads the bundled
sample, rates it with the offline baseline judge, and serves pages that show it.

The server is the real command (it replaces itself with `streamlit run`, so the PID we started
is the server's), bound to 127.0.0.1 on a free port, opened in Debian's Chromium.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from dashboard.store import Store
from tests.browser.support import (
    STEP_TIMEOUT_MS,
    free_port,
    go,
    log_tail,
    settled,
    stop,
    wait_for_health,
)

pytestmark = pytest.mark.browser

SAMPLE_DATASETS = ("eo-conversational", "eo-hallucination", "eo-mcqa", "eo-rag")


def test_first_serve_opens_on_the_rated_sample(page: Page, tmp_path: Path) -> None:
    db = tmp_path / "fresh.duckdb"
    port = free_port()
    log = tmp_path / "serve.log"
    command = [sys.executable, "-m", "dashboard.cli", "--db", str(db), "serve", "--port", str(port)]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command, cwd=tmp_path, env=dict(os.environ), stdout=out, stderr=subprocess.STDOUT
        )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for_health(url, process, log)
        page.goto(url)
        # The first page is the Overview, with the baseline judge's rating histogram.
        expect(page.get_by_role("heading", name="Overview", exact=True)).to_be_visible(
            timeout=STEP_TIMEOUT_MS
        )
        settled(page)
        # Streamlit mounts plotly lazily: on a loaded machine the chart may come seconds
        # after the script run ends, so this waits as long as any step.
        expect(
            page.locator(".js-plotly-plot").get_by_text("baseline", exact=True).first
        ).to_be_visible(timeout=STEP_TIMEOUT_MS)
        # The sidebar's dataset filter lists the sample's datasets.
        chooser = page.get_by_role("combobox", name="Dataset")
        chooser.focus()
        chooser.press("ArrowDown")
        for name in SAMPLE_DATASETS:
            expect(page.get_by_role("option", name=name, exact=True)).to_be_visible()
        page.keyboard.press("Escape")
        go(page, "Data")
    finally:
        stop(process)
    text = log.read_text(encoding="utf-8", errors="replace")
    assert "loading the bundled sample" in text and "baseline judge on eo-rag" in text, text
    assert "Traceback" not in text, log_tail(log)
    datasets = {d.name: d for d in Store(db).list_datasets()}
    assert tuple(sorted(datasets)) == SAMPLE_DATASETS
    assert datasets["eo-rag"].n_ratings > datasets["eo-rag"].n_responses  # judged and labelled
