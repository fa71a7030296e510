"""A judge run's follow-up in Chromium, with a judge on a loopback server through real
LiteLLM whose every call fails: the last run and Retry show in a second tab that did not start
it, and during the retry only one failure box is on the screen (the run going's), not also
the last run's."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import Browser, Page, expect

from dashboard.store import Store
from tests.browser.support import (
    STEP_TIMEOUT_MS,
    new_page,
    settled,
    start_server,
    stop,
)
from tests.support.judge_server import JudgeServer, ModelScript

QUERY = urlencode(
    {
        "dataset": "eo-rag",
        "source": "Model strings",
        "models": "openai/failing-judge",
        "rubric": "eve-0-5",
        "system": "eo-rag-small",
    }
)
LAST_RUN_FAILURE = "call(s) failed, the last with"
GOING_FAILURE = "call(s) failed so far"


def _button(page: Page, name: str):
    return page.get_by_role("button", name=name)


def test_a_second_tab_retries_and_one_failure_box_shows_during_the_retry(
    sample_store: Store, tmp_path: Path, browser: Browser
) -> None:
    with JudgeServer() as judge:
        # every call refused at once (400 is not retried); slow enough to watch a run go
        judge.script(
            "failing-judge", ModelScript(latency_ms=400, fault_rate=1.0, fault_kinds=("400",))
        )
        env = {"OPENAI_API_BASE": judge.url, "OPENAI_API_KEY": "sk-test-loopback"}
        process, url = start_server(sample_store.url, tmp_path / "log.txt", **env)
        try:
            page = new_page(browser)
            page.goto(f"{url}/run_judges?{QUERY}")
            settled(page)
            _button(page, "Plan").click()
            run = page.get_by_role("button", name="Run (")
            expect(run).to_be_visible(timeout=STEP_TIMEOUT_MS)
            run.click()
            retry = page.get_by_role("button", name="Retry the ")
            expect(retry).to_be_visible(timeout=4 * STEP_TIMEOUT_MS)
            settled(page)
            first_requests = judge.stats("failing-judge").requests
            assert first_requests > 0

            other = new_page(browser)
            other.goto(f"{url}/run_judges?dataset=eo-rag")
            settled(other)
            expect(other.get_by_text(LAST_RUN_FAILURE)).to_have_count(1, timeout=STEP_TIMEOUT_MS)
            other_retry = other.get_by_role("button", name="Retry the ")
            expect(other_retry).to_be_visible(timeout=4 * STEP_TIMEOUT_MS)
            settled(other)
            other_retry.click()
            # the retry goes: its own failure box, and no box of the run before it
            expect(other.get_by_text(GOING_FAILURE)).to_be_visible(timeout=4 * STEP_TIMEOUT_MS)
            expect(_button(other, "Cancel the run")).to_be_visible()
            expect(other.get_by_text(LAST_RUN_FAILURE)).to_have_count(0)
            expect(other.get_by_role("button", name="Retry the ")).to_be_visible(
                timeout=4 * STEP_TIMEOUT_MS
            )
            settled(other)
            expect(other.get_by_text(GOING_FAILURE)).to_have_count(0)
            expect(other.get_by_text(LAST_RUN_FAILURE)).to_have_count(1)
            assert judge.stats("failing-judge").requests == 2 * first_requests
        finally:
            stop(process)
