"""Undo last on Annotate, through AppTest on the sample database. In a later session, inside a
campaign of several questions: `u` takes back the campaign's whole form (its rubric, its
further question and the tags of that save), and not the person's newer label on the same
rubric in their own queue. Within one session: `u` takes back the last save of the campaign
shown, never one made in another campaign before switching."""

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


def _save(app, value):
    _widget(app, "radio", "annotate_value_").set_value(value)
    _widget(app, "button", "annotate_save_").click().run()
    assert not app.exception, app.exception


def _undo(app):
    next(b for b in app.button if b.key == "annotate_undo_button").click().run()
    assert not app.exception, app.exception


def _open(app):
    """The answer open on the page (the URL's `item`)."""
    item = app.query_params.get("item")
    return item[0] if isinstance(item, list) else item


def _labels(store, campaign):
    """zoe's current values on likert-rag in `campaign`: {answer: value (None: withdrawn)}."""
    return {r[0]: r[2] for r in _current(store) if r[1] == "likert-rag" and r[3] == campaign}


def test_undo_within_a_session_takes_back_the_last_save_of_the_campaign_shown(app, sample_store):
    """One session: a label in A, then B shown, Undo leaves A's label (B has none to take
    back); a label in B, Undo takes it back; A shown again, Undo takes A's label back."""
    for name in ("camp-a", "camp-b"):
        campaigns.create_campaign(
            sample_store, name, RUBRICS["likert-rag"], dataset="eo-rag", rule="random", size=4
        )
    open_page(app, ANNOTATE, dataset="eo-rag", annotator="zoe")
    app.selectbox(key="annotate_rubric").set_value("likert-rag").run()
    app.selectbox(key="annotate_campaign").set_value("camp-a").run()
    _save(app, 4.0)
    (in_a,) = _labels(sample_store, "camp-a")
    assert _labels(sample_store, "camp-a") == {in_a: 4.0}

    app.selectbox(key="annotate_campaign").set_value("camp-b").run()
    # Nothing of camp-b to take back, in this session or the store: Undo last is off (the
    # key u clicks that button, so it takes nothing back either), and A's label stays.
    undo = next(b for b in app.button if b.key == "annotate_undo_button")
    assert undo.disabled
    assert _labels(sample_store, "camp-a") == {in_a: 4.0}

    # B's answer another than A's (one person's label of an answer is one, in any campaign).
    for _ in range(4):
        if _open(app) != in_a:
            break
        next(b for b in app.button if b.key == "annotate_skip").click().run()
    assert _open(app) not in (None, in_a)
    _save(app, 2.0)
    (in_b,) = _labels(sample_store, "camp-b")
    _undo(app)
    assert any("Undid your last label" in s for s in texts(app, "success"))
    assert _labels(sample_store, "camp-b") == {in_b: None}  # B's label withdrawn
    assert _labels(sample_store, "camp-a") == {in_a: 4.0}  # A's stays

    app.selectbox(key="annotate_campaign").set_value("camp-a").run()
    _undo(app)
    assert _labels(sample_store, "camp-a") == {in_a: None}  # A's label withdrawn now
    assert _labels(sample_store, "camp-b") == {in_b: None}
