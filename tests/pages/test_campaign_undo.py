"""Undo last on Annotate in a later session, inside a campaign of several questions, through
AppTest on the sample database: `u` takes back the campaign's whole form (its rubric, its
further question and the tags of that save), and not the person's newer label on the same
rubric in their own queue."""

from __future__ import annotations

from dashboard.campaigns import campaigns, tags
from dashboard.judging.rubrics import list_rubrics
from tests.pages.helpers import open_page, page_path, texts
from tests.pages.test_labels_reopened import _reload

ANNOTATE = page_path("annotate")
RUBRICS = {r.name: r for r in list_rubrics()}


def _widget(app, kind, prefix):
    return next(w for w in getattr(app, kind) if (w.key or "").startswith(prefix))


def _current(store):
    with store.connection() as con:
        return con.execute(
            "SELECT response_id, rubric, value, campaign FROM current_ratings "
            "WHERE rater_kind = 'human' AND rater = 'zoe' ORDER BY response_id, rubric"
        ).fetchall()


def test_u_in_a_later_session_undoes_the_campaigns_form_only(app, sample_store):
    campaigns.create_campaign(
        sample_store,
        "multi",
        RUBRICS["likert-rag"],
        dataset="eo-rag",
        rule="random",
        size=4,
        questions=[RUBRICS["pass-fail"]],
        tags=[campaigns.CampaignTag("incomplete")],
    )
    open_page(app, ANNOTATE, dataset="eo-rag", annotator="zoe")
    app.selectbox(key="annotate_rubric").set_value("likert-rag").run()
    app.selectbox(key="annotate_campaign").set_value("multi").run()
    _widget(app, "radio", "annotate_value_").set_value(4.0)
    _widget(app, "radio", "annotate_q1_").set_value(1.0)
    next(b for b in app.checkbox if b.label == "incomplete").check()
    _widget(app, "text_input", "annotate_comment_").set_value("misses the date")
    _widget(app, "button", "annotate_save_").click().run()
    assert not app.exception, app.exception
    (answer,) = {r[0] for r in _current(sample_store)}
    assert tags.ticked_by(sample_store, answer, "zoe", "multi") == {"incomplete"}
    # Then a label on the same rubric in the person's own queue: the newest on the rubric.
    app.selectbox(key="annotate_campaign").set_value(None).run()
    _widget(app, "radio", "annotate_value_").set_value(2.0)
    _widget(app, "button", "annotate_save_").click().run()
    assert not app.exception, app.exception
    before = _current(sample_store)
    (own,) = [r for r in before if r[3] is None]

    params = {k: app.query_params[k] for k in app.query_params if k != "item"}
    params.update(annotator="zoe", rubric="likert-rag", campaign="multi")
    later = _reload(app, params, page=ANNOTATE)
    assert later.selectbox(key="annotate_campaign").value == "multi"
    next(b for b in later.button if b.key == "annotate_undo_button").click().run()
    assert not later.exception, later.exception
    assert any("Undid your last label" in s for s in texts(later, "success"))
    after = _current(sample_store)
    assert own in after  # the queue's label stays
    assert [(r[1], r[2]) for r in after if r[0] == answer and r[3] == "multi"] == [
        ("likert-rag", None),
        ("pass-fail", None),
    ]  # the form's two labels withdrawn together
    assert tags.ticked_by(sample_store, answer, "zoe", "multi") == frozenset()
    assert tags.tag_shares(sample_store) == []  # its tag taken back with it
