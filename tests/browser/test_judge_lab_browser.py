"""The Judge lab in Chromium on the sample with the offline judge: the dev disagreements are
listed, the prompt is edited and saved (the diff shown), the version runs on the labelled
answers, is compared on test and adopted; the judge card then shows. Every step waits for
what it needs (the machine is shared), never for the network to fall idle."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from dashboard.judging import BackgroundLoop, run_judges
from dashboard.judging.panel_files import SelfHostedJudge, save_panel
from dashboard.settings import PANELS_ENV
from dashboard.store import Store
from tests.browser.support import (
    STEP_TIMEOUT_MS,
    commit_text,
    go,
    settled,
    shoot,
    start_server,
    stop,
)
from tests.support.judge_server import JudgeServer, ModelScript

pytestmark = pytest.mark.browser

# The parent version's template, once the text area is drawn with it (it can be read empty
# while a run redraws it, and an empty template would be saved as the edit).
PARENT_TEMPLATE = re.compile(r"\{\{reference_answer\}\}")


def _keyed(page: Page, key: str) -> Locator:
    """A widget's container by its Streamlit key."""
    return page.locator(f".st-key-{key}")


def _click(page: Page, key: str) -> None:
    settled(page)
    _keyed(page, key).get_by_role("button").click()
    settled(page)


def test_the_judge_lab_loop(server: tuple[str, str], page: Page) -> None:
    url, _ = server
    page.goto(f"{url}/?dataset=eo-rag")
    settled(page)
    go(page, "Judge lab")
    expect(page.get_by_role("heading", name="Dev disagreements, worst first")).to_be_visible(
        timeout=STEP_TIMEOUT_MS
    )
    expect(
        page.get_by_text("disagreements of baseline at version 1 on the dev split")
    ).to_be_visible()

    template = _keyed(page, "jb_lab_template_1").locator("textarea")
    expect(template).to_have_value(PARENT_TEMPLATE, timeout=STEP_TIMEOUT_MS)  # drawn, not empty
    text = template.input_value().replace("{{reference_answer}}", "(not shown)")
    commit_text(page, template, text, page.locator("code").filter(has_text="(not shown)").first)
    expect(_keyed(page, "jb_lab_save").get_by_role("button")).to_be_enabled()  # a diff
    _click(page, "jb_lab_save")
    expect(page.get_by_text("Saved version 1-wb1")).to_be_visible(timeout=STEP_TIMEOUT_MS)

    expect(_keyed(page, "jb_lab_run").get_by_role("button")).to_have_text("Run (30 calls)")
    _click(page, "jb_lab_run")
    expect(page.locator("code").filter(has_text="summary").first).to_be_visible(
        timeout=STEP_TIMEOUT_MS
    )

    _click(page, "jb_lab_compare")
    expect(page.get_by_text("Verdict:", exact=False)).to_be_visible(timeout=STEP_TIMEOUT_MS)

    reason = _keyed(page, "jb_lab_reason").locator("input")
    reason.fill("fewer hints")
    reason.press("Enter")
    settled(page)
    expect(_keyed(page, "jb_lab_adopt").get_by_role("button")).to_be_enabled(
        timeout=STEP_TIMEOUT_MS
    )
    _click(page, "jb_lab_adopt")
    expect(page.get_by_text("Adopted 1-wb1 for baseline on eo-rag")).to_be_visible(
        timeout=STEP_TIMEOUT_MS
    )
    expect(
        page.get_by_text("Judge card: baseline with likert-rag 1-wb1", exact=False)
    ).to_be_visible()


def _loopback_reply(prompt: str) -> str:
    """The loopback judge: a 2 when the edited prompt hides the reference, a 4 otherwise."""
    return "Short.\nRating: [[2]]" if "(not shown)" in prompt else "Fine.\nRating: [[4]]"


def test_the_judge_lab_loop_with_a_judge_on_a_loopback_server(
    sample_store: Store, tmp_path: Path, page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same loop in Chromium with a real model behind real LiteLLM: a self-hosted judge
    (a panel file naming an OpenAI-compatible server on 127.0.0.1); the server counts the
    calls the run makes (the labelled answers only) and that compare and adopt make none."""
    panels = tmp_path / "panels"
    monkeypatch.setenv(PANELS_ENV, str(panels))
    with JudgeServer() as judge:
        judge.script("lab-judge", ModelScript(reply=_loopback_reply))
        save_panel(SelfHostedJudge("lab-loop", "openai/lab-judge", judge.url))
        loop = BackgroundLoop(name="lab-browser")
        try:
            run_judges(sample_store, "lab-loop", "likert-rag", dataset="eo-rag", loop=loop)
        finally:
            loop.close()
        first = judge.stats("lab-judge").requests
        process, url = start_server(
            sample_store.url, tmp_path / "streamlit.log", **{PANELS_ENV: str(panels)}
        )
        try:
            page.goto(f"{url}/judge_lab?dataset=eo-rag&rubric=likert-rag&judge=openai/lab-judge")
            settled(page)
            expect(
                page.get_by_text("disagreements of openai/lab-judge at version 1 on the dev split")
            ).to_be_visible(timeout=STEP_TIMEOUT_MS)
            template = _keyed(page, "jb_lab_template_1").locator("textarea")
            expect(template).to_have_value(PARENT_TEMPLATE, timeout=STEP_TIMEOUT_MS)
            text = template.input_value().replace("{{reference_answer}}", "(not shown)")
            diff = page.locator("code").filter(has_text="(not shown)").first
            commit_text(page, template, text, diff)
            _click(page, "jb_lab_save")
            expect(page.get_by_text("Saved version 1-wb1")).to_be_visible(timeout=STEP_TIMEOUT_MS)
            judges = _keyed(page, "jb_lab_panel").locator("input")
            judges.fill("lab-loop")
            judges.press("Enter")
            settled(page)
            expect(_keyed(page, "jb_lab_run").get_by_role("button")).to_have_text(
                "Run (30 calls)", timeout=STEP_TIMEOUT_MS
            )
            _click(page, "jb_lab_run")
            expect(page.locator("code").filter(has_text="summary").first).to_be_visible(
                timeout=STEP_TIMEOUT_MS
            )
            assert judge.stats("lab-judge").requests == first + 30  # labelled answers only
            _click(page, "jb_lab_compare")
            expect(page.get_by_text("Verdict:", exact=False)).to_be_visible(timeout=STEP_TIMEOUT_MS)
            shoot(page, "judge_lab")
            reason = _keyed(page, "jb_lab_reason").locator("input")
            reason.fill("fewer hints")
            reason.press("Enter")
            settled(page)
            # Adopt is enabled once the reason has reached the server: click it then, not before
            expect(_keyed(page, "jb_lab_adopt").get_by_role("button")).to_be_enabled(
                timeout=STEP_TIMEOUT_MS
            )
            _click(page, "jb_lab_adopt")
            expect(page.get_by_text("Adopted 1-wb1 for openai/lab-judge on eo-rag")).to_be_visible(
                timeout=STEP_TIMEOUT_MS
            )
            assert judge.stats("lab-judge").requests == first + 30  # compare, adopt: no call
        finally:
            stop(process)
