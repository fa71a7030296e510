"""The Review page (AppTest): a reviewer sees a campaign's disagreed answers with each label
and comment and saves the adjudicated label; a labeller is refused. The Annotate page's
"Add or fix the reference" box keeps a corrected reference."""

from __future__ import annotations

from dashboard.auth import users
from dashboard.campaigns import adjudication, campaigns
from dashboard.judging.rubrics import list_rubrics
from dashboard.review import annotation, gold
from dashboard.review.annotation import Provenance
from tests.pages.helpers import open_page, page_path, texts

RUBRIC = next(r for r in list_rubrics() if r.name == "likert-rag")
PAGE = page_path("review")


def _disagreed(store) -> str:
    """A campaign "adj" whose one answer ana labels 1 ("wrong date") and ben 4."""
    campaigns.create_campaign(
        store, "adj", RUBRIC, dataset="eo-rag", rule="random", size=1, overlap=2
    )
    taken = campaigns.assign(store, "adj", "ana")
    campaigns.assign(store, "adj", "ben")
    for person, value, comment in (("ana", 1, "wrong date"), ("ben", 4, None)):
        annotation.rate(
            store,
            taken.response_id,
            annotator=person,
            rubric=RUBRIC.name,
            rubric_version=RUBRIC.version,
            value=value,
            scale=(1, 5),
            comment=comment,
            provenance=Provenance(taken.selection, None, "adj", True),
        )
    return taken.response_id


def _sign_in(app, name):
    app.run()
    app.text_input(key="jb_sign_in_name").set_value(name)
    app.text_input(key="jb_sign_in_password").set_value("password-" + name)
    next(b for b in app.button if b.label == "Sign in").click().run()
    app.switch_page(PAGE).run()
    assert not app.exception, app.exception


def _users(path):  # sign-in is on
    users.add_user(path, "rita", "password-rita", role="reviewer")
    users.add_user(path, "lee", "password-lee", role="labeller")


def test_a_reviewer_adjudicates_on_the_page(app_for, sample_store, users_file_for):
    response_id = _disagreed(sample_store)
    _users(users_file_for(sample_store))
    app = app_for(sample_store)
    _sign_in(app, "rita")
    assert "1 answers differ by more than 0; 1 to adjudicate." in texts(app, "text")
    shown = app.dataframe[0].value
    assert sorted(zip(shown["person"], shown["label"])) == [("ana", 1.0), ("ben", 4.0)]
    assert "wrong date" in list(shown["comment"])
    app.radio(key=f"adjudicate_value_{response_id}").set_value(2.0)
    app.text_input(key=f"adjudicate_reason_{response_id}").set_value("a date is off")
    next(b for b in app.button if b.label == "Save the adjudicated label").click().run()
    assert not app.exception, app.exception
    assert "Saved the adjudicated label 2." in texts(app, "success")
    [done] = adjudication.review_queue(sample_store, "adj").items
    assert (done.adjudication.value, done.adjudication.reviewer) == (2.0, "rita")
    assert done.adjudication.reason == "a date is off"


def test_a_labeller_is_refused_the_review_page(app_for, sample_store, users_file_for):
    _disagreed(sample_store)
    _users(users_file_for(sample_store))
    app = app_for(sample_store)
    _sign_in(app, "lee")
    assert "Signed in as a labeller: only a reviewer or an admin may adjudicate." in texts(
        app, "info"
    )
    assert not [b for b in app.button if b.label == "Save the adjudicated label"]
    assert not app.dataframe  # nobody's labels shown


def test_the_reference_box_keeps_a_correction(app, sample_store):
    open_page(app, page_path("annotate"), dataset="eo-rag", annotator="carol")
    box = app.text_area(key="gold_text")
    box.set_value("The corrected answer\n---\nAnother way to say it")
    app.text_input(key="gold_reason").set_value("the imported one was wrong")
    next(b for b in app.button if b.label == "Save the reference").click().run()
    assert not app.exception, app.exception
    assert "Saved the corrected reference; EM and F1 now use it." in texts(app, "success")
    with sample_store.connection() as con:
        row = con.execute(
            "SELECT item_id, dataset, author, reason, reference_answers FROM reference_edits"
        ).fetchone()
    assert row[2:] == (
        "carol",
        "the imported one was wrong",
        ["The corrected answer", "Another way to say it"],
    )
    assert gold.item_references(sample_store, row[0], row[1]).corrected == row[4]
