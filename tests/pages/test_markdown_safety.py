"""Names that come from data (a dataset's, a system's, a judge's) never reach the browser as
Markdown or as plotly markup.

A database whose dataset, systems and judge carry a Markdown image and an HTML image in their
names is opened on every page; no element that Streamlit renders as Markdown (markdown,
captions, titles, alerts, widget labels) may hold either one unescaped. The figures escape the
names for plotly, which reads a subset of HTML and, in hover texts, %{...} templates.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import charts
from dashboard.metrics.calibration import Confusion
from dashboard.metrics.estimates import Estimate
from dashboard.metrics.overview import HeadToHead, Histogram, Standing
from dashboard.review import failures
from dashboard.review.failures import FailureFilter
from dashboard.store import Store
from dashboard.ui import md_escape
from tests import builders
from tests.pages.helpers import PAGES, markdown_texts, page_path

IMAGE = "![x](http://127.0.0.1:9/x.png)"  # the port is closed: were it ever fetched, no answer
TAG = "<img src=x onerror=alert(1)>"
DATASET = f"d {IMAGE} {TAG}"
SYSTEMS = (f"s1 {IMAGE} {TAG}", f"s2 {IMAGE} {TAG}")
JUDGE = f"j {IMAGE} {TAG}"
RAW = ("![x](", "](http", "<img", "onerror=alert(1)>")


@pytest.fixture
def nasty(store: Store) -> Store:
    """Three items answered by both systems; the judge and a person rated every answer, and
    both compared the systems on every item."""
    items = [builders.item(DATASET, n) for n in range(3)]
    first = [builders.response(it, SYSTEMS[0], f"paris {n}") for n, it in enumerate(items)]
    second = [builders.response(it, SYSTEMS[1], f"lyon {n}") for n, it in enumerate(items)]
    store.add_items(items, first + second)
    ratings = []
    for n, (a, b) in enumerate(zip(first, second)):
        ratings += [
            builders.rating(a, JUDGE, 4 + n % 2),
            builders.rating(b, JUDGE, 1 + n),
            builders.rating(a, "ana", 5, kind="human"),
            builders.rating(b, "ana", 2 + n % 2, kind="human"),
        ]
    store.add_ratings(ratings)
    store.add_preferences(
        [builders.preference(it, a, b, JUDGE, "A") for it, a, b in zip(items, first, second)]
        + [
            builders.preference(it, a, b, "ana", "A" if n else "B", kind="human")
            for n, (it, a, b) in enumerate(zip(items, first, second))
        ]
    )
    return store


def _unescaped(app: AppTest) -> list[str]:
    return [text for text in markdown_texts(app) if any(raw in text for raw in RAW)]


def _open(app: AppTest, page: str) -> AppTest:
    app.run()
    app.selectbox(key="jb_dataset").set_value(DATASET)
    app.text_input(key="jb_annotator").set_value("zoe")
    app.switch_page(page_path(page)).run()
    assert not app.exception, (page, app.exception)
    return app


@pytest.mark.parametrize("page", PAGES)
def test_no_page_renders_a_name_as_markdown(app_for, nasty: Store, page: str) -> None:
    app = _open(app_for(nasty), page)
    assert markdown_texts(app), "nothing was read from the page"
    assert _unescaped(app) == [], page


def test_the_detail_and_the_run_judges_caption_escape_the_names(app_for, nasty: Store) -> None:
    app = _open(app_for(nasty), "failures")
    worst = failures.failures(nasty, FailureFilter(rubric="likert-rag", dataset=DATASET)).rows[0]
    app.selectbox(key="failures_open").set_value(worst.response_id).run()
    assert not app.exception
    assert any(JUDGE in t for t in (e.value for e in app.text))  # as plain text
    assert _unescaped(app) == []
    app.switch_page(page_path("run_judges")).run()
    assert f"Dataset: **{md_escape(DATASET)}** (change it in the sidebar)." in [
        c.value for c in app.caption
    ]


def test_a_judge_named_with_markup_fails_and_its_name_stays_text(app_for, nasty: Store) -> None:
    """A typed model string is the judge's name; LiteLLM knows no such provider, so every
    call fails and the page names the judge in its error."""
    app = _open(app_for(nasty), "run_judges")
    app.radio(key="jb_run_source").set_value("Model strings").run()
    app.text_input(key="jb_run_models").input(JUDGE).run()
    app.selectbox(key="jb_run_rubric").set_value("eve-0-5").run()
    app.button(key="jb_run_plan_button").click().run()
    assert not app.exception
    app.button(key="jb_run_button").click().run(timeout=120)
    assert not app.exception
    failed = [e.value for e in app.error if "call(s) failed" in e.value]
    line = md_escape("the provider rejected the request (HTTP 400)")  # one readable line
    assert failed == [f"{md_escape(JUDGE)}: 6 call(s) failed, the last with: {line}"]
    assert _unescaped(app) == []


def test_deleting_a_dataset_named_with_markup(app_for, nasty: Store) -> None:
    app = _open(app_for(nasty), "data")
    app.selectbox(key="jb_delete_pick").set_value(DATASET).run()
    assert any(md_escape(DATASET) in w.value for w in app.warning)
    app.text_input(key="jb_delete_confirm").input(DATASET).run()
    app.button(key="jb_delete_button").click().run()
    assert not app.exception
    assert f"Deleted {md_escape(DATASET)}." in [i.value for i in app.info]
    assert _unescaped(app) == []
    assert nasty.list_datasets() == []


def test_md_escape_keeps_the_text_and_drops_the_markup() -> None:
    assert md_escape("eo-rag-large v1") == "eo-rag-large v1"
    text = f"{IMAGE} {TAG} *b* _i_ `c` [l](u) www.x.org a@b.c :red[x] $m$ # | ~~s~~ &amp;"
    escaped = md_escape(text)
    # Every character Markdown (or Streamlit's :icon: [color] $math$) reads is a backslash
    # escape, which Markdown shows as the character itself...
    for index, char in enumerate(escaped):
        if char in "![]()*_`:@.$#|~{}+":
            assert escaped[index - 1] == "\\", (char, escaped[: index + 1])
    # ...and < > & are entities, so no tag, autolink or entity of the text is left.
    assert "<" not in escaped and ">" not in escaped
    assert escaped.count("&") == escaped.count("&amp;") + escaped.count("&lt;") + escaped.count(
        "&gt;"
    )
    assert "&amp;amp;" in escaped
    # GFM links a bare URL after reading the escapes: a word joiner inside "://" stops it
    # (tests/browser/test_user_text.py: an escaped URL still became a link in Chromium).
    assert escaped.startswith(
        "\\!\\[x\\]\\(http\\:\u2060//127\\.0\\.0\\.1\\:9/x\\.png\\) &lt;img src=x"
    )
    assert md_escape("- a\n= b") == "\\- a\n\\= b"  # nothing starts a list or a heading


NAME = '<a href="http://127.0.0.1:9">x</a> %{y}'


def _strings(value: object, path: str = "") -> Iterator[tuple[str, str]]:
    """(where, text) for every string of a figure's JSON."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]")


def _figures() -> dict[str, dict]:
    estimate = Estimate(0.5, 0.2, 0.8, 4)
    figures = {
        "histograms": charts.rating_histograms(
            [
                Histogram(NAME, "llm", NAME, (1.0, 2.0), (3, 4)),
                Histogram(NAME, "human", "ana", (2.0,), (1,)),
            ],
            scale=(1, 5),
        ),
        "confusion": charts.confusion_heatmap(Confusion((1.0, 2.0), ((1, 0), (0, 1))), judge=NAME),
        "win_rate": charts.win_rate_matrix(
            [HeadToHead(NAME, "plain", estimate), HeadToHead("plain", NAME, estimate)]
        ),
        "bradley_terry": charts.bradley_terry_ratings(
            [Standing(NAME, 1010, 990, 1030, 4), Standing("plain", 990, 970, 1010, 4)]
        ),
    }
    return {name: json.loads(fig.to_json()) for name, fig in figures.items()}


def test_figures_escape_names_for_plotly() -> None:
    escaped = '&lt;a href="http://127.0.0.1:9"&gt;x&lt;/a&gt; &#37;{y}'
    assert charts.plain(NAME) == escaped
    for name, figure in _figures().items():
        strings = list(_strings(figure))
        shown = [(where, text) for where, text in strings if "127.0.0.1" in text]
        assert shown, name  # the name is in the figure...
        for where, text in shown:  # ...only escaped, and never inside a hover template
            assert "<a" not in text and "%{y}" not in text, (name, where, text)
            assert "hovertemplate" not in where, (name, where, text)
        assert any(text == escaped or text.startswith(escaped) for _, text in shown), name


def test_names_reach_hover_labels_through_customdata() -> None:
    bars = [t for t in _figures()["histograms"]["data"] if t["type"] == "bar"]
    assert bars and all(t["hovertemplate"].startswith("%{customdata[0]}") for t in bars)
    assert all(
        row == [charts.plain(NAME), charts.plain(NAME)] or row[0] == charts.plain(NAME)
        for t in bars
        for row in t["customdata"]
    )
    assert {t["name"] for t in bars} == {charts.plain(NAME)}
