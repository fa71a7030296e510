"""The Annotate page through AppTest on the sample database: the queue, saving a rating or an
override with the annotator's name, and the numbers on Overview and Calibration moving."""

from __future__ import annotations

from dashboard import ui
from dashboard.metrics import calibration, overview
from dashboard.metrics.selection import Selection
from dashboard.review import annotation
from dashboard.review.annotation import QueueRequest
from dashboard.review.detail import response_detail
from dashboard.ui import widgets
from tests import builders
from tests.pages.helpers import markdown_texts, open_page, page_path, texts
from tests.support.locks import database_held

PAGE = page_path("annotate")
RUBRIC = "likert-rag"
DATASET = "eo-rag"
PAYLOAD = (
    "See ![x](http://127.0.0.1:9/x.png) and <img src=x onerror=alert(1)> "
    "then <script>alert(2)</script> done."
)


def _start(app, *, annotator="", dataset=DATASET, page=PAGE):
    return open_page(app, page, dataset=dataset, annotator=annotator)


def _current(store, annotator, order="worst"):
    request = QueueRequest(
        rubric=RUBRIC,
        annotator=annotator,
        dataset=DATASET,
        order=order,
        task_types=("open_qa", "open_qa_context", "conversational_qa"),
    )
    return annotation.annotation_queue(store, request, limit=1)


def _submit(app):
    next(b for b in app.button if b.label == "Save and next").click().run()
    assert not app.exception, app.exception


def _human_rows(store, annotator):
    with store.connection() as con:
        return con.execute(
            "SELECT response_id, rater_kind, value, comment, overrides "
            "FROM ratings WHERE rater = ?",
            [annotator],
        ).fetchall()


def test_annotate_refuses_to_save_without_a_name(app, sample_store):
    _start(app)
    assert any("Annotator box" in w for w in texts(app, "warning"))
    app.radio(key="annotate_value").set_value(2.0)
    _submit(app)
    assert any("Type your name in the sidebar" in e for e in texts(app, "error"))
    with sample_store.connection() as con:
        assert con.execute("SELECT count(*) FROM ratings WHERE rater = ''").fetchone() == (0,)


def test_a_saved_rating_moves_overview_and_calibration(app, sample_store):
    # an answer nobody has rated yet, so that the human mean moves too
    first = _current(sample_store, "zoe", "unlabelled").entries[0]
    selection = Selection(DATASET, RUBRIC)
    before = overview.overview(sample_store, selection)
    before_cal = calibration.calibration(sample_store, selection)
    _start(app, page=page_path("overview"))
    labels_before = _human_labels(app, first.system)
    app.switch_page(page_path("calibration")).run()
    metric_before = _metric(app, "Human labels")

    app.text_input(key="jb_annotator").set_value("zoe")
    app.switch_page(PAGE).run()
    app.selectbox(key="annotate_order").set_value("unlabelled").run()
    remaining = _current(sample_store, "zoe", "unlabelled").remaining
    assert f"Answer 1 of {remaining} still to label" in texts(app, "text")
    app.radio(key="annotate_value").set_value(1.0)
    app.text_input(key="annotate_comment").set_value("Wrong band.")
    _submit(app)
    assert texts(app, "success") == ["Saved your rating (1) as `zoe`."]
    assert _human_rows(sample_store, "zoe") == [
        (first.response_id, "human", 1.0, "Wrong band.", None)
    ]
    # the next answer of the queue is shown at once
    assert f"Answer 1 of {remaining - 1} still to label" in texts(app, "text")
    assert _current(sample_store, "zoe", "unlabelled").entries[0].response_id != first.response_id
    assert app.radio(key="annotate_value").value is None  # the form was cleared

    after = overview.overview(sample_store, selection)
    old, new = (next(r for r in v.systems if r.system == first.system) for v in (before, after))
    old_human, new_human = old.score("human"), new.score("human")
    assert new_human.n == old_human.n + 1 and new_human.value < old_human.value
    after_cal = calibration.calibration(sample_store, selection)
    assert after_cal.n_human_labels == before_cal.n_human_labels + 1
    app.switch_page(page_path("overview")).run()
    assert _human_labels(app, first.system) == labels_before + 1
    app.switch_page(page_path("calibration")).run()
    assert _metric(app, "Human labels") == metric_before + 1


def _human_labels(app, system):
    table = app.dataframe[0].value
    return int(table.loc[table["system"] == system, "human labels"].iloc[0])


def _metric(app, label):
    return int(next(m.value for m in app.metric if m.label == label).replace(",", ""))


def test_an_override_keeps_the_judge_rating(app, sample_store):
    first = _current(sample_store, "zoe").entries[0]
    judge = builders.rating(first, "j-alpha", 5, explanation="All correct.")
    sample_store.add_ratings([judge])
    _start(app, annotator="zoe")
    app.radio(key="annotate_value").set_value(1.0)
    app.selectbox(key="annotate_override").set_value(judge.rating_id)
    _submit(app)
    assert any("needs a comment" in e for e in texts(app, "error"))
    assert _human_rows(sample_store, "zoe") == []

    app.radio(key="annotate_value").set_value(1.0)
    app.selectbox(key="annotate_override").set_value(judge.rating_id)
    app.text_input(key="annotate_comment").set_value("Band B13 does not exist.")
    _submit(app)
    assert texts(app, "success") == ["Saved your override (1) as `zoe`."]
    assert _human_rows(sample_store, "zoe") == [
        (first.response_id, "human", 1.0, "Band B13 does not exist.", judge.rating_id)
    ]
    detail = response_detail(sample_store, first.response_id)
    kept = detail.find(judge.rating_id)
    assert kept.current and kept.rating.value == 5 and len(kept.overridden_by) == 1


def test_queue_orders_and_skip(app, sample_store):
    _start(app, annotator="zoe")
    shown = texts(app, "text")[1]  # "dataset · system · task · id" of the answer shown
    next(b for b in app.button if b.label == "Skip").click().run()
    assert "Answer 2 of" in " ".join(texts(app, "text"))
    assert texts(app, "text")[1] != shown
    next(b for b in app.button if b.label == "Previous").click().run()
    assert texts(app, "text")[1] == shown
    for order in annotation.QUEUE_ORDERS:
        app.selectbox(key="annotate_order").set_value(order).run()
        assert not app.exception, (order, app.exception)
        assert "Answer 1 of" in " ".join(texts(app, "text"))
    app.number_input(key="annotate_seed").set_value(5).run()
    assert not app.exception
    app.selectbox(key="annotate_order").set_value("unlabelled").run()
    # an unlabelled answer shows that no person has rated it yet
    assert any("No person has rated this answer yet" in c for c in texts(app, "caption"))


def test_answer_is_shown_as_text(app, sample_store):
    it = builders.item("inject", 0, task_type="open_qa")
    response = builders.response(it, "sys1", PAYLOAD)
    sample_store.add_items([it], [response])
    _start(app, annotator="zoe", dataset="inject")
    assert PAYLOAD in texts(app, "code")
    assert not any("<script>" in v or "![x]" in v or "onerror" in v for v in markdown_texts(app))


def test_an_annotator_name_is_never_read_as_markdown(app, sample_store):
    name = "![x](http://127.0.0.1:9/x.png) `<img src=x onerror=alert(1)>`"
    _start(app, annotator=name)
    app.radio(key="annotate_value").set_value(4.0)
    _submit(app)
    # inside inline code (backticks in the name made quotes), so nothing in it is rendered
    assert texts(app, "success") == [
        "Saved your rating (4) as `![x](http://127.0.0.1:9/x.png) '<img src=x onerror=alert(1)>'`."
    ]
    with sample_store.connection() as con:
        assert con.execute("SELECT count(*) FROM ratings WHERE rater = ?", [name]).fetchone() == (
            1,
        )


def _judged_first(store):
    """The first answer of zoe's queue, with a judge's rating of 5 to override."""
    first = _current(store, "zoe").entries[0]
    judge = builders.rating(first, "j-alpha", 5, explanation="All correct.")
    store.add_ratings([judge])
    return first, judge


def test_a_refused_label_keeps_what_was_typed(app, sample_store):
    first, judge = _judged_first(sample_store)
    _start(app, annotator="zoe")
    app.radio(key="annotate_value").set_value(1.0)
    app.selectbox(key="annotate_override").set_value(judge.rating_id)
    _submit(app)
    assert any("needs a comment" in e for e in texts(app, "error"))
    assert app.radio(key="annotate_value").value == 1.0
    assert app.selectbox(key="annotate_override").value == judge.rating_id
    # Only the missing comment is added: the rating and the override were kept.
    app.text_input(key="annotate_comment").set_value("Band B13 does not exist.")
    _submit(app)
    assert texts(app, "success") == ["Saved your override (1) as `zoe`."]
    assert _human_rows(sample_store, "zoe") == [
        (first.response_id, "human", 1.0, "Band B13 does not exist.", judge.rating_id)
    ]
    # A saved label empties the form for the next answer.
    assert app.radio(key="annotate_value").value is None
    assert app.selectbox(key="annotate_override").value is None
    assert app.text_input(key="annotate_comment").value == ""


def test_an_override_is_kept_while_another_process_holds_the_database(
    app, sample_store, monkeypatch
):
    # The dashboard's waits, shortened: the file stays held for as long as the test says.
    monkeypatch.setattr(ui, "WAIT_S", 1.0)
    monkeypatch.setattr(ui, "FINGERPRINT_WAIT_S", 0.2)
    first, judge = _judged_first(sample_store)
    _start(app, annotator="zoe")
    app.radio(key="annotate_value").set_value(1.0)
    app.selectbox(key="annotate_override").set_value(judge.rating_id)
    app.text_input(key="annotate_comment").set_value("Band B13 does not exist.")
    with database_held(sample_store.path):
        _submit(app)  # the page runs on what it read last, and the write goes to the spool
        assert texts(app, "success") == ["Saved your override (1) as `zoe`." + widgets.PENDING_NOTE]
        assert len(sample_store.spool.ready_files()) == 1
        assert app.radio(key="annotate_value").value is None
    # The next process to open the file applies it.
    assert _human_rows(sample_store, "zoe") == [
        (first.response_id, "human", 1.0, "Band B13 does not exist.", judge.rating_id)
    ]
    assert not sample_store.spool.ready_files()
    app.run()
    assert not app.exception
    assert "Answer 1 of" in " ".join(texts(app, "text"))
