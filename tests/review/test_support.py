"""The supporting passage of a context: hand-checked overlaps, edge cases, the sample."""

from __future__ import annotations

import pytest

from dashboard.review.detail import response_detail
from dashboard.review.support import content_words, sentence_spans, supporting_passage
from dashboard.store import Store

TEXT = "Alpha beta gamma. Delta epsilon zeta eta. Theta."


def test_sentences_are_cut_at_their_ends_and_keep_their_offsets() -> None:
    assert sentence_spans(TEXT) == [(0, 17), (18, 41), (42, 48)]
    assert sentence_spans("  one.\n\ntwo  ") == [(2, 6), (8, 11)]
    assert sentence_spans("") == []


def test_the_best_run_of_sentences_is_chosen_by_f1() -> None:
    # Reference {delta, epsilon, zeta}. Sentence 2 has 4 words, 3 shared: P = 3/4, R = 1,
    # F1 = 2·0.75/1.75 = 6/7. Sentences 2+3: P = 3/5, F1 = 0.75. Sentences 1+2: P = 3/7,
    # F1 = 0.6. So sentence 2 alone.
    found = supporting_passage(TEXT, ["delta epsilon zeta"])
    assert found is not None
    assert found.f1 == pytest.approx(6 / 7)
    assert (found.before, found.passage, found.after) == (
        "Alpha beta gamma. ",
        "Delta epsilon zeta eta.",
        " Theta.",
    )
    assert found.before + found.passage + found.after == TEXT


def test_the_best_of_several_references_counts() -> None:
    found = supporting_passage(TEXT, ["nothing here at all", "alpha beta gamma"])
    assert found is not None and found.passage == "Alpha beta gamma." and found.f1 == 1.0


@pytest.mark.parametrize(
    ("text", "references"),
    [
        (None, ["delta epsilon zeta"]),
        ("", ["delta epsilon zeta"]),
        (TEXT, []),
        (TEXT, ["the of and"]),  # stopwords only: nothing to match
        (TEXT, ["delta epsilon"]),  # two shared words are not enough
        # 3 of 20 reference words: against sentence 2, P = 3/4, R = 3/20,
        # F1 = 2·0.75·0.15/0.9 = 0.25 < 0.3, and every longer run is lower
        (TEXT, ["delta epsilon zeta " + " ".join(f"w{i}" for i in range(17))]),
    ],
)
def test_no_passage_when_the_overlap_means_nothing(text, references) -> None:
    assert supporting_passage(text, references) is None


def test_stopwords_and_case_do_not_count() -> None:
    assert content_words("The Sentinel-2 orbit of the satellites") == {
        "sentinel-2",
        "orbit",
        "satellites",
    }


def test_the_sample_rag_answer_has_its_reference_passage(sample_store: Store) -> None:
    with sample_store.connection() as con:
        response_id = con.execute(
            "SELECT r.response_id FROM responses r JOIN items i USING (item_id) "
            "WHERE i.external_id = 'eo-001' AND r.system = 'eo-rag-large'"
        ).fetchone()[0]
    detail = response_detail(sample_store, response_id)
    assert detail is not None
    found = supporting_passage(detail.item.reference_context, detail.item.reference_answers)
    assert found is not None
    assert found.passage.startswith("Each satellite revisits the same point every 10 days")
