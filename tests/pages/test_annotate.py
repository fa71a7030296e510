"""The Annotate page through AppTest on the sample database: blind by default, the label's
provenance, edit/undo/withdraw, no double save, the URL, the numbers on Overview and
Calibration moving, and text shown as text."""

from __future__ import annotations

import contextlib

import pytest

from dashboard.metrics import calibration, overview
from dashboard.metrics.selection import Selection
from dashboard.review import annotation
from dashboard.review.annotation import QueueRequest
from dashboard.review.detail import response_detail
from dashboard.ui import session, widgets
from tests import builders
from tests.pages.helpers import markdown_texts, open_page, page_path, texts
from tests.support.locks import database_held

PAGE = page_path("annotate")
RUBRIC = "likert-rag"
DATASET = "eo-rag"
TASKS = ("open_qa", "open_qa_context", "conversational_qa")
PAYLOAD = (
    "See ![x](http://127.0.0.1:9/x.png) and <img src=x onerror=alert(1)> "
    "then <script>alert(2)</script> done."
)
JUDGE_TEXT = "JUDGE-EXPLANATION-7f3a: the band named is right."


def _start(app, *, annotator="", dataset=DATASET, page=PAGE):
    return open_page(app, page, dataset=dataset, annotator=annotator)


def _current(store, annotator, order="random"):
    request = QueueRequest(
        rubric=RUBRIC, annotator=annotator, dataset=DATASET, order=order, task_types=TASKS
    )
    return annotation.annotation_queue(store, request, limit=1)


def _widget(app, kind, prefix):
    found = [w for w in getattr(app, kind) if (w.key or "").startswith(prefix)]
    assert len(found) == 1, (prefix, [w.key for w in getattr(app, kind)])
    return found[0]


def _rate(app, value, *, comment=None, override=None):
    _widget(app, "radio", "annotate_value_").set_value(value)
    if override is not None:
        _widget(app, "selectbox", "annotate_override_").set_value(override)
    if comment is not None:
        _widget(app, "text_input", "annotate_comment_").set_value(comment)
    _submit(app)


def _submit(app):
    _widget(app, "button", "annotate_save_").click().run()
    assert not app.exception, app.exception


def _button(app, key):
    return next(b for b in app.button if b.key == key)


def _rows(store, annotator):
    with store.connection() as con:
        return con.execute(
            "SELECT response_id, value, unscored_reason, comment, overrides, selection, "
            "inclusion_probability, campaign, blind, supersedes "
            "FROM ratings WHERE rater = ? ORDER BY created_utc",
            [annotator],
        ).fetchall()


def _shown_answer(app):
    return texts(app, "text")[1]  # "dataset · system · task · id" of the answer shown


def _judged_first(store, annotator="zoe"):
    """The first answer of the person's queue, with a judge's rating of 5 to override."""
    first = _current(store, annotator).entries[0]
    judge = builders.rating(first, "j-alpha", 5, explanation=JUDGE_TEXT)
    store.add_ratings([judge])
    return first, judge


def _everything(app):
    return [*texts(app, "code"), *texts(app, "text"), *markdown_texts(app)]


def test_annotate_refuses_to_save_without_a_name(app, sample_store):
    _start(app)
    assert any("Annotator box" in w for w in texts(app, "warning"))
    _rate(app, 2.0)
    assert any("Type your name in the sidebar" in e for e in texts(app, "error"))
    with sample_store.connection() as con:
        assert con.execute("SELECT count(*) FROM ratings WHERE rater = ''").fetchone() == (0,)


def test_blind_by_default_then_revealed_after_the_save(app, sample_store):
    first, judge = _judged_first(sample_store)
    other = builders.rating(first, "yan", 2, kind="human", comment="OTHER-PERSON-NOTE")
    sample_store.add_ratings([other])
    _start(app, annotator="zoe")
    assert app.toggle(key="annotate_blind").value is True
    page = " ".join(_everything(app))
    assert "j-alpha" not in page and JUDGE_TEXT not in page and "OTHER-PERSON-NOTE" not in page
    assert not [s for s in app.selectbox if (s.key or "").startswith("annotate_override_")]
    _rate(app, 3.0)
    assert texts(app, "success") == ["Saved your rating (3) as `zoe`."]
    (row,) = _rows(sample_store, "zoe")
    assert row[0] == first.response_id and row[1] == 3.0
    assert row[5:9] == ("random", None, None, True)  # selection, probability, campaign, blind
    # Reopened from Your labels, the judges can be revealed; a change made then is not blind.
    app.selectbox(key="annotate_mine_pick").set_value(first.response_id).run()
    _button(app, "annotate_mine_open").click().run()
    assert JUDGE_TEXT not in " ".join(_everything(app))
    app.toggle(key=f"annotate_reveal_{first.response_id}").set_value(True).run()
    assert JUDGE_TEXT in texts(app, "code") and "OTHER-PERSON-NOTE" in texts(app, "code")
    _rate(app, 4.0)
    rows = _rows(sample_store, "zoe")
    assert [r[1] for r in rows] == [3.0, 4.0] and rows[1][8] is False
    assert rows[1][9] is not None  # the change supersedes the first label


def test_a_targeted_order_is_recorded_as_targeted(app, sample_store):
    _start(app, annotator="zoe")
    app.selectbox(key="annotate_order").set_value("worst").run()
    _rate(app, 2.0)
    (row,) = _rows(sample_store, "zoe")
    assert row[5] == "targeted" and row[8] is True


def test_undo_then_change_then_withdraw(app, sample_store):
    _start(app, annotator="zoe")
    first = _shown_answer(app)
    _rate(app, 4.0)
    assert _shown_answer(app) != first  # the next answer, in the same run
    _button(app, "annotate_undo_button").click().run()
    assert _shown_answer(app) == first  # back to the answer whose label was undone
    rows = _rows(sample_store, "zoe")
    assert [(r[1], r[2]) for r in rows] == [(4.0, None), (None, annotation.WITHDRAWN)]
    assert rows[1][9] is not None
    _rate(app, 2.0)  # labelled again
    response_id = rows[0][0]
    app.selectbox(key="annotate_mine_pick").set_value(response_id).run()
    _button(app, "annotate_mine_open").click().run()
    assert "Your label: 2." in " ".join(texts(app, "text"))
    _button(app, "annotate_withdraw").click().run()
    rows = _rows(sample_store, "zoe")
    assert [(r[1], r[2]) for r in rows] == [
        (4.0, None),
        (None, "withdrawn"),
        (2.0, None),
        (None, "withdrawn"),
    ]
    # withdrawn: the person's label counts in no metric
    detail = response_detail(sample_store, response_id)
    assert all(e.rating.value is None for e in detail.human_ratings if e.current)
    # and an undo of the withdrawal brings the label of 2 back
    _button(app, "annotate_undo_button").click().run()
    assert [r[1] for r in _rows(sample_store, "zoe")][-1] == 2.0


def test_a_saved_rating_moves_overview_and_calibration(app, sample_store):
    first = _current(sample_store, "zoe", "unlabelled").entries[0]
    selection = Selection(DATASET, RUBRIC)
    before = overview.overview(sample_store, selection)
    before_cal = calibration.calibration(sample_store, selection)
    _start(app, annotator="zoe")
    app.selectbox(key="annotate_order").set_value("unlabelled").run()
    remaining = _current(sample_store, "zoe", "unlabelled").remaining
    assert f"Answer 1 of {remaining} still to label" in texts(app, "text")
    _rate(app, 1.0, comment="Wrong band.")
    assert texts(app, "success") == ["Saved your rating (1) as `zoe`."]
    assert [r[:4] for r in _rows(sample_store, "zoe")] == [
        (first.response_id, 1.0, None, "Wrong band.")
    ]
    assert f"Answer 1 of {remaining - 1} still to label" in texts(app, "text")
    after = overview.overview(sample_store, selection)
    old, new = (next(r for r in v.systems if r.system == first.system) for v in (before, after))
    assert new.score("human").n == old.score("human").n + 1
    assert new.score("human").value < old.score("human").value
    after_cal = calibration.calibration(sample_store, selection)
    assert after_cal.n_human_labels == before_cal.n_human_labels + 1


def test_an_override_when_not_blind_keeps_the_judge_rating(app, sample_store):
    first, judge = _judged_first(sample_store)
    _start(app, annotator="zoe")
    app.toggle(key="annotate_blind").set_value(False).run()
    assert JUDGE_TEXT in texts(app, "code")
    _rate(app, 1.0, override=judge.rating_id)
    assert any("needs a comment" in e for e in texts(app, "error"))
    assert _rows(sample_store, "zoe") == []
    # the refused label kept what was typed: only the comment is added
    assert _widget(app, "radio", "annotate_value_").value == 1.0
    _widget(app, "text_input", "annotate_comment_").set_value("Band B13 does not exist.")
    _submit(app)
    assert texts(app, "success") == ["Saved your override (1) as `zoe`."]
    (row,) = _rows(sample_store, "zoe")
    assert row[:5] == (first.response_id, 1.0, None, "Band B13 does not exist.", judge.rating_id)
    assert row[8] is False
    kept = response_detail(sample_store, first.response_id).find(judge.rating_id)
    assert kept.current and kept.rating.value == 5 and len(kept.overridden_by) == 1


def test_skip_and_the_orders(app, sample_store):
    _start(app, annotator="zoe")
    shown = _shown_answer(app)
    _button(app, "annotate_skip").click().run()
    assert _shown_answer(app) != shown
    for order in annotation.QUEUE_ORDERS:
        app.selectbox(key="annotate_order").set_value(order).run()
        assert not app.exception, (order, app.exception)
        assert "Answer 1 of" in " ".join(texts(app, "text"))
    app.selectbox(key="annotate_order").set_value("random").run()
    app.number_input(key="annotate_seed").set_value(5).run()
    assert not app.exception and "Answer 1 of" in " ".join(texts(app, "text"))


def test_the_url_keeps_the_filters_and_the_open_answer(app, sample_store):
    _start(app, annotator="zoe")
    app.selectbox(key="annotate_order").set_value("worst").run()
    _button(app, "annotate_skip").click().run()
    shown = _shown_answer(app)
    params = {k: app.query_params[k] for k in app.query_params}
    assert params["order"] == "worst" and params["dataset"] == DATASET
    # A new session (a reload, or the link sent to someone) opens the same place.
    from streamlit.testing.v1 import AppTest

    again = AppTest.from_file(str(app._script_path), default_timeout=60)
    for key, value in params.items():
        again.query_params[key] = value
    again.run()
    again.text_input(key="jb_annotator").set_value("zoe")
    again.switch_page(PAGE).run()
    assert not again.exception
    assert again.selectbox(key="annotate_order").value == "worst"
    assert again.selectbox(key="jb_dataset").value == DATASET
    assert _shown_answer(again) == shown


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
    _rate(app, 4.0)
    assert texts(app, "success") == [
        "Saved your rating (4) as `![x](http://127.0.0.1:9/x.png) '<img src=x onerror=alert(1)>'`."
    ]
    assert len(_rows(sample_store, name)) == 1


# file_store: another process holds the DuckDB file; the label waits in its journal.
@pytest.mark.file_store
def test_a_label_is_kept_while_another_process_holds_the_database(app, sample_store, monkeypatch):
    monkeypatch.setattr(session, "WAIT_S", 1.0)
    monkeypatch.setattr(session, "FINGERPRINT_WAIT_S", 0.2)
    _start(app, annotator="zoe")
    shown = _shown_answer(app)
    _widget(app, "radio", "annotate_value_").set_value(1.0)
    with database_held(sample_store.path):
        _submit(app)  # the page runs on what it read last, and the write goes to the spool
        assert texts(app, "success") == ["Saved your rating (1) as `zoe`." + widgets.PENDING_NOTE]
        assert len(sample_store.spool.ready_files()) == 1
    assert [r[1] for r in _rows(sample_store, "zoe")] == [1.0]
    app.run()
    assert not app.exception
    assert _shown_answer(app) != shown  # the labelled answer is not offered again


def test_the_rubric_stays_the_one_picked_across_saves(app, sample_store):
    # the default rubric is read once; the picker keeps its rubric after each save
    _start(app, annotator="zoe")
    assert app.selectbox(key="annotate_rubric").value == RUBRIC
    for value in (2.0, 3.0, 4.0):
        _rate(app, value)
        assert app.selectbox(key="annotate_rubric").value == RUBRIC
    with sample_store.connection() as con:
        rubrics = con.execute("SELECT DISTINCT rubric FROM ratings WHERE rater = 'zoe'").fetchall()
    assert rubrics == [(RUBRIC,)]


# file_store: another process holds the DuckDB file (PostgreSQL has no file lock).
@pytest.mark.file_store
def test_the_saved_line_outlives_a_run_that_found_the_file_held(app, sample_store, monkeypatch):
    # the save lands; before the page draws the next answer another process takes the file
    monkeypatch.setattr(session, "WAIT_S", 0.2)
    monkeypatch.setattr(session, "FINGERPRINT_WAIT_S", 0.2)
    _start(app, annotator="zoe")
    held = contextlib.ExitStack()
    after_write = session.after_write

    def then_held(**kwargs: bool) -> None:
        after_write(**kwargs)
        held.enter_context(database_held(sample_store.path))

    monkeypatch.setattr(session, "after_write", then_held)
    _widget(app, "radio", "annotate_value_").set_value(2.0)
    with held:
        _submit(app)
        assert "is in use by process" in " ".join(texts(app, "warning"))  # in place of the page
    monkeypatch.setattr(session, "after_write", after_write)
    app.run()
    assert not app.exception
    assert [r[1] for r in _rows(sample_store, "zoe")] == [2.0]
    assert texts(app, "success") == ["Saved your rating (2) as `zoe`."]
