"""Exact match and token F1 of many predictions at once, on token ids (numpy only).

`scoring.qa` scores one prediction against one reference from their text. This module gives
the same numbers, to the last digit, for a whole batch whose texts were already normalized
(`qa.normalize_answer`) and split into tokens, each token replaced by an integer id: two
tokens have the same id exactly when their text is equal. On such input

- exact match is the equality of the two id sequences (the normalized strings are the
  tokens joined by single spaces, and a token holds no whitespace);
- token F1 needs the size of the multiset intersection of the two sequences, which is found
  by sorting (text, token) keys and matching equal keys; precision, recall and F1 then follow
  the very floating-point operations of `qa.token_f1`;
- several references are combined by their maximum (`qa.max_over_references`) or by the
  leave-one-out mean (`qa.multi_reference`), summed left to right as there.

A batch is given as flat arrays: `pred_ids` holds the predictions' tokens one prediction after
the other, `pred_lengths[i]` how many belong to prediction i; likewise for the references, and
`owner[j]` is the prediction reference j belongs to (non-decreasing: a prediction's references
are consecutive).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

_ONE = np.uint64(1)


class Overlap(NamedTuple):
    """Per reference: exact match (0.0 or 1.0) and token F1 of its prediction against it."""

    em: np.ndarray
    f1: np.ndarray


def _starts(lengths: np.ndarray) -> np.ndarray:
    return np.cumsum(lengths) - lengths


def _signatures(ids: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each token's bit (its id mod 64) and each text's OR of its tokens' bits. A token whose
    bit is not in the other text's signature cannot be in the other text."""
    bits = np.left_shift(_ONE, (ids & 63).astype(np.uint64))
    signature = np.zeros(len(lengths), np.uint64)
    nonempty = lengths > 0
    if len(bits):
        signature[nonempty] = np.bitwise_or.reduceat(bits, _starts(lengths)[nonempty])
    return bits, signature


def _counted(rows: np.ndarray, ids: np.ndarray, n_ids: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (row, id) keys, sorted, with how often each occurs."""
    keys = np.sort(rows * n_ids + ids)
    if not len(keys):
        return keys, np.zeros(0, np.int64)
    first = np.empty(len(keys), bool)
    first[0] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    where = np.flatnonzero(first)
    return keys[where], np.diff(np.append(where, len(keys)))


def _common(
    pred_ids: np.ndarray,
    pred_lengths: np.ndarray,
    ref_ids: np.ndarray,
    ref_lengths: np.ndarray,
    owner: np.ndarray,
) -> np.ndarray:
    """Per reference, the size of the multiset intersection of its tokens and its
    prediction's: the sum over shared tokens of the smaller count."""
    n_ids = int(max(pred_ids.max(initial=-1), ref_ids.max(initial=-1))) + 1
    pred_bits, pred_signature = _signatures(pred_ids, pred_lengths)
    ref_bits, ref_signature = _signatures(ref_ids, ref_lengths)
    refs_signature = np.zeros(len(pred_lengths), np.uint64)
    if len(owner):
        first_ref = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        refs_signature[owner[first_ref]] = np.bitwise_or.reduceat(ref_signature, first_ref)
    pred_row = np.repeat(np.arange(len(pred_lengths), dtype=np.int64), pred_lengths)
    ref_row = np.repeat(np.arange(len(ref_lengths), dtype=np.int64), ref_lengths)
    keep_pred = (pred_bits & np.repeat(refs_signature, pred_lengths)) != 0
    keep_ref = (ref_bits & np.repeat(pred_signature[owner], ref_lengths)) != 0
    pred_keys, pred_counts = _counted(pred_row[keep_pred], pred_ids[keep_pred], n_ids)
    ref_keys, ref_counts = _counted(ref_row[keep_ref], ref_ids[keep_ref], n_ids)
    common = np.zeros(len(ref_lengths), np.int64)
    if not len(pred_keys) or not len(ref_keys):
        return common
    reference = ref_keys // n_ids
    probe = owner[reference] * n_ids + (ref_keys - reference * n_ids)
    at = np.minimum(np.searchsorted(pred_keys, probe), len(pred_keys) - 1)
    match = pred_keys[at] == probe
    shared = np.minimum(pred_counts[at[match]], ref_counts[match])
    common += np.bincount(reference[match], weights=shared, minlength=len(ref_lengths)).astype(
        np.int64
    )
    return common


def _same_sequence(
    pred_ids: np.ndarray,
    pred_lengths: np.ndarray,
    ref_ids: np.ndarray,
    ref_lengths: np.ndarray,
    owner: np.ndarray,
    candidates: np.ndarray,
) -> np.ndarray:
    """Which candidate references (of the same length as their prediction) hold the same
    tokens in the same order."""
    n = ref_lengths[candidates]
    within = np.arange(int(n.sum())) - np.repeat(_starts(n), n)
    pred_at = np.repeat(_starts(pred_lengths)[owner[candidates]], n) + within
    ref_at = np.repeat(_starts(ref_lengths)[candidates], n) + within
    differ = pred_ids[pred_at] != ref_ids[ref_at]
    mismatches = np.bincount(np.repeat(np.arange(len(candidates)), n), weights=differ)
    return np.pad(mismatches, (0, len(candidates) - len(mismatches))) == 0


def overlap(
    pred_ids: np.ndarray,
    pred_lengths: np.ndarray,
    ref_ids: np.ndarray,
    ref_lengths: np.ndarray,
    owner: np.ndarray,
) -> Overlap:
    """EM and token F1 of each reference's prediction against it, as `qa.exact_match` and
    `qa.token_f1` give them: precision = common / |pred|, recall = common / |ref|,
    F1 = 2PR / (P + R); 1.0 when both token lists are empty, 0.0 when one is or none is
    shared."""
    n_pred = pred_lengths[owner]
    common = _common(pred_ids, pred_lengths, ref_ids, ref_lengths, owner)
    em = np.zeros(len(ref_lengths))
    candidates = np.flatnonzero((n_pred == ref_lengths) & (common == ref_lengths))
    same = _same_sequence(pred_ids, pred_lengths, ref_ids, ref_lengths, owner, candidates)
    em[candidates[same]] = 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = common / n_pred
        recall = common / ref_lengths
        f1 = 2 * precision * recall / (precision + recall)
    empty = (n_pred == 0) | (ref_lengths == 0)
    f1 = np.where(empty, (n_pred == ref_lengths).astype(float), np.where(common == 0, 0.0, f1))
    return Overlap(em, f1)


def combine(scores: np.ndarray, n_references: np.ndarray, *, use_max: np.ndarray) -> np.ndarray:
    """Each prediction's score over its references (every prediction has at least one): the
    maximum where `use_max`, else the leave-one-out mean of `qa.multi_reference` (with one
    reference, its score). Leaving out reference i leaves the maximum unless i holds the
    unique maximum, which leaves the runner-up; the n values are summed left to right."""
    if not len(n_references):
        return np.zeros(0)
    starts = _starts(n_references)
    best = np.maximum.reduceat(scores, starts)
    at_best = scores == np.repeat(best, n_references)
    n_best = np.add.reduceat(at_best.astype(np.int64), starts)
    runner_up = np.maximum.reduceat(np.where(at_best, -np.inf, scores), starts)
    unique = np.repeat(n_best == 1, n_references)
    held_out = np.where(
        at_best & unique, np.repeat(runner_up, n_references), np.repeat(best, n_references)
    )
    total = held_out[starts].copy()
    for j in range(1, int(n_references.max())):
        longer = np.flatnonzero(n_references > j)
        total[longer] = total[longer] + held_out[starts[longer] + j]
    leave_one_out = np.where(n_references == 1, scores[starts], total / n_references)
    return np.where(use_max, best, leave_one_out)
