"""The labelling pages' key listener (dashboard/ui/keys.py), run in Chromium on a page made to
look like Annotate's mid-redraw: the old answer's radio, marked stale, before the new one."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, sync_playwright

from dashboard.ui import keys
from tests.browser.support import CHROMIUM, CHROMIUM_ARGS


def _radio(key: str, *, stale: bool) -> str:
    """A keyed radio as Streamlit 1.67 draws it: its element container carries both the
    key's class and `data-stale`."""
    options = "".join(
        f'<label><input type="radio" name="{key}" value="{v}"><span>{v}</span></label>'
        for v in range(1, 6)
    )
    marked = "true" if stale else "false"
    return f'<div class="stElementContainer st-key-{key}" data-stale="{marked}">{options}</div>'


PAGE = f"""<html><body>
{_radio("annotate_value_old", stale=True)}
{_radio("annotate_value_new", stale=False)}
<input type="text" id="name">
</body></html>"""


@pytest.fixture
def page() -> Iterator[Page]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            found = browser.new_page()
            found.set_content(PAGE)
            found.add_script_tag(content=keys._LISTENER)
            bindings = {str(v): keys.pick("annotate_value_", str(v)) for v in range(1, 6)}
            found.evaluate(f"window.__jbKeys = {json.dumps(bindings)}")
            yield found
        finally:
            browser.close()


def _checked(page: Page, key: str) -> list[str]:
    return page.eval_on_selector_all(
        f'[name="{key}"]:checked', "(inputs) => inputs.map((i) => i.value)"
    )


def test_a_digit_rates_the_answer_that_is_not_stale(page: Page) -> None:
    page.keyboard.press("4")
    assert _checked(page, "annotate_value_new") == ["4"]
    assert _checked(page, "annotate_value_old") == []


def test_a_digit_typed_in_a_text_box_rates_nothing(page: Page) -> None:
    page.click("#name")
    page.keyboard.press("2")
    assert page.input_value("#name") == "2"
    assert _checked(page, "annotate_value_new") == _checked(page, "annotate_value_old") == []


def test_questions_of_a_form_no_longer_on_the_page_leave_the_keys_alone(page: Page) -> None:
    """A page left with the Annotate form's questions in the map (the map of the last page
    that listened): its digits still go to its own bindings."""
    gone = [{"key": "annotate_gone_", "kind": "pick"}, {"key": "annotate_comment_", "kind": "text"}]
    page.evaluate(f"window.__jbQuestions = {json.dumps({'form': 'x', 'list': gone})}")
    page.keyboard.press("3")
    assert _checked(page, "annotate_value_new") == ["3"]
