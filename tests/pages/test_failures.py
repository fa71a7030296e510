"""The Failures page through AppTest on the sample database: list, filters, paging, detail."""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace

from dashboard.metrics import panels
from dashboard.metrics.selection import Selection
from dashboard.review import annotation, failures
from dashboard.review.detail import response_detail
from dashboard.review.failures import FailureFilter
from dashboard.ui import md_escape
from tests import builders
from tests.pages.helpers import markdown_texts, open_page, page_path, texts

PAGE = page_path("failures")
RUBRIC = "likert-rag"
# Markdown or HTML that would load something if an answer were rendered as such.
PAYLOAD = (
    "See ![x](http://127.0.0.1:9/x.png) and <img src=x onerror=alert(1)> "
    "then <script>alert(2)</script> done."
)


def _open(app, page=PAGE):
    return open_page(app, page)


def _table(app):
    return app.dataframe[0].value


def test_failures_lists_the_worst_first_in_pages_of_20(app):
    _open(app)
    table = _table(app)
    assert len(table) == 20 and list(table["#"]) == list(range(1, 21))
    scores = [s for s in table["score"] if s == s]  # unrated (NaN) last
    assert scores == sorted(scores) and scores[0] == 0.0
    assert any(t.startswith("Answers 1–20 of ") for t in texts(app, "text"))
    app.number_input(key="failures_page").set_value(2).run()
    assert list(_table(app)["#"])[0] == 21


def test_filters_narrow_the_list(app):
    _open(app)
    app.text_input(key="failures_search").set_value("thermal").run()
    table = _table(app)
    assert 0 < len(table) < 20
    assert all("thermal" in (q + a).lower() for q, a in zip(table["question"], table["answer"]))
    app.text_input(key="failures_search").set_value("").run()
    app.slider(key="failures_range").set_value((0.0, 0.25)).run()
    assert all(s <= 0.25 for s in _table(app)["score"])
    app.selectbox(key="failures_system").set_value("eo-rag-large").run()
    assert set(_table(app)["system"]) <= {"eo-rag-large"}
    app.slider(key="failures_range").set_value((0.99, 1.0)).run()
    app.selectbox(key="failures_task").set_value("hallucination").run()
    assert not app.exception
    assert any("No answer matches" in t for t in texts(app, "info"))


def test_detail_shows_judge_rating_and_override_with_comment_and_author(app, sample_store):
    first = failures.failures(sample_store, FailureFilter(rubric=RUBRIC)).rows[0]
    judge = builders.rating(
        first,
        "j-alpha",
        5,
        explanation="The band B13 is right.",
        raw_output="Explanation: fine.\nRating: [[5]]",
    )
    sample_store.add_ratings([judge])
    annotation.rate(
        sample_store,
        first.response_id,
        annotator="zoe",
        rubric=RUBRIC,
        rubric_version="1",
        value=1,
        scale=(1, 5),
        overrides=judge.rating_id,
        comment="Sentinel-2 has no band B13.",
    )
    _open(app)
    app.selectbox(key="failures_open").set_value(first.response_id).run()
    assert not app.exception
    lines = texts(app, "text")
    assert any(t.startswith("j-alpha · likert-rag v1 · 5 on 1–5 · current") for t in lines)
    assert "↳ overridden by zoe: 1 on 1–5" in lines
    assert any(t.startswith("zoe · likert-rag v1 · 1 on 1–5 · current") for t in lines)
    assert "↳ overrides j-alpha's rating (5 on 1–5)" in lines
    code = texts(app, "code")
    assert "Sentinel-2 has no band B13." in code and "The band B13 is right." in code
    assert "Explanation: fine.\nRating: [[5]]" in code
    # the detail also shows the question, the reference and the full answer as text
    detail = response_detail(sample_store, first.response_id)
    assert {detail.item.question, detail.response.answer} <= set(code)


def test_model_text_is_shown_as_text_never_as_markdown(app, sample_store):
    it = builders.item("inject", 0)
    bad = builders.response(it, "sys1", PAYLOAD)
    sample_store.add_items([it], [bad, builders.response(it, "sys2", "plain")])
    sample_store.add_ratings([builders.rating(bad, "j1", 1, explanation=PAYLOAD)])
    app.run()
    app.selectbox(key="jb_dataset").set_value("inject").run()
    app.switch_page(PAGE).run()
    app.selectbox(key="failures_open").set_value(bad.response_id).run()
    assert not app.exception
    assert texts(app, "code").count(PAYLOAD) == 2  # the answer and the explanation
    assert not any("<script>" in v or "![x]" in v or "onerror" in v for v in markdown_texts(app))


def test_empty_database_explains_what_to_do(app_for, store):
    app = _open(app_for(store))
    assert any("No ratings yet" in t for t in texts(app, "info"))


def test_a_filter_that_no_longer_applies_is_dropped(app, sample_store):
    it = builders.item("other", 0)
    answer = builders.response(it, "sys1", "an answer")
    sample_store.add_items([it], [answer])
    sample_store.add_ratings([builders.rating(answer, "j1", 2)])
    _open(app)
    app.selectbox(key="failures_system").set_value("eo-rag-large").run()
    app.selectbox(key="jb_dataset").set_value("other").run()
    assert not app.exception, app.exception
    assert app.selectbox(key="failures_system").value == "(any)"
    assert list(_table(app)["system"]) == ["sys1"]


def _response_of(store, external_id, system):
    with store.connection() as con:
        return con.execute(
            "SELECT r.response_id FROM responses r JOIN items i USING (item_id) "
            "WHERE i.external_id = ? AND r.system = ?",
            [external_id, system],
        ).fetchone()[0]


def test_a_rag_answer_opens_its_contexts_with_the_supporting_passage_highlighted(app, sample_store):
    # Not on the list's first page: opened by its link, as a shared one opens it.
    app.query_params["item"] = _response_of(sample_store, "eo-001", "eo-rag-small")
    _open(app)
    expanders = {e.label: e.proto.expanded for e in app.expander}
    assert expanders["Reference context"] is True
    assert expanders["Retrieved contexts (2)"] is True
    highlighted = [m.value for m in app.markdown if ":orange-background[" in m.value]
    # the reference context and the first retrieved passage (the same text) hold it
    assert len(highlighted) == 2
    assert all("Each satellite revisits the same point every 10 days" in h for h in highlighted)
    # the second retrieved passage does not support the reference: plain text
    assert any(c.value.startswith("The Harmonized Landsat") for c in app.code)


def test_several_gold_answers_are_a_list_and_the_dropdown_names_the_question(app, sample_store):
    _open(app)
    labels = app.selectbox(key="failures_open")
    first = failures.failures(sample_store, FailureFilter(rubric=RUBRIC)).rows[0]
    assert labels.format_func(first.response_id).startswith(f"#1 · {first.question[:30]}")
    detail = response_detail(sample_store, first.response_id)
    assert len(detail.item.reference_answers) > 1
    labels.set_value(first.response_id).run()
    code = texts(app, "code")
    for number, answer in enumerate(detail.item.reference_answers, start=1):
        assert f"{number}. {answer}" in code
    assert any(c.startswith("Reference answers (") for c in texts(app, "caption"))


def test_an_unrated_cell_is_blank_and_the_table_fits(app):
    _open(app)
    frame = app.dataframe[0]
    assert frame.proto.placeholder == ""  # a missing human score shows nothing, not None
    assert frame.value["human"].isna().any()
    config = json.loads(frame.proto.columns)
    assert config["#"]["pinned"] is True
    # 990 px of columns and the row boxes fit the ~1034 px the page has at 1400 px
    assert sum(c.get("width", 0) for c in config.values()) == 990


def test_the_panel_column_is_the_named_panels_and_a_one_off_judge_keeps_its_own(app, sample_store):
    """The default panel is a panel file: a one-off judge's rating moves neither the panel
    column nor the ranking; it counts only when the panel is every judge, and the page names
    the panel in use."""
    default = panels.with_panel(sample_store, Selection("eo-rag", RUBRIC))
    assert default.panel_judges  # a panel file, not every judge
    chosen = FailureFilter(
        RUBRIC, dataset="eo-rag", panel_judges=default.panel_judges, panel_version="1"
    )
    worst = failures.failures(sample_store, chosen).rows[-1]  # a scored answer, not the worst
    before = worst.panel
    target = SimpleNamespace(response_id=worst.response_id)
    sample_store.add_ratings([builders.rating(target, "one-off-judge", 5.0)])
    rows = {r.response_id: r for r in failures.failures(sample_store, chosen, page_size=500).rows}
    assert rows[worst.response_id].panel == before
    every = dataclasses.replace(chosen, panel_judges=None, panel_version=None)
    rows = {r.response_id: r for r in failures.failures(sample_store, every, page_size=500).rows}
    assert rows[worst.response_id].panel != before
    open_page(app, PAGE, dataset="eo-rag")
    assert f"Panel **{md_escape(default.panel)}**" in " ".join(texts(app, "caption"))
    app.selectbox(key="jb_panel_failures").set_value("all-judges").run()
    assert f"Panel **{md_escape(panels.ALL_JUDGES)}**: every judge" in " ".join(
        texts(app, "caption")
    )
