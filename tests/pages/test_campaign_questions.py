"""Several questions in one pass, through AppTest on the sample database: a campaign made on
the Campaigns page asks two rubrics, a pass/fail check and tags; one save on Annotate stores a
rating per rubric and a tag label per tag, all with the same person, time and provenance, in
one transaction; a form with a question unanswered is refused whole; Undo last and Withdraw
take the whole save back."""

from __future__ import annotations

import pytest

from dashboard.campaigns import campaigns
from dashboard.judging.rubrics import list_rubrics
from dashboard.store.migrations import MIGRATIONS
from tests.pages.helpers import open_page, page_path

ANNOTATE = page_path("annotate")
CAMPAIGNS = page_path("campaigns")
RUBRICS = {r.name: r for r in list_rubrics()}


def _ratings(store):
    with store.connection() as con:
        return con.execute(
            "SELECT response_id, rubric, value, rater, campaign, selection, blind, source, "
            "created_utc, comment FROM current_ratings WHERE rater_kind = 'human' "
            "AND rater = 'zoe' AND value IS NOT NULL ORDER BY rubric"
        ).fetchall()


def _tags(store):
    with store.connection() as con:
        return con.execute(
            "SELECT response_id, tag, ticked, rater, campaign, selection, blind, source, "
            "created_utc FROM tag_labels WHERE NOT superseded ORDER BY tag"
        ).fetchall()


def _made_on_the_page(app) -> None:
    open_page(app, CAMPAIGNS, dataset="eo-rag", annotator="zoe")
    app.text_input(key="campaign_name").set_value("multi")
    app.selectbox(key="campaign_rubric").set_value("likert-rag")
    app.multiselect(key="campaign_questions").select("eve-0-5").select("pass-fail")
    app.text_area(key="campaign_instructions").set_value("Rate **the answer** only.")
    app.text_area(key="campaign_tags").set_value("hallucination: not in the context\nincomplete")
    next(b for b in app.button if b.label == "Create").click().run()
    assert not app.exception, app.exception


def _widget(found, prefix):
    return next(w for w in found if (w.key or "").startswith(prefix))


def test_a_campaign_of_several_questions_saves_each_answer_as_its_own_label(app, sample_store):
    assert MIGRATIONS[19][0] == "campaign_questions"  # migration 20
    _made_on_the_page(app)
    (made,) = campaigns.list_campaigns(sample_store)
    assert campaigns.rubric_names(made) == ["likert-rag", "eve-0-5", "pass-fail"]
    assert "likert-rag + eve-0-5 + pass-fail" in " ".join(t.value for t in app.text)

    app.switch_page(ANNOTATE).run()
    app.selectbox(key="annotate_rubric").set_value("likert-rag").run()
    app.selectbox(key="annotate_campaign").set_value("multi").run()
    assert not app.exception, app.exception
    labels = [r.label for r in app.radio if (r.key or "").startswith("annotate_")]
    assert labels[1:] == [
        "eve-0-5 (0 = worst, 5 = best)",
        "Pass/fail check: pass-fail (0 = fail, 1 = pass)",
    ]
    # One question left unanswered: refused whole, naming it; nothing is written.
    _widget(app.radio, "annotate_value_").set_value(4.0)
    _widget(app.radio, "annotate_q1_").set_value(3.0)
    _widget(app.button, "annotate_save_").click().run()
    (refused,) = [e.value.replace("\\", "") for e in app.error]  # shown Markdown-escaped
    assert refused == "Answer every question before saving: pass-fail has no answer yet."
    assert _ratings(sample_store) == [] and _tags(sample_store) == []

    _widget(app.radio, "annotate_q2_").set_value(0.0)
    next(b for b in app.checkbox if b.label == "incomplete").check()
    _widget(app.text_input, "annotate_comment_").set_value("misses the date")
    _widget(app.button, "annotate_save_").click().run()
    assert not app.exception, app.exception
    assert not app.error
    saved = _ratings(sample_store)
    assert [(r[1], r[2]) for r in saved] == [
        ("eve-0-5", 3.0),
        ("likert-rag", 4.0),
        ("pass-fail", 0),
    ]
    # The same answer, person, campaign, provenance and time on every label.
    assert len({r[0] for r in saved}) == 1
    assert {r[3:9] for r in saved} == {saved[0][3:9]}
    assert saved[0][4:8] == ("multi", "random", True, "page")
    assert [r[9] for r in saved] == [None, "misses the date", None]  # the comment: one label
    tags = _tags(sample_store)
    assert [(t[1], t[2]) for t in tags] == [("hallucination", False), ("incomplete", True)]
    assert {t[0] for t in tags} == {saved[0][0]}
    assert {t[3:9] for t in tags} == {("zoe", "multi", "random", True, "page", saved[0][8])}
    assert "Saved your rating (4, eve-0-5 3, pass-fail fail)" in app.success[0].value

    next(b for b in app.button if b.key == "annotate_undo_button").click().run()
    assert not app.exception, app.exception
    assert _ratings(sample_store) == []  # the three labels withdrawn together


def test_reopening_a_label_presets_every_question(app, sample_store):
    campaigns.create_campaign(
        sample_store,
        "multi",
        RUBRICS["likert-rag"],
        dataset="eo-rag",
        rule="random",
        size=4,
        questions=[RUBRICS["pass-fail"]],
    )
    open_page(app, ANNOTATE, dataset="eo-rag", annotator="zoe")
    app.selectbox(key="annotate_rubric").set_value("likert-rag").run()
    app.selectbox(key="annotate_campaign").set_value("multi").run()
    _widget(app.radio, "annotate_value_").set_value(2.0)
    _widget(app.radio, "annotate_q1_").set_value(1.0)
    _widget(app.button, "annotate_save_").click().run()
    (answer,) = {r[0] for r in _ratings(sample_store)}
    app.selectbox(key="annotate_mine_pick").set_value(answer).run()
    next(b for b in app.button if b.key == "annotate_mine_open").click().run()
    assert not app.exception, app.exception
    assert _widget(app.radio, "annotate_value_").value == 2.0
    assert _widget(app.radio, "annotate_q1_").value == 1.0


def test_withdraw_takes_back_the_whole_save_and_undo_brings_it_back(app, sample_store):
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
    _widget(app.radio, "annotate_value_").set_value(2.0)
    _widget(app.radio, "annotate_q1_").set_value(1.0)
    next(b for b in app.checkbox if b.label == "incomplete").check()
    _widget(app.button, "annotate_save_").click().run()
    (answer,) = {r[0] for r in _ratings(sample_store)}
    app.selectbox(key="annotate_mine_pick").set_value(answer).run()
    next(b for b in app.button if b.key == "annotate_mine_open").click().run()
    next(b for b in app.button if b.key == "annotate_withdraw").click().run()
    assert not app.exception, app.exception
    assert _ratings(sample_store) == []  # the rubric's and the check's labels, both
    assert [(t[1], t[2]) for t in _tags(sample_store)] == [("incomplete", False)]
    next(b for b in app.button if b.key == "annotate_undo_button").click().run()
    assert not app.exception, app.exception
    assert [(r[1], r[2]) for r in _ratings(sample_store)] == [("likert-rag", 2.0), ("pass-fail", 1)]
    assert [(t[1], t[2]) for t in _tags(sample_store)] == [("incomplete", True)]


def test_a_campaign_refuses_a_repeated_or_scaleless_question(sample_store):
    with pytest.raises(campaigns.CampaignError, match="Ask each rubric once"):
        campaigns.create_campaign(
            sample_store,
            "twice",
            RUBRICS["likert-rag"],
            dataset="eo-rag",
            rule="random",
            size=2,
            questions=[RUBRICS["likert-rag"]],
        )
    with pytest.raises(campaigns.CampaignError, match="pairwise has no scale"):
        campaigns.create_campaign(
            sample_store,
            "pairs",
            RUBRICS["likert-rag"],
            dataset="eo-rag",
            rule="random",
            size=2,
            questions=[RUBRICS["pairwise"]],
        )
    assert campaigns.list_campaigns(sample_store) == []
