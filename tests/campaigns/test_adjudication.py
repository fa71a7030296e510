"""Adjudication on the sample database: the review queue holds the answers whose labels
differ by more than the campaign's threshold, a reviewer sets the adjudicated label (kept
with provenance, people's labels untouched), a labeller is refused, and calibration can take
the adjudicated labels as people's reference, named in `metrics --json`."""

from __future__ import annotations

import json

import pytest

from dashboard.auth.roles import RoleError
from dashboard.auth.users import User
from dashboard.campaigns import adjudication, campaigns
from dashboard.campaigns.campaigns import CampaignError
from dashboard.judging.rubrics import list_rubrics
from dashboard.metrics import calibration
from dashboard.metrics.output import MetricsRequest
from dashboard.metrics.output.metrics_json import numbers
from dashboard.metrics.selection import Selection
from dashboard.review import annotation
from dashboard.review.annotation import Provenance

RUBRIC = next(r for r in list_rubrics() if r.name == "likert-rag")
REVIEWER = User("rita", "reviewer")
LABELLER = User("lee", "labeller")
ADMIN = User("ada", "admin")


def _label(store, person, name, response_id, value, comment=None):
    taken = campaigns.campaign_item(store, name, response_id)
    chosen = Provenance(taken.selection, taken.inclusion_probability, name, True)
    annotation.rate(
        store,
        response_id,
        annotator=person,
        rubric=RUBRIC.name,
        rubric_version=RUBRIC.version,
        value=value,
        scale=(1, 5),
        comment=comment,
        provenance=chosen,
    )


def _campaign(store, *, spread=1.0):
    """Three answers, each labelled by ana and ben: spreads 0, 1 and 3."""
    campaigns.create_campaign(
        store,
        "adj",
        RUBRIC,
        dataset="eo-rag",
        rule="random",
        size=3,
        overlap=2,
        review_spread=spread,
    )
    ids = []
    for a, b in ((3, 3), (3, 4), (1, 4)):
        taken = campaigns.assign(store, "adj", "ana")
        campaigns.assign(store, "adj", "ben")
        _label(store, "ana", "adj", taken.response_id, a, comment=f"ana says {a}")
        _label(store, "ben", "adj", taken.response_id, b, comment=f"ben says {b}")
        ids.append(taken.response_id)
    return ids


def test_the_queue_holds_what_differs_beyond_the_threshold(sample_store):
    same, one, three = _campaign(sample_store, spread=1.0)
    queue = adjudication.review_queue(sample_store, "adj", actor=REVIEWER)
    # spread 3 > 1 is in; spread 1 is not above 1; spread 0 is not
    assert [i.response_id for i in queue.items] == [three]
    item = queue.items[0]
    assert item.spread == 3.0 and item.adjudication is None and queue.n_open == 1
    assert {(x.rater, x.value, x.comment) for x in item.labels} == {
        ("ana", 1.0, "ana says 1"),
        ("ben", 4.0, "ben says 4"),
    }
    adjudication.set_review_spread(sample_store, "adj", 0.0, actor=ADMIN)  # any disagreement
    wider = adjudication.review_queue(sample_store, "adj", actor=REVIEWER)
    assert [i.response_id for i in wider.items] == [three, one]  # widest first; `same` agrees
    assert same not in {i.response_id for i in wider.items}


def test_a_reviewer_adjudicates_with_provenance_and_raw_labels_kept(sample_store):
    _, _, three = _campaign(sample_store, spread=0.0)
    with sample_store.connection() as con:
        before = con.execute("SELECT count(*) FROM ratings WHERE campaign = 'adj'").fetchone()
    made = adjudication.adjudicate(
        sample_store, "adj", three, 2.0, reason="the date is wrong", actor=REVIEWER
    )
    assert (made.reviewer, made.value, made.reason, made.supersedes) == (
        "rita",
        2.0,
        "the date is wrong",
        None,
    )
    assert sorted(json.loads(made.labels), key=lambda x: x["rater"]) == [
        {"rater": "ana", "value": 1.0, "comment": "ana says 1"},
        {"rater": "ben", "value": 4.0, "comment": "ben says 4"},
    ]
    again = adjudication.adjudicate(sample_store, "adj", three, 3.0, actor=ADMIN)
    assert again.supersedes == made.adjudication_id and again.reviewer == "ada"
    queue = adjudication.review_queue(sample_store, "adj", actor=ADMIN)
    done = next(i for i in queue.items if i.response_id == three)
    assert done.adjudication.value == 3.0 and queue.items[-1].response_id == three
    with sample_store.connection() as con:
        after = con.execute("SELECT count(*) FROM ratings WHERE campaign = 'adj'").fetchone()
        kept = con.execute("SELECT count(*) FROM adjudications").fetchone()
    assert after == before and kept == (2,)  # people's labels untouched, both rows kept


def test_a_labeller_is_refused_and_nothing_is_written(sample_store):
    _, _, three = _campaign(sample_store, spread=0.0)
    with pytest.raises(RoleError, match="lee is signed in as a labeller: only a reviewer"):
        adjudication.adjudicate(sample_store, "adj", three, 2.0, actor=LABELLER)
    with pytest.raises(RoleError, match="only a reviewer or an admin may see the review"):
        adjudication.review_queue(sample_store, "adj", actor=LABELLER)
    with pytest.raises(RoleError, match="rita is signed in as a reviewer: only an admin"):
        adjudication.set_review_spread(sample_store, "adj", 2.0, actor=REVIEWER)
    with sample_store.connection() as con:
        assert con.execute("SELECT count(*) FROM adjudications").fetchone() == (0,)


def test_bad_adjudications_are_refused(sample_store):
    same, _, three = _campaign(sample_store, spread=0.0)
    with pytest.raises(CampaignError, match="not in campaign adj's review queue"):
        adjudication.adjudicate(sample_store, "adj", same, 3.0, actor=REVIEWER)
    with pytest.raises(CampaignError, match="off the scale; give a label from 1 to 5"):
        adjudication.adjudicate(sample_store, "adj", three, 9.0, actor=REVIEWER)
    with pytest.raises(CampaignError, match="Type your name"):
        adjudication.adjudicate(sample_store, "adj", three, 3.0)
    with pytest.raises(CampaignError, match="No campaign is named 'nope'"):
        adjudication.adjudicate(sample_store, "nope", three, 3.0, actor=REVIEWER)
    with sample_store.connection() as con:
        assert con.execute("SELECT count(*) FROM adjudications").fetchone() == (0,)


def test_calibration_takes_adjudicated_labels_as_the_reference(sample_store):
    _, _, three = _campaign(sample_store, spread=0.0)
    adjudication.adjudicate(sample_store, "adj", three, 2.0, actor=REVIEWER)
    selection = Selection("eo-rag", "likert-rag")
    raw = calibration.calibration(sample_store, selection)
    chosen = calibration.calibration(sample_store, selection, human_reference="adjudicated")
    assert (raw.human_reference, raw.n_adjudicated) == ("all_labels", 0)
    assert (chosen.human_reference, chosen.n_adjudicated) == ("adjudicated", 1)
    # the answer's two labels (1 and 4) become one reference label (2)
    assert chosen.n_human_labels == raw.n_human_labels - 1
    # people's agreement among themselves still reads their raw labels
    assert chosen.humans == raw.humans
    with pytest.raises(ValueError, match="unknown human reference 'mine'"):
        calibration.calibration(sample_store, selection, human_reference="mine")


def test_with_adjudicated_replaces_only_the_adjudicated_answers_people():
    # hand check: answer r1 has a judge (4) and two people (2, 5), adjudicated 3; r2 untouched
    rows = [
        calibration.LabelledRating("r1", "llm", "j", 4.0, True, "s"),
        calibration.LabelledRating("r1", "human", "ana", 2.0, False, "s"),
        calibration.LabelledRating("r1", "human", "ben", 5.0, False, "s"),
        calibration.LabelledRating("r2", "human", "ana", 1.0, False, "s"),
    ]
    adjudicated = [calibration.AdjudicatedLabel("r1", 3.0)]
    found = calibration.with_adjudicated(rows, adjudicated)
    assert [(r.response_id, r.rater_kind, r.rater, r.value) for r in found] == [
        ("r1", "human", "adjudicated", 3.0),
        ("r1", "llm", "j", 4.0),
        ("r2", "human", "ana", 1.0),
    ]


def test_metrics_json_names_the_human_reference(sample_store):
    _, _, three = _campaign(sample_store, spread=0.0)
    adjudication.adjudicate(sample_store, "adj", three, 2.0, actor=REVIEWER)
    plain = numbers(sample_store, MetricsRequest(dataset="eo-rag", rubric="likert-rag")).json
    chosen = numbers(
        sample_store,
        MetricsRequest(dataset="eo-rag", rubric="likert-rag", human_reference="adjudicated"),
    ).json
    assert plain["selection"]["human_reference"] == "all_labels"
    assert chosen["selection"]["human_reference"] == "adjudicated"
    assert plain["references"] == {"source": "imported", "corrected_items": 0}
