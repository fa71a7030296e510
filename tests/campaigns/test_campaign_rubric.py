"""A campaign of several questions keeps to its own rubric, on the sample database: the form's
comment is on the label of the campaign's rubric; Undo last read from the store takes back
the campaign's whole form and nothing of another campaign or queue; progress, overlap and the
review queue count only labels on the campaign's rubric; an undo takes back the tags of the
save it undoes and never those of another save."""

from __future__ import annotations

import dataclasses

from dashboard.campaigns import adjudication, campaigns, tags
from dashboard.ids import utc_now
from dashboard.judging.rubrics import list_rubrics
from dashboard.review import annotation, edits, questions
from dashboard.review.annotation import Provenance
from dashboard.store.journal import Batch
from dashboard.store.writes import record_row

RUBRICS = {r.name: r for r in list_rubrics()}
OWN, FURTHER, CHECK = RUBRICS["likert-rag"], RUBRICS["eve-0-5"], RUBRICS["pass-fail"]
TAGS = [campaigns.CampaignTag("hallucination"), campaigns.CampaignTag("incomplete")]


def _campaign(store, name="multi", *, overlap=1, size=4, questions_=(FURTHER, CHECK)):
    campaigns.create_campaign(
        store,
        name,
        OWN,
        dataset="eo-rag",
        rule="random",
        size=size,
        overlap=overlap,
        tags=TAGS,
        questions=list(questions_),
    )
    found = campaigns.find_campaign(store, name)
    assert found is not None
    return found


def _save_form(store, campaign, person, response_id, values, *, ticked=(), comment=None):
    """One save of the Annotate form, as `ui/labelling._save` makes it."""
    asked = questions.asked(OWN, campaign, list(RUBRICS.values()))
    labels = questions.ratings_of(
        response_id,
        annotator=person,
        rubrics=asked.rubrics,
        values=values,
        comment=comment,
        provenance=Provenance("random", None, campaign.name, True),
    )
    tag_rows = annotation.tag_labels(labels[0], {t.name: t.name in ticked for t in TAGS})
    annotation.save_rating(store, labels[0], tags=tag_rows, also=labels[1:])
    return tuple(labels)


def _take(store, name, person, *, skipped=()):
    taken = campaigns.assign(store, name, person, skipped=skipped)
    assert taken is not None
    return taken.response_id


def _current(store, person):
    with store.connection() as con:
        rows = con.execute(
            "SELECT response_id, rubric, value, comment, campaign FROM current_ratings "
            "WHERE rater_kind = 'human' AND rater = ? ORDER BY response_id, rubric",
            [person],
        ).fetchall()
    return rows


def _tag_state(store, response_id, person, campaign):
    """The person's current tag labels of the answer: {tag: (ticked, withdrawn)}."""
    with store.connection() as con:
        rows = con.execute(
            "SELECT tag, ticked, withdrawn IS TRUE FROM tag_labels WHERE NOT superseded "
            "AND response_id = ? AND rater = ? AND campaign = ?",
            [response_id, person, campaign],
        ).fetchall()
    return {r[0]: (r[1], r[2]) for r in rows}


ALL = {"likert-rag": 4.0, "eve-0-5": 3.0, "pass-fail": 1.0}


def test_the_comment_is_on_the_campaign_rubrics_label(sample_store):
    made = _campaign(sample_store)
    answer = _take(sample_store, "multi", "zoe")
    saved = _save_form(sample_store, made, "zoe", answer, ALL, comment="misses the date")
    assert [(r.rubric, r.comment) for r in saved][0] == ("likert-rag", "misses the date")
    assert {r.rubric: r.comment for r in saved if r.rubric != "likert-rag"} == {
        "eve-0-5": None,
        "pass-fail": None,
    }
    # Whatever rubric is picked beside the campaign, its own rubric is asked first, so the
    # comment (and an override) goes with the label of the campaign's rubric.
    asked = questions.asked(FURTHER, made, list(RUBRICS.values()))
    assert [r.name for r in asked.rubrics] == ["likert-rag", "eve-0-5", "pass-fail"]
    labels = questions.ratings_of(
        answer, annotator="zoe", rubrics=asked.rubrics, values=ALL, comment="note"
    )
    assert [(r.rubric, r.comment) for r in labels] == [
        ("likert-rag", "note"),
        ("eve-0-5", None),
        ("pass-fail", None),
    ]


def test_a_stored_undo_takes_back_only_this_campaigns_form(sample_store):
    made = _campaign(sample_store)
    other = _campaign(sample_store, "other", questions_=())
    answer = _take(sample_store, "multi", "zoe")
    form = _save_form(sample_store, made, "zoe", answer, ALL, ticked=("incomplete",))
    # Later: a label on the same rubric in another campaign, and one in the person's queue.
    elsewhere = _take(sample_store, "other", "zoe", skipped=[answer])
    _save_form(sample_store, other, "zoe", elsewhere, {"likert-rag": 2.0})
    queued = next(
        e.response_id
        for e in annotation.annotation_queue(
            sample_store, annotation.QueueRequest(rubric="likert-rag", annotator="zoe"), limit=50
        ).entries
        if e.response_id not in (answer, elsewhere)
    )
    annotation.rate(
        sample_store,
        queued,
        annotator="zoe",
        rubric="likert-rag",
        rubric_version=OWN.version,
        value=5.0,
        scale=(1, 5),
    )
    # The newest label on the rubric is the queue's; in the campaign, its form is found.
    assert edits.last_label(sample_store, "zoe", "likert-rag").response_id == queued
    found = edits.last_save(sample_store, "zoe", "likert-rag", campaign="multi")
    assert found is not None
    assert sorted(r.rating_id for r in found) == sorted(r.rating_id for r in form)
    assert found[0].rubric == "likert-rag"
    undone = edits.undo_all(sample_store, found).record
    assert [(r[0], r[1], r[2]) for r in _current(sample_store, "zoe") if r[2] is not None] == (
        sorted([(elsewhere, "likert-rag", 2.0), (queued, "likert-rag", 5.0)])
    )
    # The undo is a save of the campaign too; passed over, nothing of it is left to undo.
    again = edits.last_save(sample_store, "zoe", "likert-rag", campaign="multi")
    assert again is not None and len(again) == 3 and again[0].rating_id == undone.rating_id
    skip = [undone.rating_id]
    assert edits.last_save(sample_store, "zoe", "likert-rag", campaign="multi", skip=skip) is None
    # Without a campaign, only the queue's label is undone, never a campaign's.
    (own,) = edits.last_save(sample_store, "zoe", "likert-rag", campaign=None) or ()
    assert own.response_id == queued


def test_progress_overlap_and_review_count_only_the_campaigns_rubric(sample_store):
    made = _campaign(sample_store, overlap=2, size=1)
    answer = _take(sample_store, "multi", "ana")
    # ana answers only a further question of the campaign, on the same answer ...
    labels = questions.ratings_of(
        answer,
        annotator="ana",
        rubrics=(FURTHER,),
        values={"eve-0-5": 0.0},
        provenance=Provenance("random", None, "multi", True),
    )
    annotation.save_rating(sample_store, labels[0])
    # ... and labels the campaign's rubric outside the campaign.
    annotation.rate(
        sample_store,
        answer,
        annotator="cy",
        rubric="likert-rag",
        rubric_version=OWN.version,
        value=1.0,
        scale=(1, 5),
    )
    done = campaigns.progress(sample_store, "multi")
    assert (done.n_done, done.n_labels, done.people) == (0, 0, ())
    # Neither counts towards overlap: two people may still label it in the campaign.
    assert _take(sample_store, "multi", "ben") == answer
    _save_form(sample_store, made, "ben", answer, {**ALL, "likert-rag": 5.0})
    assert _take(sample_store, "multi", "dee") == answer
    _save_form(sample_store, made, "dee", answer, {**ALL, "likert-rag": 5.0})
    done = campaigns.progress(sample_store, "multi")
    assert (done.n_done, done.n_labels) == (1, 2)
    assert {p.person for p in done.people} == {"ben", "dee"}
    # ben and dee agree on the campaign's rubric: nothing to review (ana's 0 and cy's 1 are
    # other rubrics' or other queues' labels).
    assert adjudication.review_queue(sample_store, "multi").items == ()


def test_an_undo_takes_back_its_own_saves_tags_and_no_others(sample_store):
    made = _campaign(sample_store)
    answer = _take(sample_store, "multi", "zoe")
    _save_form(sample_store, made, "zoe", answer, ALL, ticked=("incomplete",))
    second = _save_form(sample_store, made, "zoe", answer, ALL, ticked=("hallucination",))
    assert tags.ticked_by(sample_store, answer, "zoe", "multi") == {"hallucination"}
    # Undoing the second save brings the first one's tags back.
    edits.undo_all(sample_store, second)
    assert _tag_state(sample_store, answer, "zoe", "multi") == {
        "hallucination": (False, False),
        "incomplete": (True, False),
    }
    # A first save on another answer, then its undo: its tags are withdrawn (in no share any
    # more), and the first answer's tags stay as they are.
    later = _take(sample_store, "multi", "zoe")
    third = _save_form(sample_store, made, "zoe", later, ALL, ticked=("hallucination",))
    edits.undo_all(sample_store, third)
    assert tags.ticked_by(sample_store, answer, "zoe", "multi") == {"incomplete"}
    assert _tag_state(sample_store, later, "zoe", "multi") == {
        "hallucination": (False, True),
        "incomplete": (False, True),
    }
    shares = {(s.tag, s.n, s.share) for s in tags.tag_shares(sample_store)}
    assert shares == {("hallucination", 1, 0.0), ("incomplete", 1, 1.0)}


def test_an_undo_leaves_tags_a_later_save_wrote(sample_store):
    """Tags rewritten after the save (another tab wrote them at another time) are not the
    save's: its undo takes back only its own rows that are still current."""
    made = _campaign(sample_store, questions_=())
    answer = _take(sample_store, "multi", "zoe")
    (rating,) = _save_form(sample_store, made, "zoe", answer, {"likert-rag": 3.0})
    newer = annotation.tag_labels(
        dataclasses.replace(rating, created_utc=utc_now()), {"hallucination": True}
    )
    sample_store.write([Batch("tag_labels", tuple(map(record_row, newer)))])
    edits.undo(sample_store, rating)
    assert _tag_state(sample_store, answer, "zoe", "multi") == {
        "hallucination": (True, False),  # the later row, not this save's, stays
        "incomplete": (False, True),  # this save's own row is taken back
    }


def test_withdraw_takes_back_the_whole_save_and_undo_brings_it_back(sample_store):
    """Withdraw on the campaign rubric's label takes back every label of that save (the
    further questions' too) and withdraws its tags, in one save; an earlier save's tag rows
    it did not write stay; an undo of the withdrawal puts the save back whole."""
    made = _campaign(sample_store)
    answer = _take(sample_store, "multi", "zoe")
    _save_form(sample_store, made, "zoe", answer, ALL, ticked=("incomplete",))
    second = _save_form(sample_store, made, "zoe", answer, ALL, ticked=("hallucination",))
    other = _take(sample_store, "multi", "zoe")
    kept = _save_form(sample_store, made, "zoe", other, ALL, ticked=("incomplete",))
    withdrawn = edits.withdraw_save(sample_store, second[0]).record
    assert [r.rubric for r in withdrawn] == ["likert-rag", "eve-0-5", "pass-fail"]
    assert {r.supersedes for r in withdrawn} == {r.rating_id for r in second}
    assert len({r.created_utc for r in withdrawn}) == 1  # one save
    assert [(r[1], r[2]) for r in _current(sample_store, "zoe") if r[0] == answer] == [
        ("eve-0-5", None),
        ("likert-rag", None),
        ("pass-fail", None),
    ]
    assert _tag_state(sample_store, answer, "zoe", "multi") == {
        "hallucination": (False, True),
        "incomplete": (False, True),
    }
    # The other answer's save is untouched: its labels and its tag count as before.
    assert [r[2] for r in _current(sample_store, "zoe") if r[0] == other] == [3.0, 4.0, 1.0]
    shares = {(s.tag, s.n, s.share) for s in tags.tag_shares(sample_store)}
    assert shares == {("hallucination", 1, 0.0), ("incomplete", 1, 1.0)}
    assert kept[0].response_id == other
    # Undo last of the withdrawal (`ui/labelling` keeps its rows): the second save is back.
    edits.undo_all(sample_store, withdrawn)
    assert [(r[1], r[2]) for r in _current(sample_store, "zoe") if r[0] == answer] == [
        ("eve-0-5", 3.0),
        ("likert-rag", 4.0),
        ("pass-fail", 1.0),
    ]
    assert tags.ticked_by(sample_store, answer, "zoe", "multi") == {"hallucination"}


def test_withdraw_of_a_label_outside_a_campaign_is_that_label_alone(sample_store):
    _campaign(sample_store)
    answer = _take(sample_store, "multi", "zoe")
    rated = annotation.rate(
        sample_store,
        answer,
        annotator="zoe",
        rubric="likert-rag",
        rubric_version=OWN.version,
        value=5.0,
        scale=(1, 5),
    )
    row = edits.withdraw(sample_store, rated.record).record
    assert (row.value, row.supersedes, row.campaign) == (None, rated.record.rating_id, None)
    assert _current(sample_store, "zoe") == [(answer, "likert-rag", None, None, None)]
    assert _tag_state(sample_store, answer, "zoe", "multi") == {}
