"""scoring.qa against hand-computed cases and the SQuAD v1.1 reference implementation."""

import math
import re
import string
from collections import Counter

import pytest

from scoring.qa import (
    exact_match,
    max_over_references,
    multi_reference,
    normalize_answer,
    token_f1,
)


def _squad_normalize(s: str) -> str:
    # Verbatim logic of the official SQuAD v1.1 evaluate script, used as the reference.
    def remove_articles(text: str) -> str:
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text: str) -> str:
        return " ".join(text.split())

    def remove_punc(text: str) -> str:
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


def _squad_f1(prediction: str, ground_truth: str) -> float:
    prediction_tokens = _squad_normalize(prediction).split()
    ground_truth_tokens = _squad_normalize(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


CASES = [
    ("The Eiffel Tower!", "eiffel tower"),
    ("  an apple,  a day ", "apple day"),
    ("Theatre of the absurd", "theatre of absurd"),
    ("U.S.A.", "usa"),
    ("it's 5 o'clock", "its 5 oclock"),
    ("A", ""),
    ("Café—crème", "café—crème"),  # non-ASCII punctuation stays, as in SQuAD
    ("", ""),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_normalize_answer_matches_squad(text: str, expected: str) -> None:
    assert normalize_answer(text) == expected == _squad_normalize(text)


def test_exact_match() -> None:
    assert exact_match("The Beatles.", "beatles") == 1.0
    assert exact_match("Beatles", "The Rolling Stones") == 0.0
    assert exact_match("", "the") == 1.0  # both normalize to ""


def test_token_f1_hand_computed() -> None:
    # pred tokens [barack, obama, jr], ref tokens [obama]: common 1, P = 1/3, R = 1,
    # F1 = 2 * (1/3) * 1 / (1/3 + 1) = 0.5
    assert token_f1("Barack Obama Jr.", "Obama") == pytest.approx(0.5)
    # tokens are a multiset: pred [new, new, york], ref [new, york]: common = min counts
    # = new:1 + york:1 = 2, P = 2/3, R = 1, F1 = 2 * (2/3) / (2/3 + 1) = 0.8
    assert token_f1("new new york", "New York") == pytest.approx(0.8)
    assert token_f1("paris", "london") == 0.0


def test_token_f1_empty_token_lists_follow_coqa() -> None:
    assert token_f1("", "") == 1.0
    assert token_f1("the", "an") == 1.0  # both normalize to no tokens
    assert token_f1("", "Paris") == 0.0
    assert token_f1("Paris", "a") == 0.0


def test_token_f1_matches_squad_on_varied_pairs() -> None:
    pairs = [
        ("the cat sat on the mat", "a cat on a mat"),
        ("1,000 years", "1000 years ago"),
        ("Mount Everest, Nepal", "Nepal's Mount Everest"),
        ("x y z", "z y x"),
    ]
    for pred, ref in pairs:
        assert token_f1(pred, ref) == pytest.approx(_squad_f1(pred, ref))


def test_multi_reference_leave_one_out() -> None:
    refs = ["Paris", "Lyon", "Nice", "Lille"]
    # EM vector [1, 0, 0, 0]. Leaving out ref 0 leaves max 0; leaving out any other leaves
    # max 1. Mean of [0, 1, 1, 1] = 0.75.
    assert multi_reference("paris", refs, exact_match) == pytest.approx(0.75)
    # SQuAD's plain max would give 1.0
    assert max(exact_match("paris", r) for r in refs) == 1.0
    # Two references matched: every leave-one-out set still holds a match -> 1.0
    assert multi_reference("paris", ["Paris", "paris!", "Nice"], exact_match) == 1.0


def test_multi_reference_f1_hand_computed() -> None:
    # F1 against ["new york city", "york", "boston"] for "new york":
    #   vs "new york city": common 2, P = 1, R = 2/3 -> F1 = 0.8
    #   vs "york": common 1, P = 1/2, R = 1 -> F1 = 2/3
    #   vs "boston": 0
    # leave out 0 -> max(2/3, 0) = 2/3; leave out 1 -> 0.8; leave out 2 -> 0.8
    # mean = (2/3 + 0.8 + 0.8) / 3
    refs = ["New York City", "York", "Boston"]
    assert multi_reference("new york", refs, token_f1) == pytest.approx((2 / 3 + 0.8 + 0.8) / 3)


def test_multi_reference_single_and_empty() -> None:
    assert multi_reference("Paris", ["paris"], exact_match) == 1.0
    assert multi_reference("Paris", ["Lyon"], token_f1) == 0.0
    assert math.isnan(multi_reference("Paris", [], exact_match))


def test_multi_reference_equals_brute_force() -> None:
    import random

    rng = random.Random(0)
    words = ["a", "new", "york", "city", "the", "big", "apple", "paris"]
    for _ in range(200):
        pred = " ".join(rng.choices(words, k=rng.randint(0, 4)))
        refs = [" ".join(rng.choices(words, k=rng.randint(0, 4))) for _ in range(rng.randint(2, 5))]
        brute = sum(
            max(token_f1(pred, r) for j, r in enumerate(refs) if j != i) for i in range(len(refs))
        ) / len(refs)
        assert multi_reference(pred, refs, token_f1) == pytest.approx(brute)


def test_the_two_rules_on_one_of_four_references_matched() -> None:
    refs = ["Paris", "Lyon", "Nice", "Lille"]
    # EM vector [1, 0, 0, 0]: SQuAD's and NQ-open's max is 1; the leave-one-out mean of
    # [0, 1, 1, 1] is 0.75.
    assert max_over_references("paris", refs, exact_match) == 1.0
    assert multi_reference("paris", refs, exact_match) == 0.75


def test_the_two_rules_on_two_of_four_references_partly_matched() -> None:
    # "new york" against ["new york city" (F1 0.8), "york" (2/3), "boston" (0), "chicago" (0)]:
    # max 0.8; leave-one-out: without ref 0 the best is 2/3, without any other it is 0.8,
    # so (2/3 + 0.8 + 0.8 + 0.8) / 4.
    refs = ["New York City", "York", "Boston", "Chicago"]
    assert max_over_references("new york", refs, token_f1) == pytest.approx(0.8)
    assert multi_reference("new york", refs, token_f1) == pytest.approx((2 / 3 + 3 * 0.8) / 4)
    # two references matched exactly: every leave-one-out set still holds one, as the max
    two = ["Paris", "paris!", "Nice", "Lille"]
    assert multi_reference("paris", two, exact_match) == max_over_references(
        "paris", two, exact_match
    )


def test_max_over_references_single_and_empty() -> None:
    assert max_over_references("Paris", ["paris"], exact_match) == 1.0
    assert max_over_references("Paris", ["Lyon"], token_f1) == 0.0
    assert math.isnan(max_over_references("Paris", [], exact_match))


def test_the_leave_one_out_sum_runs_left_to_right() -> None:
    # The n held-out scores are added in the references' order, one at a time (what Python
    # 3.11's sum does, and what the batch twin reproduces), not with 3.12's compensated sum.
    refs = ["a b c d e f g", "a b c", "a b c d", "z"]
    scores = [token_f1("a b c d e", r) for r in refs]
    best, second = sorted(scores, reverse=True)[:2]
    held_out = [second if s == best else best for s in scores]
    total = 0.0
    for value in held_out:
        total = total + value
    assert multi_reference("a b c d e", refs, token_f1) == total / 4
