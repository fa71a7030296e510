"""Campaigns on the sample database: the sample chosen, per-person queues with overlap k and
holds, labels carrying the campaign and its selection, progress, and people's agreement
checked against scikit-learn and the krippendorff package."""

from __future__ import annotations

from datetime import timedelta

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from dashboard.campaigns import agreement, campaigns
from dashboard.campaigns.campaigns import CampaignError
from dashboard.ids import utc_now
from dashboard.judging.rubrics import list_rubrics
from dashboard.review import annotation
from dashboard.review.annotation import Provenance

RUBRIC = next(r for r in list_rubrics() if r.name == "likert-rag")


def _label(store, person, taken, value, name):
    chosen = Provenance(taken.selection, taken.inclusion_probability, name, True)
    return annotation.rate(
        store,
        taken.response_id,
        annotator=person,
        rubric=RUBRIC.name,
        rubric_version=RUBRIC.version,
        value=value,
        scale=(1, 5),
        provenance=chosen,
    ).record


def _drain(store, name, person, value=3.0):
    labelled = []
    while (taken := campaigns.assign(store, name, person)) is not None:
        labelled.append(_label(store, person, taken, value, name).response_id)
    return labelled


def test_a_random_campaign_with_overlap_two(sample_store):
    made = campaigns.create_campaign(
        sample_store, "c1", RUBRIC, dataset="eo-rag", rule="random", size=4, seed=3, overlap=2
    )
    assert made.n_items == 4 and made.n_done == 0 and made.campaign.population > 4
    first = _drain(sample_store, "c1", "ana")
    second = _drain(sample_store, "c1", "ben", value=4.0)
    third = _drain(sample_store, "c1", "cy")
    # k = 2: ana and ben label all four, cy gets none
    assert sorted(first) == sorted(second) and len(first) == 4 and third == []
    done = campaigns.progress(sample_store, "c1")
    assert (done.n_done, done.n_labels) == (4, 8)
    assert {p.person: p.n_labels for p in done.people} == {"ana": 4, "ben": 4}
    with sample_store.connection() as con:
        rows = con.execute(
            "SELECT DISTINCT selection, campaign, blind FROM ratings WHERE campaign = 'c1'"
        ).fetchall()
    assert rows == [("random", "c1", True)]


def test_holds_keep_an_answer_for_one_person_until_they_expire(sample_store):
    campaigns.create_campaign(
        sample_store, "c2", RUBRIC, dataset="eo-rag", rule="worst", size=2, overlap=1
    )
    a = campaigns.assign(sample_store, "c2", "ana")
    assert campaigns.assign(sample_store, "c2", "ana").response_id == a.response_id  # held
    b = campaigns.assign(sample_store, "c2", "ben")
    assert b.response_id != a.response_id and a.selection == "targeted"
    assert campaigns.assign(sample_store, "c2", "cy") is None  # both held
    campaigns.release(sample_store, "c2", a.response_id, "ana")  # ana skips it
    assert campaigns.assign(sample_store, "c2", "cy").response_id == a.response_id
    # an expired hold frees the answer
    with sample_store.connection() as con:
        con.execute(
            "UPDATE campaign_holds SET expires_utc = ? WHERE person = 'ben'",
            [utc_now() - timedelta(minutes=1)],
        )
    assert campaigns.assign(sample_store, "c2", "dee").response_id == b.response_id


def test_a_campaign_over_the_whole_population_is_a_census(sample_store):
    made = campaigns.create_campaign(
        sample_store, "all", RUBRIC, dataset="eo-rag", rule="random", size=10_000
    )
    taken = campaigns.assign(sample_store, "all", "ana")
    assert made.n_items == made.campaign.population and taken.selection == "census"


def test_bad_campaigns_are_refused(sample_store):
    campaigns.create_campaign(sample_store, "c3", RUBRIC, dataset="eo-rag", rule="random", size=1)
    with pytest.raises(CampaignError, match="exists already"):
        campaigns.create_campaign(sample_store, "c3", RUBRIC, dataset=None, rule="random", size=1)
    with pytest.raises(CampaignError, match="Give the campaign a name"):
        campaigns.create_campaign(sample_store, " ", RUBRIC, dataset=None, rule="random", size=1)
    with pytest.raises(CampaignError, match="nothing to label"):
        campaigns.create_campaign(sample_store, "c4", RUBRIC, dataset="nope", rule="random", size=1)


def test_people_agreement_matches_sklearn_and_krippendorff(sample_store):
    campaigns.create_campaign(
        sample_store, "c5", RUBRIC, dataset="eo-rag", rule="random", size=6, overlap=2
    )
    ana = [1.0, 2.0, 3.0, 4.0, 5.0, 5.0]
    ben = [1.0, 3.0, 3.0, 4.0, 4.0, 5.0]
    for person, values in (("ana", ana), ("ben", ben)):
        for value in values:
            _label(sample_store, person, campaigns.assign(sample_store, "c5", person), value, "c5")
    found = agreement.people_agreement(sample_store, "c5", scale=(1, 5))
    (pair,) = found.pairs
    # both took the answers in the campaign's order, so value i is on the same answer
    assert pair.exact.n == 6 and pair.exact.value == pytest.approx(4 / 6)
    expected = cohen_kappa_score(ana, ben, weights="quadratic")
    assert pair.kappa_quadratic.value == pytest.approx(expected)
    assert pair.kappa_quadratic.low <= expected <= pair.kappa_quadratic.high
    alpha = krippendorff.alpha(
        reliability_data=np.array([ana, ben]), level_of_measurement="ordinal"
    )
    assert found.alpha_ordinal.value == pytest.approx(alpha) and found.alpha_ordinal.n == 6
    assert [d.spread for d in found.disagreed] == [1.0, 1.0]


# --- overlap k is a hard limit: the save itself is checked ------------------------------------


def _expire_holds(store, name):
    """Every hold of the campaign ends now (as if their minutes had passed)."""
    past = utc_now() - timedelta(minutes=1)
    with store.connection() as con:
        con.execute("UPDATE campaign_holds SET expires_utc = ? WHERE campaign = ?", [past, name])


def _campaign_labels(store, name):
    with store.connection() as con:
        return con.execute(
            "SELECT response_id, rater FROM ratings WHERE campaign = ? AND NOT superseded "
            "ORDER BY ALL",
            [name],
        ).fetchall()


def test_a_save_after_the_hold_ended_is_refused_and_nothing_is_written(sample_store):
    campaigns.create_campaign(
        sample_store, "k1", RUBRIC, dataset="eo-rag", rule="random", size=2, overlap=1
    )
    taken = campaigns.assign(sample_store, "k1", "ana")
    _expire_holds(sample_store, "k1")
    ben = campaigns.assign(sample_store, "k1", "ben")
    assert ben.response_id == taken.response_id  # free again: ben holds it now
    with pytest.raises(annotation.LabelRefused, match="already has its 1 label.s. or holder"):
        _label(sample_store, "ana", taken, 4.0, "k1")
    _label(sample_store, "ben", ben, 2.0, "k1")
    assert _campaign_labels(sample_store, "k1") == [(taken.response_id, "ben")]


def test_a_save_on_an_answer_with_its_k_labels_is_refused(sample_store):
    """Holds that ended let a second person take the answer; the first one's late save
    (hold gone, k reached) is refused, so k = 1 holds."""
    campaigns.create_campaign(
        sample_store, "k2", RUBRIC, dataset="eo-rag", rule="random", size=1, overlap=1
    )
    ana = campaigns.assign(sample_store, "k2", "ana")
    _expire_holds(sample_store, "k2")
    ben = campaigns.assign(sample_store, "k2", "ben")
    _label(sample_store, "ben", ben, 5.0, "k2")
    with pytest.raises(annotation.LabelRefused, match="already has its 1 label"):
        _label(sample_store, "ana", ana, 1.0, "k2")
    assert _campaign_labels(sample_store, "k2") == [(ana.response_id, "ben")]
    assert campaigns.assign(sample_store, "k2", "ana") is None  # nothing left for ana


def test_a_save_after_the_hold_ended_on_a_free_answer_is_refused_too(sample_store):
    campaigns.create_campaign(
        sample_store, "k5", RUBRIC, dataset="eo-rag", rule="random", size=1, overlap=2
    )
    taken = campaigns.assign(sample_store, "k5", "ana")
    _expire_holds(sample_store, "k5")
    with pytest.raises(annotation.LabelRefused, match="Your hold on this answer ended"):
        _label(sample_store, "ana", taken, 4.0, "k5")
    assert _campaign_labels(sample_store, "k5") == []
    again = campaigns.assign(sample_store, "k5", "ana")  # offered again, held anew
    assert again.response_id == taken.response_id
    _label(sample_store, "ana", again, 4.0, "k5")


def test_a_person_may_change_their_own_campaign_label(sample_store):
    campaigns.create_campaign(
        sample_store, "k3", RUBRIC, dataset="eo-rag", rule="random", size=1, overlap=1
    )
    taken = campaigns.assign(sample_store, "k3", "ana")
    _label(sample_store, "ana", taken, 2.0, "k3")
    _expire_holds(sample_store, "k3")
    changed = _label(sample_store, "ana", taken, 4.0, "k3")  # an edit needs no hold
    assert changed.value == 4.0
    assert _campaign_labels(sample_store, "k3") == [(taken.response_id, "ana")]


# file_store: another process holds the DuckDB file; PostgreSQL has no journal.
@pytest.mark.file_store
def test_a_campaign_save_is_never_kept_in_the_journal(sample_store):
    """A confirmed campaign save is in the database: while the file stays held, the save
    waits for it and then says it was not saved, instead of a journal entry that the rules
    could not check."""
    from dashboard.store import Store, StoreBusy
    from tests.support.locks import database_held

    campaigns.create_campaign(
        sample_store, "k4", RUBRIC, dataset="eo-rag", rule="random", size=1, overlap=1
    )
    taken = campaigns.assign(sample_store, "k4", "ana")
    labeller = Store(sample_store.path, wait_s=0.3, spool_wait_s=0.1)  # the dashboard's spool
    with database_held(sample_store.path), pytest.raises(StoreBusy):
        _label(labeller, "ana", taken, 3.0, "k4")
    assert not labeller.spool.directory.exists() or not list(labeller.spool.directory.iterdir())
    _label(labeller, "ana", taken, 3.0, "k4")  # free again: saved
    assert _campaign_labels(sample_store, "k4") == [(taken.response_id, "ana")]
