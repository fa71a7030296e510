"""Rough edges a newcomer hit on Annotate, through AppTest on the sample database: the name
typed in (no sign-in) kept in the URL across a reload, a link to an answer the person has
already labelled opening that answer with their label picked, and their own labels named by
their question."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from dashboard.judging.rubrics import list_rubrics
from dashboard.review import annotation
from dashboard.review.detail import response_detail
from tests.pages.helpers import open_page, page_path, texts
from tests.pages.test_annotate import DATASET, _current, _shown_answer, _widget

PAGE = page_path("annotate")
RUBRIC = next(r for r in list_rubrics() if r.name == "likert-rag")


def _reload(app: AppTest, params: dict[str, str], *, annotator: str | None = None) -> AppTest:
    """A new session on the same address: what a reload or a shared link gives."""
    again = AppTest.from_file(str(app._script_path), default_timeout=60)
    for key, value in params.items():
        again.query_params[key] = value
    again.run()
    again.switch_page(PAGE).run()
    if annotator is not None:  # typed in on the page the link opened
        again.text_input(key="jb_annotator").set_value(annotator).run()
    assert not again.exception, again.exception
    return again


def _label(store, response_id: str, person: str, value: float) -> None:
    annotation.rate(
        store,
        response_id,
        annotator=person,
        rubric=RUBRIC.name,
        rubric_version=RUBRIC.version,
        value=value,
        scale=(1, 5),
    )


def test_the_name_typed_in_survives_a_reload(app, sample_store):
    open_page(app, PAGE, dataset=DATASET, annotator="carol")
    assert app.query_params["annotator"] == "carol"
    params = {k: app.query_params[k] for k in app.query_params}
    again = _reload(app, params)
    assert again.text_input(key="jb_annotator").value == "carol"
    assert not any("Annotator box" in w for w in texts(again, "warning"))


def test_a_link_to_an_answer_already_labelled_opens_it_with_the_label_picked(app, sample_store):
    first = _current(sample_store, "carol").entries[0].response_id
    _label(sample_store, first, "carol", 4.0)
    opened = response_detail(sample_store, first)
    line = f"{opened.response.system} · {opened.item.task_type} · "
    link = {"dataset": DATASET, "rubric": RUBRIC.name, "item": first}
    # with the name in the link, and with the name typed in after following it
    for params, typed in (({**link, "annotator": "carol"}, None), (link, "carol")):
        again = _reload(app, params, annotator=typed)
        assert line in _shown_answer(again)
        assert "Your label: 4." in " ".join(texts(again, "text"))
        assert _widget(again, "radio", "annotate_value_").value == 4.0
        assert again.query_params["item"] == first
    # saving it again changes the label (a new row superseding the old one)
    _widget(again, "radio", "annotate_value_").set_value(2.0)
    _widget(again, "button", "annotate_save_").click().run()
    mine = [
        e.rating.value
        for e in response_detail(sample_store, first).human_ratings
        if e.current and e.rating.rater == "carol"
    ]
    assert mine == [2.0]


def test_your_labels_are_named_by_their_question(app, sample_store):
    first = _current(sample_store, "carol").entries[0]
    _label(sample_store, first.response_id, "carol", 3.0)
    open_page(app, PAGE, dataset=DATASET, annotator="carol")
    picker = app.selectbox(key="annotate_mine_pick")
    (shown,) = picker.options
    question = " ".join(response_detail(sample_store, first.response_id).item.question.split())
    assert shown.startswith(question[:40]) and " · your 3 · " in shown
    assert first.response_id[:10] not in shown
