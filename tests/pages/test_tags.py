"""Tags, an error taxonomy, through AppTest on the sample database: a campaign defines them,
a person ticks any number beside the rating, each is stored as a tag label with the rating's
provenance (ticked or not), and the Overview shows each tag's share per system with its
interval and n."""

from __future__ import annotations

from dashboard.campaigns import campaigns, tags
from dashboard.campaigns.campaigns import CampaignTag
from dashboard.judging.rubrics import list_rubrics
from dashboard.review import failures
from dashboard.review.failures import FailureFilter
from dashboard.store.migrations import MIGRATIONS
from tests.pages.helpers import open_page, page_path

ANNOTATE = page_path("annotate")
OVERVIEW = page_path("overview")
CAMPAIGNS = page_path("campaigns")
RUBRIC = next(r for r in list_rubrics() if r.name == "likert-rag")
TAGS = [CampaignTag("hallucination", "a fact not in the context"), CampaignTag("incomplete")]


def _tag_rows(store):
    with store.connection() as con:
        return con.execute(
            "SELECT response_id, campaign, tag, rater, rater_kind, ticked, selection, blind, "
            "created_utc FROM tag_labels ORDER BY created_utc, tag"
        ).fetchall()


def _label(app, value, ticked):
    for box in app.checkbox:
        if (box.key or "").startswith("annotate_tag_") and box.label in ticked:
            box.check()
    next(r for r in app.radio if (r.key or "").startswith("annotate_value_")).set_value(value)
    next(b for b in app.button if (b.key or "").startswith("annotate_save_")).click().run()
    assert not app.exception, app.exception


def test_tags_ticked_beside_the_rating_are_stored_and_shown_per_system(app, sample_store):
    assert MIGRATIONS[14][0] == "tags"  # migration 15
    campaigns.create_campaign(
        sample_store, "errs", RUBRIC, dataset="eo-rag", rule="random", size=6, tags=TAGS
    )
    open_page(app, ANNOTATE, dataset="eo-rag", annotator="tia")
    app.selectbox(key="annotate_campaign").set_value("errs").run()
    boxes = [b for b in app.checkbox if (b.key or "").startswith("annotate_tag_")]
    assert [b.label for b in boxes] == ["hallucination", "incomplete"]
    assert boxes[0].help == "a fact not in the context"
    _label(app, 2.0, {"hallucination", "incomplete"})
    _label(app, 4.0, set())
    _label(app, 1.0, {"hallucination"})
    rows = _tag_rows(sample_store)
    assert len(rows) == 6 and {r[1:5] for r in rows} >= {("errs", "hallucination", "tia", "human")}
    assert sum(r[5] for r in rows if r[2] == "hallucination") == 2
    assert sum(r[5] for r in rows if r[2] == "incomplete") == 1
    assert {r[6] for r in rows} == {"random"} and {r[7] for r in rows} == {True}
    with sample_store.connection() as con:  # the same provenance as the rating saved with it
        ratings = con.execute(
            "SELECT response_id, created_utc FROM ratings WHERE rater = 'tia'"
        ).fetchall()
    assert {(r[0], r[8]) for r in rows} == set(ratings)

    shares = tags.tag_shares(sample_store, dataset="eo-rag")
    assert sum(s.n for s in shares if s.tag == "hallucination") == 3
    app.switch_page(OVERVIEW).run()
    assert not app.exception, app.exception
    assert "Tags" in [h.value for h in app.subheader]
    (table,) = [d.value for d in app.dataframe if "tag" in d.value.columns]
    assert set(table["tag"]) == {"hallucination", "incomplete"}
    assert set(table.columns) == {"campaign", "tag", "system", "share [95%]", "n"}
    assert table["n"].sum() == 6


def test_tags_are_written_from_the_campaign_form(app, sample_store):
    open_page(app, CAMPAIGNS, dataset="eo-rag", annotator="ana")
    app.text_input(key="campaign_name").set_value("errs")
    app.text_area(key="campaign_tags").set_value(
        "hallucination: a fact not in the context\nincomplete"
    )
    next(b for b in app.button if b.label == "Create").click().run()
    assert not app.exception, app.exception
    (made,) = campaigns.list_campaigns(sample_store)
    assert campaigns.tags_of(made) == TAGS


def test_failures_filters_by_tag(app, sample_store):
    campaigns.create_campaign(
        sample_store, "errs", RUBRIC, dataset="eo-rag", rule="random", size=6, tags=TAGS
    )
    open_page(app, ANNOTATE, dataset="eo-rag", annotator="tia")
    app.selectbox(key="annotate_campaign").set_value("errs").run()
    _label(app, 2.0, {"hallucination"})
    _label(app, 3.0, {"incomplete"})
    ticked = {r[0] for r in _tag_rows(sample_store) if r[2] == "hallucination" and r[5]}
    app.switch_page(page_path("failures")).run()
    assert not app.exception, app.exception
    app.multiselect(key="failures_tags").select("hallucination").run()
    assert not app.exception, app.exception
    n = len(ticked)
    assert f"Answers 1–{n} of {n}" in [t.value for t in app.text]
    found = failures.failures(
        sample_store, FailureFilter(RUBRIC.name, dataset="eo-rag", tags=("hallucination",))
    )
    assert {f.response_id for f in found.rows} == ticked


def test_tag_labels_go_with_their_dataset(sample_store):
    from dashboard.review import annotation
    from dashboard.review.annotation import Provenance

    campaigns.create_campaign(
        sample_store, "errs", RUBRIC, dataset="eo-rag", rule="random", size=2, tags=TAGS
    )
    taken = campaigns.assign(sample_store, "errs", "tia")
    rating = annotation.human_rating(
        taken.response_id,
        annotator="tia",
        rubric=RUBRIC.name,
        rubric_version=RUBRIC.version,
        value=3,
        scale=(1, 5),
        provenance=Provenance(taken.selection, None, "errs", True),
    )
    labels = annotation.tag_labels(rating, {"hallucination": True, "incomplete": False})
    annotation.save_rating(sample_store, rating, tags=labels)
    assert len(_tag_rows(sample_store)) == 2
    sample_store.delete_dataset("eo-rag")
    assert _tag_rows(sample_store) == []


def test_reopening_an_answer_shows_the_ticks_given(app, sample_store):
    campaigns.create_campaign(
        sample_store, "errs", RUBRIC, dataset="eo-rag", rule="random", size=6, tags=TAGS
    )
    open_page(app, ANNOTATE, dataset="eo-rag", annotator="tia")
    app.selectbox(key="annotate_campaign").set_value("errs").run()
    _label(app, 2.0, {"incomplete"})
    (first,) = {r[0] for r in _tag_rows(sample_store)}
    app.selectbox(key="annotate_mine_pick").set_value(first).run()
    next(b for b in app.button if b.key == "annotate_mine_open").click().run()
    assert not app.exception, app.exception
    boxes = {b.label: b.value for b in app.checkbox if (b.key or "").startswith("annotate_tag_")}
    assert boxes == {"hallucination": False, "incomplete": True}
