"""The rubric proposed for the data: the bundled rubrics on the sample's datasets, and
hand-built profiles for each rule."""

from __future__ import annotations

import pytest

from dashboard.judging import list_rubrics
from dashboard.judging.proposal import DataProfile, data_profile, propose_rubric
from dashboard.store import Store


@pytest.mark.parametrize(
    ("dataset", "expected"),
    [
        ("eo-rag", "likert-rag"),  # reference contexts and retrieved passages
        ("eo-conversational", "eve-0-5"),  # no context at all: the finest scale needing none
        ("eo-mcqa", None),  # no rating rubric is written for multiple choice
        ("eo-hallucination", None),
        (None, "likert-rag"),
    ],
)
def test_the_sample_gets_the_rubric_that_fits(sample_store: Store, dataset, expected) -> None:
    found = propose_rubric(list_rubrics(), data_profile(sample_store, dataset))
    assert (found.rubric if found else None) == expected


def test_the_profile_counts_what_a_rubric_may_need(sample_store: Store) -> None:
    profile = data_profile(sample_store, "eo-rag")
    with sample_store.connection() as con:
        items, with_context = con.execute(
            "SELECT count(*), count(reference_context) FROM items WHERE dataset = 'eo-rag'"
        ).fetchone()
        retrieved = con.execute(
            "SELECT count(*) FROM responses WHERE dataset = 'eo-rag' AND len(contexts) > 0"
        ).fetchone()[0]
    assert (profile.n_items, profile.n_reference_context, profile.n_retrieved) == (
        items,
        with_context,
        retrieved,
    )
    assert profile.task_types == ("open_qa_context",)
    assert data_profile(sample_store, "no such set") == DataProfile((), 0, 0, 0)


def test_retrieved_passages_alone_ask_for_a_rubric_that_shows_them() -> None:
    profile = DataProfile(("open_qa",), n_items=5, n_reference_context=0, n_retrieved=5)
    found = propose_rubric(list_rubrics(), profile)
    assert found is not None and found.rubric == "eve-0-5-context"
    assert "retrieved passages" in found.reason
