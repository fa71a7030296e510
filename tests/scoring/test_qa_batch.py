"""scoring.qa_batch against hand arithmetic and against scoring.qa, one pair at a time."""

from __future__ import annotations

import random

import numpy as np
import pytest

from scoring import qa, qa_batch


def _flat(texts: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    ids = np.array([t for text in texts for t in text], dtype=np.int64)
    return ids, np.array([len(text) for text in texts], dtype=np.int64)


def _overlap(preds: list[list[int]], refs: list[list[int]], owner: list[int]) -> qa_batch.Overlap:
    pred_ids, pred_lengths = _flat(preds)
    ref_ids, ref_lengths = _flat(refs)
    return qa_batch.overlap(pred_ids, pred_lengths, ref_ids, ref_lengths, np.array(owner, np.int64))


def test_overlap_by_hand() -> None:
    found = _overlap(
        [[1, 1, 2], [3, 4], []],
        [[1, 2], [2, 1, 1], [4, 3], [3, 4], [], [5]],
        [0, 0, 1, 1, 2, 2],
    )
    # pred [1, 1, 2] vs [1, 2]: common = min(2, 1) + min(1, 1) = 2, P = 2/3, R = 1, F1 = 0.8
    # vs [2, 1, 1]: the same multiset, another order: F1 1, EM 0
    # pred [3, 4] vs [4, 3]: F1 1, EM 0; vs [3, 4]: EM 1
    # pred [] vs []: both empty, EM 1 and F1 1; vs [5]: 0
    assert found.f1.tolist() == pytest.approx([0.8, 1.0, 1.0, 1.0, 1.0, 0.0])
    assert found.em.tolist() == [0.0, 0.0, 0.0, 1.0, 1.0, 0.0]


def test_combine_by_hand() -> None:
    scores = np.array([1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.2])
    n = np.array([4, 2, 1])
    # max: 1, 0.5, 0.2. leave-one-out: [0, 1, 1, 1] -> 0.75; a tied best stays 0.5; one
    # reference: its score.
    assert qa_batch.combine(scores, n, use_max=np.ones(3, bool)).tolist() == [1.0, 0.5, 0.2]
    assert qa_batch.combine(scores, n, use_max=np.zeros(3, bool)).tolist() == [0.75, 0.5, 0.2]


def test_empty_batch() -> None:
    found = _overlap([], [], [])
    assert len(found.em) == len(found.f1) == 0
    assert len(qa_batch.combine(np.zeros(0), np.zeros(0, np.int64), use_max=np.zeros(0))) == 0


def test_equals_scoring_qa_on_random_token_lists() -> None:
    # Words that normalize to themselves, so a text is its tokens joined by spaces.
    words = ["paris", "new", "york", "city", "big", "apple", "x", "1", "café"]
    rng = random.Random(0)
    preds = [[rng.randrange(len(words)) for _ in range(rng.randint(0, 6))] for _ in range(400)]
    owner = [i for i in range(400) for _ in range(rng.randint(1, 5))]
    refs = [[rng.randrange(len(words)) for _ in range(rng.randint(0, 6))] for _ in owner]
    found = _overlap(preds, refs, owner)
    text = [" ".join(words[t] for t in tokens) for tokens in preds]
    for j, i in enumerate(owner):
        ref = " ".join(words[t] for t in refs[j])
        assert found.em[j] == qa.exact_match(text[i], ref)
        assert found.f1[j] == qa.token_f1(text[i], ref)  # to the last digit
    n = np.bincount(owner, minlength=400)
    use_max = np.array([rng.random() < 0.5 for _ in range(400)])
    em = qa_batch.combine(found.em, n, use_max=use_max)
    f1 = qa_batch.combine(found.f1, n, use_max=use_max)
    starts = np.cumsum(n) - n
    for i in range(400):
        mine = [" ".join(words[t] for t in refs[j]) for j in range(starts[i], starts[i] + n[i])]
        rule = qa.max_over_references if use_max[i] else qa.multi_reference
        assert em[i] == rule(text[i], mine, qa.exact_match)
        assert f1[i] == rule(text[i], mine, qa.token_f1)
