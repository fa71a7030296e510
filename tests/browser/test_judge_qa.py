"""Judge QA in Chromium: the Judge QA page draws its bias table; on Calibration, a cell of the
confusion table chosen opens the responses it counts; on Run judges, the self-hosted judge
form saves a panel file and the rubric's prompt is shown. Every step waits for what it needs
(the machine is shared), never for the network to fall idle."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from dashboard.judging import BackgroundLoop, load_panel, run_judges
from dashboard.metrics import calibration_cells
from dashboard.metrics.selection import Selection
from dashboard.settings import PANELS_ENV
from dashboard.store import Store
from tests.browser.support import STEP_TIMEOUT_MS, go, settled


@pytest.fixture
def judged(sample_store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The sample judged by the offline baseline, and a private panels folder (set before the
    server starts, which reads it)."""
    loop = BackgroundLoop(name="browser-judges")
    try:
        run_judges(sample_store, "offline", "likert-rag", dataset="eo-rag", loop=loop)
    finally:
        loop.close()
    folder = tmp_path / "panels"
    monkeypatch.setenv(PANELS_ENV, str(folder))
    yield folder


def _choose(page: Page, label: str, option: str) -> None:
    # Its label exactly: a substring would also find "Panel (its judges)" for "Judge".
    box = page.get_by_test_id("stSelectbox").filter(has=page.get_by_text(label, exact=True))
    box.click()
    page.get_by_role("option", name=option, exact=True).click()
    settled(page)


def test_judge_qa_calibration_cells_and_the_self_hosted_form(
    judged: Path, sample_store: Store, server: tuple[str, Path], page: Page
) -> None:
    url, _ = server
    page.goto(url)
    settled(page)
    _choose(page, "Dataset", "eo-rag")

    go(page, "Judge QA")
    expect(page.get_by_role("heading", name="Bias")).to_be_visible()
    bias_table = page.get_by_test_id("stDataFrame").first
    expect(bias_table).to_be_visible(timeout=STEP_TIMEOUT_MS)
    expect(page.get_by_text("Each cell: estimate [95% bootstrap interval]").first).to_be_visible()

    go(page, "Calibration")
    pairs = calibration_cells.compared_pairs(sample_store, Selection("eo-rag"), "baseline")
    judge_value, person_value = pairs[0].judge_value, pairs[0].person_value
    in_cell = [p for p in pairs if (p.judge_value, p.person_value) == (judge_value, person_value)]
    _choose(page, "Judge", "baseline")
    _choose(page, "Judge's rating", f"{judge_value:g}")
    _choose(page, "Person's rating", f"{person_value:g}")
    expect(page.get_by_text(f"{len(in_cell):,} pairs in the cell: baseline said")).to_be_visible(
        timeout=STEP_TIMEOUT_MS
    )

    go(page, "Run judges")
    page.get_by_text("Define a self-hosted judge").click()
    page.get_by_label("Model (LiteLLM model string)").fill("hosted_vllm/browser-judge")
    page.get_by_label("api_base").fill("http://127.0.0.1:9/v1")
    page.get_by_label("Panel file name").fill("browser-panel")
    page.get_by_role("button", name="Save as a panel file").click()
    expect(page.get_by_text("Saved")).to_be_visible(timeout=STEP_TIMEOUT_MS)
    settled(page)
    saved = judged / "browser-panel.toml"
    assert saved.is_file()
    assert load_panel(saved).judges[0].api_base == "http://127.0.0.1:9/v1"
    page.get_by_text("The prompt of ").first.click()
    expect(page.get_by_text("user message")).to_be_visible(timeout=STEP_TIMEOUT_MS)
    expect(page.get_by_test_id("stCode").first).to_be_visible()
