"""Labelling in Chromium: blind by default, 20 answers by keyboard alone, no double save under
a double click, undo with `u`, a reload that keeps the place, and two signed-in people
sharing a campaign with k = 2; on Pairwise, votes by keys, a double click that saves once,
and `u`."""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from dashboard.auth import users
from dashboard.campaigns import campaigns
from dashboard.judging.rubrics import list_rubrics
from dashboard.review import annotation
from dashboard.review.annotation import QueueRequest
from dashboard.store import Store
from tests import builders
from tests.browser.support import (
    STEP_TIMEOUT_MS,
    choose,
    keys_ready,
    new_page,
    settled,
    sign_in,
    start_server,
    stop,
)

RUBRIC = next(r for r in list_rubrics() if r.name == "likert-rag")
JUDGE_TEXT = "JUDGE-EXPLANATION-51c2 all correct"
SAVED = "Saved your rating"


def _rows(store: Store, person: str) -> list[tuple]:
    with store.connection() as con:
        return con.execute(
            "SELECT response_id, value, unscored_reason, blind, campaign FROM ratings "
            "WHERE rater = ? ORDER BY created_utc",
            [person],
        ).fetchall()


def _answer_line(page: Page) -> str:
    """The "dataset · system · task" line of the open answer plus its text."""
    return page.get_by_test_id("stCode").filter(has_text="").nth(1).inner_text()


def _save_by_keys(page: Page, digit: str, n_saved: int) -> float:
    """Press a digit then Enter; wait for the next answer; the seconds it took."""
    page.keyboard.press(digit)
    expect(page.locator('[class*="st-key-annotate_value_"] input:checked')).to_have_count(
        1, timeout=STEP_TIMEOUT_MS
    )
    started = time.perf_counter()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("stAlert").filter(has_text=SAVED)).to_have_count(
        1, timeout=STEP_TIMEOUT_MS
    )
    expect(page.locator('[class*="st-key-annotate_value_"] input:checked')).to_have_count(
        0, timeout=STEP_TIMEOUT_MS
    )
    settled(page)
    return time.perf_counter() - started


def test_keyboard_labelling_blind_double_click_undo_and_reload(
    sample_store: Store, tmp_path: Path, browser: Browser
) -> None:
    request = QueueRequest(rubric=RUBRIC.name, annotator="kim", task_types=RUBRIC.task_types)
    first = annotation.annotation_queue(sample_store, request, limit=1).entries[0]
    sample_store.add_ratings([builders.rating(first, "j-x", 5, explanation=JUDGE_TEXT)])
    process, url = start_server(sample_store.url, tmp_path / "log.txt")
    try:
        page = new_page(browser)
        page.goto(f"{url}/annotate")
        settled(page)
        name = page.get_by_role("textbox", name="Annotator", exact=True)
        name.fill("kim")
        name.press("Enter")
        settled(page)
        # out of the name box (keys typed in a text box are left alone); from here on the
        # labelling is keys only
        page.evaluate("document.activeElement && document.activeElement.blur()")
        # blind: no judge text anywhere before the save
        expect(page.get_by_text(JUDGE_TEXT)).to_have_count(0, timeout=STEP_TIMEOUT_MS)
        assert "j-x" not in page.inner_text("body")
        keys_ready(page, "1")  # the page's key listener is in place before the first digit
        seconds = [_save_by_keys(page, str(1 + i % 5), i + 1) for i in range(20)]
        rows = _rows(sample_store, "kim")
        assert len(rows) == 20 and len({r[0] for r in rows}) == 20
        assert rows[0][0] == first.response_id and all(r[3] is True for r in rows)
        assert sorted(seconds)[18] < 5  # generous here; bench/ measures the p95
        # a double click on Save and next saves once
        page.keyboard.press("3")
        expect(page.locator('[class*="st-key-annotate_value_"] input:checked')).to_have_count(
            1, timeout=STEP_TIMEOUT_MS
        )
        page.locator('[class*="st-key-annotate_save_"] button').dblclick()
        deadline = time.monotonic() + 60
        while len(_rows(sample_store, "kim")) < 21 and time.monotonic() < deadline:
            time.sleep(0.2)
        settled(page)
        time.sleep(1)  # a second save, if any, would have landed by now
        settled(page)
        rows = _rows(sample_store, "kim")
        assert len(rows) == 21 and len({r[0] for r in rows}) == 21, rows[-3:]
        # u undoes the last label: a withdrawal, and its answer is open again
        page.keyboard.press("u")
        expect(page.get_by_text("Undid your last label")).to_be_visible()
        settled(page)
        rows = _rows(sample_store, "kim")
        assert rows[-1][1:3] == (None, annotation.WITHDRAWN) and rows[-1][0] == rows[-2][0]
        # a reload keeps the page, its filters and the open answer
        choose(page, page.locator('[class*="st-key-annotate_order"] input').first, "Worst first")
        page.wait_for_url("**order=worst**")
        time.sleep(1)  # the URL is written at the end of the run
        settled(page)
        before = page.url
        shown = _answer_line(page)
        page.reload()
        settled(page)
        assert page.url == before
        expect(page.get_by_role("heading", name="Annotate", exact=True)).to_be_visible()
        expect(page.locator('[class*="st-key-annotate_order"] input').first).to_have_value(
            "Worst first"
        )
        assert _answer_line(page) == shown
    finally:
        stop(process)


def _sign_in(page: Page, url: str, name: str) -> None:
    page.goto(f"{url}/annotate")
    sign_in(page, name, "password-" + name)


def _label_campaign(page: Page) -> None:
    choose(page, page.locator('[class*="st-key-annotate_campaign"] input').first, "study")
    # the campaign is in force once the order (the campaign's) is disabled
    expect(page.locator('[class*="st-key-annotate_order"] input').first).to_be_disabled(
        timeout=STEP_TIMEOUT_MS
    )
    settled(page)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    keys_ready(page, "4")
    while page.get_by_text("Nothing left to label here").count() == 0:
        page.keyboard.press("4")
        expect(page.locator('[class*="st-key-annotate_value_"] input:checked')).to_have_count(
            1, timeout=STEP_TIMEOUT_MS
        )
        page.keyboard.press("Enter")
        # the next answer's form (nothing checked) or none: the save's run has drawn it (the
        # last save's line may still be on the page until then)
        expect(page.locator('[class*="st-key-annotate_value_"] input:checked')).to_have_count(
            0, timeout=STEP_TIMEOUT_MS
        )
        expect(page.get_by_test_id("stAlert").filter(has_text=SAVED)).to_have_count(
            1, timeout=STEP_TIMEOUT_MS
        )
        settled(page)


def test_two_signed_in_people_share_a_campaign_with_k_two(
    sample_store: Store, tmp_path: Path, browser: Browser
) -> None:
    path = tmp_path / "users.json"
    for person, role in (("pia", "labeller"), ("quinn", "labeller"), ("rex", "labeller")):
        users.add_user(path, person, "password-" + person, role=role)
    made = campaigns.create_campaign(
        sample_store, "study", RUBRIC, dataset="eo-rag", rule="random", size=3, overlap=2
    )
    process, url = start_server(sample_store.url, tmp_path / "log.txt", JUDGEBOARD_USERS=str(path))
    try:
        pages = {person: new_page(browser) for person in ("pia", "quinn", "rex")}
        for person, page in pages.items():
            _sign_in(page, url, person)
        expect(pages["pia"].get_by_role("textbox", name="Annotator")).to_have_count(
            0, timeout=STEP_TIMEOUT_MS
        )
        _label_campaign(pages["pia"])
        _label_campaign(pages["quinn"])
        _label_campaign(pages["rex"])
        pia, quinn, rex = (_rows(sample_store, p) for p in ("pia", "quinn", "rex"))
        assert len(pia) == len(quinn) == made.n_items == 3 and rex == []
        assert {r[0] for r in pia} == {r[0] for r in quinn}
        assert {r[4] for r in pia + quinn} == {"study"}
        # a labeller may not import or delete; a reload keeps the sign-in
        page = pages["rex"]
        page.goto(f"{url}/data")
        expect(page.get_by_text("only an admin may import or delete data")).to_be_visible()
        page.reload()
        expect(page.get_by_text("Signed in as rex")).to_be_visible()
    finally:
        stop(process)


def _votes(store: Store, person: str) -> list[tuple]:
    with store.connection() as con:
        return con.execute(
            "SELECT item_id, verdict, unscored_reason, supersedes FROM preferences "
            "WHERE rater = ? ORDER BY created_utc",
            [person],
        ).fetchall()


def test_pairwise_by_keys_a_double_click_saves_once_and_u_undoes(
    sample_store: Store, tmp_path: Path, browser: Browser
) -> None:
    process, url = start_server(sample_store.url, tmp_path / "log.txt")
    try:
        page = new_page(browser)
        page.goto(f"{url}/pairwise")
        settled(page)
        name = page.get_by_role("textbox", name="Annotator", exact=True)
        name.fill("kim")
        name.press("Enter")
        # the name is taken once the page stops asking for it
        expect(page.get_by_text("Type your name in the sidebar")).to_have_count(
            0, timeout=STEP_TIMEOUT_MS
        )
        settled(page)
        page.evaluate("document.activeElement && document.activeElement.blur()")
        checked = page.locator('[class*="st-key-pairwise_choice_"] input:checked')
        keys_ready(page, "a")
        for n, key in enumerate("abt"):
            page.keyboard.press(key)
            expect(checked).to_have_count(1, timeout=STEP_TIMEOUT_MS)
            page.keyboard.press("Enter")
            expect(page.get_by_text("Saved your vote")).to_be_visible(timeout=STEP_TIMEOUT_MS)
            expect(checked).to_have_count(0, timeout=STEP_TIMEOUT_MS)
            settled(page)
            assert len(_votes(sample_store, "kim")) == n + 1
        assert [v[1] in ("A", "B") for v in _votes(sample_store, "kim")] == [True, True, False]
        # a double click on Save saves once
        page.keyboard.press("a")
        expect(checked).to_have_count(1, timeout=STEP_TIMEOUT_MS)
        page.locator('[class*="st-key-pairwise_save_"] button').dblclick()
        deadline = time.monotonic() + 60
        while len(_votes(sample_store, "kim")) < 4 and time.monotonic() < deadline:
            time.sleep(0.2)
        settled(page)
        time.sleep(1)  # a second save, if any, would have landed by now
        settled(page)
        found = _votes(sample_store, "kim")
        assert len(found) == 4 and len({v[0] for v in found}) == 4, found
        # u undoes the last vote: a withdrawal of it, and its pair is open again
        page.keyboard.press("u")
        expect(page.get_by_text("Undid your last vote")).to_be_visible(timeout=STEP_TIMEOUT_MS)
        settled(page)
        last = _votes(sample_store, "kim")[-1]
        assert last[:3] == (found[-1][0], None, "withdrawn") and last[3] is not None
        expect(page.get_by_text("Your vote: withdrawn")).to_be_visible()
    finally:
        stop(process)
