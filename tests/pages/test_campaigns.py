"""The Campaigns page through AppTest on the sample database: creating a seeded random
campaign with overlap k, its progress per person and its agreement section, and that a
signed-in labeller may not create one (an admin may)."""

from __future__ import annotations

from dashboard.auth import users
from dashboard.campaigns import campaigns
from dashboard.judging.rubrics import list_rubrics
from dashboard.review import annotation
from dashboard.review.annotation import Provenance
from tests.pages.helpers import open_page, page_path, texts

PAGE = page_path("campaigns")
RUBRIC = next(r for r in list_rubrics() if r.name == "likert-rag")


def _items(store, name):
    with store.connection() as con:
        return con.execute(
            "SELECT response_id, selection FROM campaign_items WHERE campaign = ? "
            "ORDER BY position",
            [name],
        ).fetchall()


def _number(app, label):
    return next(n for n in app.number_input if n.label == label)


def _fill(app, name, *, size, seed, k):
    app.text_input(key="campaign_name").set_value(name)
    app.selectbox(key="campaign_rubric").set_value(RUBRIC.name)
    next(s for s in app.selectbox if s.label == "Which answers").set_value("random")
    _number(app, "How many answers").set_value(size)
    _number(app, "Seed").set_value(seed)
    _number(app, "People per answer (k)").set_value(k)
    next(b for b in app.button if b.label == "Create").click().run()
    assert not app.exception, app.exception


def test_create_a_seeded_random_campaign(app, sample_store):
    open_page(app, PAGE, dataset="eo-rag", annotator="ana")
    assert "No campaign yet." in texts(app, "info")
    _fill(app, "study", size=5, seed=3, k=2)
    assert texts(app, "success") == ["Created study with 5 answers."]
    (made,) = campaigns.list_campaigns(sample_store)
    assert (made.rubric, made.dataset, made.rule, made.size, made.seed, made.overlap) == (
        RUBRIC.name,
        "eo-rag",
        "random",
        5,
        3,
        2,
    )
    assert made.created_by == "ana"
    chosen = _items(sample_store, "study")
    assert len(chosen) == 5 and {s for _, s in chosen} == {"random"}
    # seeded: the same seed draws the same answers in the same order, another seed others
    _fill(app, "again", size=5, seed=3, k=2)
    assert _items(sample_store, "again") == chosen
    _fill(app, "other", size=5, seed=4, k=2)
    assert _items(sample_store, "other") != chosen
    # a name already taken is refused with a message, not a traceback
    _fill(app, "study", size=5, seed=3, k=2)
    assert texts(app, "error") and len(campaigns.list_campaigns(sample_store)) == 3


def _label_all(store, name, person, values):
    for value in values:
        taken = campaigns.assign(store, name, person)
        annotation.rate(
            store,
            taken.response_id,
            annotator=person,
            rubric=RUBRIC.name,
            rubric_version=RUBRIC.version,
            value=value,
            scale=(1, 5),
            provenance=Provenance(taken.selection, taken.inclusion_probability, name, True),
        )


def test_progress_per_person_and_agreement(app, sample_store):
    campaigns.create_campaign(
        sample_store, "study", RUBRIC, dataset="eo-rag", rule="random", size=4, overlap=2
    )
    _label_all(sample_store, "study", "ana", [1, 2, 4, 5])
    _label_all(sample_store, "study", "ben", [1, 3, 4, 2])  # the same answers, in order
    assert campaigns.assign(sample_store, "study", "cy") is None  # k = 2: none left for cy
    open_page(app, PAGE, dataset="eo-rag", annotator="ana")
    shown = texts(app, "text")
    assert any("k = 2 · 4 of " in t for t in shown)
    (bar,) = app.get("progress")
    assert bar.proto.value == 100 and "8 of 8 labels; 4 of 4 answers done" in bar.proto.text
    people, pairs, disagreed = (t.value for t in app.dataframe)
    assert dict(zip(people["person"], people["n_labels"], strict=True)) == {"ana": 4, "ben": 4}
    assert list(pairs[["person a", "person b", "n"]].itertuples(index=False, name=None)) == [
        ("ana", "ben", 4)
    ]
    # exact agreement: 2 of 4 answers (1-1, 4-4), over 4 shared answers
    assert pairs["exact [95%]"][0].startswith("0.50 [")
    assert any(t.startswith("Krippendorff's alpha (ordinal), 95% interval: ") for t in shown)
    assert any("over 4 answers with two or more labels" in t for t in shown)
    # the most disagreed answer first: 5 against 2
    assert (disagreed["low"][0], disagreed["high"][0]) == (2.0, 5.0)


def _sign_in(app, name):
    app.run()
    app.text_input(key="jb_sign_in_name").set_value(name)
    app.text_input(key="jb_sign_in_password").set_value("password-" + name)
    next(b for b in app.button if b.label == "Sign in").click().run()
    assert any(t.startswith(f"Signed in as {name}") for t in texts(app, "text"))
    app.switch_page(PAGE).run()
    assert not app.exception, app.exception


def test_a_labeller_cannot_create_a_campaign_an_admin_can(app_for, sample_store, users_file_for):
    path = users_file_for(sample_store)  # sign-in is on
    users.add_user(path, "lee", "password-lee", role="labeller")
    users.add_user(path, "ada", "password-ada", role="admin")
    labeller = app_for(sample_store)
    _sign_in(labeller, "lee")
    assert "Signed in as a labeller: only an admin may create campaigns." in texts(labeller, "info")
    assert not [b for b in labeller.button if b.label == "Create"]
    assert not [t for t in labeller.text_input if t.key == "campaign_name"]
    admin = app_for(sample_store)
    _sign_in(admin, "ada")
    _fill(admin, "study", size=3, seed=0, k=1)
    assert texts(admin, "success") == ["Created study with 3 answers."]
    assert campaigns.list_campaigns(sample_store)[0].created_by == "ada"


def test_a_new_campaign_is_listed_at_once_and_the_rubric_follows_the_data(app, sample_store):
    # eo-rag's people and judges rate with likert-rag: the form offers it first, not the
    # first rubric by name (eve-0-5)
    open_page(app, PAGE, dataset="eo-rag", annotator="ana")
    assert app.selectbox(key="campaign_rubric").value == "likert-rag"
    app.text_input(key="campaign_name").set_value("wave2-k2")
    _number(app, "How many answers").set_value(10)
    next(b for b in app.button if b.label == "Create").click().run()
    assert not app.exception, app.exception
    assert texts(app, "success") == ["Created wave2-k2 with 10 answers."]
    # listed in the same run, before anyone labels in it
    assert "No campaign yet." not in texts(app, "info")
    assert [e.label for e in app.expander] == ["wave2-k2"]
    assert any(t.startswith("likert-rag · eo-rag · Random") for t in texts(app, "text"))
