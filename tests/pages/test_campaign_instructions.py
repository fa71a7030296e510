"""A campaign's instructions and point notes through AppTest on the sample database: written
when the campaign is created, shown on the Campaigns page and beside every answer of the
campaign on Annotate (open on the first, folded after), the notes under the scale; a point
off the scale refused with a message; and the schema migration that holds them."""

from __future__ import annotations

import pytest

from dashboard.auth.roles import RoleError
from dashboard.auth.users import User
from dashboard.campaigns import campaigns
from dashboard.judging.rubrics import list_rubrics
from dashboard.store.migrations import MIGRATIONS
from tests.pages.helpers import open_page, page_path, texts

CAMPAIGNS = page_path("campaigns")
ANNOTATE = page_path("annotate")
RUBRIC = next(r for r in list_rubrics() if r.name == "likert-rag")
GUIDE = "Rate **faithfulness** to the context only.\n\n- ignore style\n- a wrong date is a 2"


def _create(app, name, *, points="2: a wrong date\n5: every fact in the context"):
    app.text_input(key="campaign_name").set_value(name)
    next(n for n in app.number_input if n.label == "How many answers").set_value(4)
    next(n for n in app.number_input if n.label == "People per answer (k)").set_value(1)
    app.text_area(key="campaign_instructions").set_value(GUIDE)
    app.text_area(key="campaign_points").set_value(points)
    next(b for b in app.button if b.label == "Create").click().run()
    assert not app.exception, app.exception


def test_instructions_are_stored_and_shown_beside_every_answer(app, sample_store):
    assert MIGRATIONS[13][0] == "campaign_instructions"  # migration 14
    open_page(app, CAMPAIGNS, dataset="eo-rag", annotator="ana")
    _create(app, "faithful")
    (made,) = campaigns.list_campaigns(sample_store)
    assert made.instructions == GUIDE
    assert campaigns.point_notes(made) == {"2": "a wrong date", "5": "every fact in the context"}
    assert GUIDE in texts(app, "markdown")  # the one text of a person rendered as Markdown

    app.switch_page(ANNOTATE).run()
    app.selectbox(key="annotate_campaign").set_value("faithful").run()
    assert not app.exception, app.exception
    (guide,) = [e for e in app.expander if e.label == "Instructions for this campaign"]
    assert guide.proto.expanded and GUIDE in [m.value for m in guide.markdown]
    legend = next(t for t in texts(app, "text") if t.startswith("1  "))
    assert "2  " in legend and "— here: a wrong date" in legend
    assert "— here: every fact in the context" in legend.splitlines()[-1]
    # the next answer: still beside it, folded now
    next(b for b in app.button if (b.key or "") == "annotate_skip").click().run()
    (guide,) = [e for e in app.expander if e.label == "Instructions for this campaign"]
    assert not guide.proto.expanded and GUIDE in [m.value for m in guide.markdown]


def test_a_point_off_the_scale_is_refused(app, sample_store):
    open_page(app, CAMPAIGNS, dataset="eo-rag", annotator="ana")
    _create(app, "bad", points="7: off the scale")
    assert any("No point 7 on the likert" in e for e in texts(app, "error")), texts(app, "error")
    _create(app, "bad", points="great answers")
    assert any("write a point, a colon" in e for e in texts(app, "error")), texts(app, "error")
    assert campaigns.list_campaigns(sample_store) == []


def test_an_admin_edits_the_instructions_and_a_labeller_may_not(app, sample_store):
    open_page(app, CAMPAIGNS, dataset="eo-rag", annotator="ana")
    _create(app, "faithful")
    app.text_area(key="edit_faithful").set_value("Only **dates** matter now.")
    app.text_area(key="edit_points_faithful").set_value("1: no date right")
    next(b for b in app.button if b.label == "Save the instructions").click().run()
    assert not app.exception, app.exception
    (made,) = campaigns.list_campaigns(sample_store)
    assert made.instructions == "Only **dates** matter now."
    assert campaigns.point_notes(made) == {"1": "no date right"}
    assert "Only **dates** matter now." in texts(app, "markdown")  # read again at once
    labeller = User("lee", "labeller")
    with pytest.raises(RoleError):
        campaigns.set_instructions(
            sample_store, "faithful", RUBRIC, instructions="mine", actor=labeller
        )
    assert campaigns.list_campaigns(sample_store)[0].instructions == "Only **dates** matter now."
