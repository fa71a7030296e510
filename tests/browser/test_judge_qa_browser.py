"""Judge QA in Chromium: the Judge QA page draws its bias and rubric-versions sections; on
Calibration, a cell of the confusion table chosen lists the responses it counts; on Run judges,
the self-hosted judge form saves a panel file (in a private folder) and the rubric's prompt is
shown. Every step waits for what it needs (the machine is shared), never for the network to
fall idle."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from dashboard.judging import list_rubrics, load_panel
from dashboard.metrics import calibration
from dashboard.metrics.calibration import calibration_cells
from dashboard.metrics.selection import Selection
from dashboard.settings import PANELS_ENV
from dashboard.store import Store
from dashboard.ui.calibration_cells import KEY as CELL_KEY
from tests.browser.support import STEP_TIMEOUT_MS, choose, go, settled

pytestmark = pytest.mark.browser


@pytest.fixture
def panels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private panels folder, set before the server starts (it reads the variable)."""
    folder = tmp_path / "panels"
    monkeypatch.setenv(PANELS_ENV, str(folder))
    return folder


def _keyed(page: Page, key: str) -> Locator:
    """A widget's container by its Streamlit key."""
    return page.locator(f".st-key-{key}")


def _judge_qa(page: Page) -> None:
    go(page, "Judge QA")
    expect(page.get_by_role("heading", name="Bias", exact=True)).to_be_visible()
    expect(
        page.get_by_text("Each cell: estimate [95% bootstrap interval], in scale")
    ).to_be_visible()
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible(timeout=STEP_TIMEOUT_MS)
    # The sample's baseline judge rated responses people rated, under rubric version 1.
    expect(page.get_by_role("heading", name="Rubric versions", exact=True)).to_be_visible()
    expect(page.get_by_text("On the responses people rated: each judge")).to_be_visible()
    expect(page.get_by_text("Where a version disagrees with people")).to_be_visible()


def _calibration_cell(page: Page, store: Store) -> None:
    go(page, "Calibration")
    selection = Selection("eo-rag")
    judge = calibration.calibration(store, selection).judges[0].judge  # the default choice
    pairs = calibration_cells.compared_pairs(store, selection, judge)
    assert pairs, "the sample has no (judge, person) pair on eo-rag"
    judge_value, person_value = pairs[0].judge_value, pairs[0].person_value
    in_cell = [p for p in pairs if (p.judge_value, p.person_value) == (judge_value, person_value)]
    expect(_keyed(page, f"{CELL_KEY}_judge").get_by_role("combobox")).to_have_value(judge)
    for side, value in (("judge_value", judge_value), ("person_value", person_value)):
        choose(page, _keyed(page, f"{CELL_KEY}_{side}").get_by_role("combobox"), f"{value:g}")
    caption = (
        f"{len(in_cell):,} pairs in the cell: {judge} said {judge_value:g}, "
        f"the person {person_value:g}."
    )
    expect(page.get_by_text(caption)).to_be_visible(timeout=STEP_TIMEOUT_MS)
    # The cell opens the Judge lab's disagreement list: each response of the cell by its
    # question (Streamlit keeps an accessible copy of the grid's cells), with a link to its
    # detail, and a link to the Judge lab for this judge.
    with store.connection() as con:
        questions = dict(
            con.execute(
                "SELECT r.response_id, i.question FROM responses r JOIN items i USING (item_id)"
            ).fetchall()
        )
    tables = page.get_by_test_id("stDataFrame")
    for pair in in_cell:
        expect(tables.get_by_text(questions[pair.response_id], exact=True).first).to_be_attached(
            timeout=STEP_TIMEOUT_MS
        )
    expect(page.get_by_role("link", name="Work on this judge in the Judge lab")).to_be_visible()


def _number(page: Page, label: str, value: str) -> None:
    field = page.get_by_role("spinbutton", name=label, exact=True)
    field.fill(value)
    field.press("Tab")  # committed on blur; Enter would submit the form
    expect(field).to_have_value(value)


def _self_hosted_form(page: Page, panels: Path) -> None:
    go(page, "Run judges")
    page.get_by_text("Define a self-hosted judge").click()
    model = page.get_by_role("textbox", name="Model (LiteLLM model string)")
    expect(model).to_be_visible(timeout=STEP_TIMEOUT_MS)
    model.fill("hosted_vllm/browser-judge")
    page.get_by_role("textbox", name="api_base").fill("http://127.0.0.1:9/v1")
    page.get_by_role("textbox", name="Panel file name").fill("browser-panel")
    _number(page, "Concurrency", "3")
    _number(page, "Max tokens", "256")
    _number(page, "USD per 1k tokens in", "0.0020")
    _number(page, "USD per 1k tokens out", "0.0040")
    page.get_by_role("button", name="Save as a panel file").click()
    saved = panels / "browser-panel.toml"
    expect(page.get_by_text(f"Saved {saved}")).to_be_visible(timeout=STEP_TIMEOUT_MS)
    settled(page)
    assert saved.is_file()
    (judge,) = load_panel(saved).judges
    assert judge.model == "hosted_vllm/browser-judge"
    assert judge.api_base == "http://127.0.0.1:9/v1"
    assert (judge.concurrency, judge.max_tokens) == (3, 256)
    assert judge.input_cost_per_token == pytest.approx(0.002 / 1000)
    assert judge.output_cost_per_token == pytest.approx(0.004 / 1000)
    # The saved panel is the page's chosen panel file.
    chosen = page.get_by_role("combobox", name="Panel file (data/panels/)")
    expect(chosen).to_have_value("browser-panel", timeout=STEP_TIMEOUT_MS)

    name = page.get_by_role("combobox", name="Rubric", exact=True).input_value()
    rubric = next(r for r in list_rubrics() if r.name == name)
    page.get_by_text(f"The prompt of {rubric.name} v{rubric.version}").click()
    expect(page.get_by_text("user message", exact=True)).to_be_visible(timeout=STEP_TIMEOUT_MS)
    line = next(t for t in rubric.template.splitlines() if t.strip())
    expect(page.get_by_test_id("stCode").get_by_text(line.strip()).first).to_be_visible()


def test_judge_qa_calibration_cells_and_the_self_hosted_form(
    panels: Path, sample_store: Store, server: tuple[str, Path], page: Page
) -> None:
    url, _ = server
    page.goto(f"{url}/?dataset=eo-rag")
    settled(page)
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_role("combobox", name="Dataset")).to_have_value("eo-rag")
    _judge_qa(page)
    _calibration_cell(page, sample_store)
    _self_hosted_form(page, panels)
