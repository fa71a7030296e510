"""A campaign's instructions in Chromium: the admin's Markdown is formatted beside the answer,
and raw HTML in it is never rendered (no element made from it, no script run)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from dashboard.campaigns import campaigns
from dashboard.judging.rubrics import list_rubrics
from dashboard.store import Store
from tests.browser.support import STEP_TIMEOUT_MS, settled, start_server, stop

RUBRIC = next(r for r in list_rubrics() if r.name == "likert-rag")
GUIDE = (
    "Rate **faithfulness-7c1** only.\n\n"
    '<img src="x" id="jb-injected" onerror="window.__jbPwned = 1">'
    "<script>window.__jbPwned = 2</script>"
)


def test_instructions_render_markdown_and_never_html(
    sample_store: Store, tmp_path: Path, page: Page
) -> None:
    campaigns.create_campaign(
        sample_store,
        "faithful",
        RUBRIC,
        dataset="eo-rag",
        rule="random",
        size=3,
        instructions=GUIDE,
        point_notes={"2": "a wrong date"},
    )
    process, url = start_server(sample_store.url, tmp_path / "log.txt")
    try:
        page.goto(f"{url}/annotate?dataset=eo-rag&annotator=carol&campaign=faithful")
        settled(page)
        expect(page.locator("strong", has_text="faithfulness-7c1")).to_be_visible(
            timeout=STEP_TIMEOUT_MS
        )
        expect(page.get_by_text("— here: a wrong date")).to_be_visible(timeout=STEP_TIMEOUT_MS)
        assert page.locator("#jb-injected").count() == 0
        assert page.evaluate("window.__jbPwned === undefined")
    finally:
        stop(process)
