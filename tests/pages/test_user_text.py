"""People's and models' text never renders as Markdown: a campaign named
`**bold** [x](http://127.0.0.1/)` and answers, questions and contexts with bare URLs show as
typed on Campaigns and Annotate (the campaign's queue): as plain text, or escaped where
Streamlit reads Markdown (an expander's label, a highlighted passage), so nothing is bold and
no URL becomes a link. (Chromium: tests/browser/test_user_text.py.)"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.store import Store
from dashboard.ui import md_escape
from tests import builders
from tests.pages.helpers import markdown_texts, page_path, texts

RAW = ("**bold**", "](http", "http://", "www.example", "@example", "**here**")


@pytest.fixture
def linked(store: Store) -> Store:
    builders.user_text(store)
    return store


def _raw(app: AppTest) -> list[str]:
    return [t for t in markdown_texts(app) if any(raw in t for raw in RAW)]


def _open(app: AppTest, page: str) -> AppTest:
    app.run()
    app.selectbox(key="jb_dataset").set_value(builders.URL_DATASET)
    app.text_input(key="jb_annotator").set_value("zoe")
    app.switch_page(page_path(page)).run()
    assert not app.exception, (page, app.exception)
    return app


def test_a_campaign_named_with_markdown_shows_as_typed(app_for, linked: Store) -> None:
    app = _open(app_for(linked), "campaigns")
    labels = [e.proto.label for e in app.get("expander")]
    assert labels == [md_escape(builders.CAMPAIGN_NAME)]
    assert _raw(app) == []


def test_answers_and_contexts_with_urls_show_as_typed(app_for, linked: Store) -> None:
    app = _open(app_for(linked), "annotate")
    app.selectbox(key="annotate_rubric").set_value("likert-rag").run()
    app.selectbox(key="annotate_campaign").set_value(builders.CAMPAIGN_NAME).run()
    assert not app.exception
    assert builders.URL_ANSWER in texts(app, "code")  # plain text, never Markdown
    assert f"Campaign {builders.CAMPAIGN_NAME}" in texts(app, "text")
    shown = markdown_texts(app)
    # the context's passage that supports the reference is highlighted, in escaped Markdown
    highlighted = [t for t in shown if ":orange-background[" in t]
    assert highlighted and all(md_escape("http://127.0.0.1:9/context") in t for t in highlighted)
    assert _raw(app) == []


def test_md_escape_leaves_no_bare_url_to_link() -> None:
    """GFM makes links of bare URLs after the escapes are read: a word joiner breaks them."""
    escaped = md_escape("see HTTP://x.org/a, www.x.org and ana@x.org")
    unescaped = escaped.replace("\\", "")
    assert not any(raw in unescaped.lower() for raw in ("://", "www.", "a@"))
    assert unescaped.replace("\u2060", "") == "see HTTP://x.org/a, www.x.org and ana@x.org"
