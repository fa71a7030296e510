"""Several questions in one pass, in Chromium with the keyboard only: a campaign with
instructions, two rubrics, a pass/fail check and tags. Digits answer the outlined question,
Tab moves to the next (then into the comment box), Enter saves them all: a rating per rubric
and a tag label per tag, with the same provenance."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from dashboard.campaigns import campaigns
from dashboard.campaigns.campaigns import CampaignTag
from dashboard.judging.rubrics import list_rubrics
from dashboard.store import Store
from tests.browser.support import STEP_TIMEOUT_MS, keys_ready, settled, shoot, start_server, stop

RUBRICS = {r.name: r for r in list_rubrics()}


def _box(page: Page, key: str):
    return page.locator(f'[class*="st-key-{key}"]:not([data-stale="true"])')


def _focus_on(page: Page, key: str) -> None:
    """The outline (the keys' focus) is on the question with this key."""
    page.wait_for_function(
        "(key) => (document.getElementById('jb-question-focus') || {}).textContent"
        "?.includes(`st-key-${key}`)",
        arg=key,
        timeout=STEP_TIMEOUT_MS,
    )


def test_a_form_of_several_questions_is_answered_and_saved_with_the_keyboard(
    sample_store: Store, tmp_path: Path, page: Page
) -> None:
    campaigns.create_campaign(
        sample_store,
        "multi",
        RUBRICS["likert-rag"],
        dataset="eo-rag",
        rule="random",
        size=4,
        instructions="Check **each claim** against the context.",
        tags=[CampaignTag("hallucination", "not in the context"), CampaignTag("incomplete")],
        questions=[RUBRICS["eve-0-5"], RUBRICS["pass-fail"]],
    )
    process, url = start_server(sample_store.url, tmp_path / "log.txt")
    try:
        page.goto(f"{url}/annotate?dataset=eo-rag&annotator=kim&campaign=multi&rubric=likert-rag")
        settled(page)
        expect(page.locator("strong", has_text="each claim")).to_be_visible(timeout=STEP_TIMEOUT_MS)
        keys_ready(page, "4")
        shoot(page, "campaign_form", whole=False)
        _focus_on(page, "annotate_value_")
        page.keyboard.press("4")
        expect(_box(page, "annotate_value_").get_by_role("radio", name="4")).to_be_checked()
        page.keyboard.press("Tab")
        _focus_on(page, "annotate_q1_")
        page.keyboard.press("3")
        expect(_box(page, "annotate_q1_").get_by_role("radio", name="3")).to_be_checked()
        page.keyboard.press("Tab")
        _focus_on(page, "annotate_q2_")
        page.keyboard.press("0")
        expect(_box(page, "annotate_q2_").get_by_role("radio", name="0 fail")).to_be_checked()
        page.keyboard.press("Tab")
        _focus_on(page, "annotate_tags_")
        page.keyboard.press("2")
        expect(_box(page, "annotate_tags_").get_by_role("checkbox").nth(1)).to_be_checked()
        expect(_box(page, "annotate_tags_").get_by_role("checkbox").nth(0)).not_to_be_checked()
        page.keyboard.press("Tab")
        comment = _box(page, "annotate_comment_").locator("input")
        expect(comment).to_be_focused(timeout=STEP_TIMEOUT_MS)
        page.keyboard.type("misses the year")
        page.keyboard.press("Enter")
        expect(page.get_by_text("Saved your rating (4, eve-0-5 3, pass-fail fail)")).to_be_visible(
            timeout=STEP_TIMEOUT_MS
        )
        settled(page)
    finally:
        stop(process)
    with sample_store.connection() as con:
        ratings = con.execute(
            "SELECT rubric, value, comment, response_id, campaign, selection, blind, source, "
            "created_utc FROM current_ratings WHERE rater = 'kim' ORDER BY rubric"
        ).fetchall()
        tags = con.execute(
            "SELECT tag, ticked, response_id, campaign, selection, blind, source, created_utc "
            "FROM tag_labels WHERE rater = 'kim' ORDER BY tag"
        ).fetchall()
    assert [r[:3] for r in ratings] == [
        ("eve-0-5", 3.0, None),
        ("likert-rag", 4.0, "misses the year"),
        ("pass-fail", 0.0, None),
    ]
    assert {r[3:] for r in ratings} == {ratings[0][3:]}
    assert ratings[0][4:8] == ("multi", "random", True, "page")
    assert [t[:2] for t in tags] == [("hallucination", False), ("incomplete", True)]
    assert {t[2:] for t in tags} == {ratings[0][3:]}
