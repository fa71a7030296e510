"""EM and token F1 of many responses at once: the same numbers as `scoring.qa`, to the last
digit, about fifty times faster than calling it once a response.

`scoring.qa.normalize_answer` lower-cases, drops ASCII punctuation, replaces the whole words
a/an/the by a space and splits on whitespace. Every one of those steps stays within the stretch
of text between two spaces (U+0020): lower-casing is per character (its one exception, the final
sigma, looks no further than a space), punctuation is dropped per character, an article never
holds a space and a space is no word character for `\\b`, and splitting at a space is part of
splitting at whitespace. So the tokens of a text are the tokens of its space-separated pieces,
in order, and a piece is normalized once however often it occurs:

1. pyarrow splits the texts at spaces and dictionary-encodes the pieces;
2. each distinct piece is normalized: a piece of printable ASCII (every character in `!`..`~`)
   in pyarrow (lower-case, drop punctuation; no token if that leaves nothing or an article),
   any other piece (non-ASCII, tabs, newlines, control characters) by
   `scoring.qa.normalize_answer` itself;
3. the normalized tokens get integer ids, and `scoring.qa_batch` computes EM and F1 on ids.

Batches are scored in a few threads: pyarrow and numpy release the GIL while they work.
A randomized test (tests/metrics/test_reference_qa.py) compares every number with
`scoring.qa` on mixed ASCII, Unicode, punctuation, article and whitespace texts.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scoring import qa, qa_batch

PRINTABLE_ASCII = r"^[!-~]*$"  # what step 2 normalizes in pyarrow (a piece holds no space)
PUNCTUATION = "[" + "".join("\\" + c for c in string.punctuation) + "]"
ARTICLES = ("a", "an", "the")
# Threads that score batches at once; more than the cores gains nothing.
MAX_WORKERS = 4


class Tokens(NamedTuple):
    """The normalized tokens of several texts as ids: `lengths[i]` of them for text i."""

    ids: np.ndarray
    lengths: np.ndarray


class BatchScores(NamedTuple):
    """EM and F1 of each response of a batch, in the batch's order."""

    response_id: pa.Array
    em: np.ndarray
    f1: np.ndarray


def _list_lengths(lists: pa.ListArray) -> np.ndarray:
    return np.diff(lists.offsets.to_numpy(zero_copy_only=False).astype(np.int64))


def _piece_tokens(pieces: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """The normalized tokens of each distinct piece: (how many, all of them in piece order)."""
    simple = pc.match_substring_regex(pieces, PRINTABLE_ASCII).to_numpy(zero_copy_only=False)
    lowered = pc.replace_substring_regex(pc.ascii_lower(pieces), PUNCTUATION, "")
    kept = pc.invert(pc.is_in(lowered, pa.array(("", *ARTICLES))))
    one = simple & kept.to_numpy(zero_copy_only=False)
    counts = one.astype(np.int64)
    simple_tokens = pc.filter(lowered, pa.array(one))
    others = np.flatnonzero(~simple)
    if not len(others):
        return counts, simple_tokens
    found = [
        qa.normalize_answer(text).split() for text in pieces.take(pa.array(others)).to_pylist()
    ]
    counts[others] = [len(tokens) for tokens in found]
    starts = np.cumsum(counts) - counts
    # Where each token goes in piece order: the ASCII pieces' one token each, then the others'.
    n_other = counts[others]
    within = np.arange(int(n_other.sum())) - np.repeat(np.cumsum(n_other) - n_other, n_other)
    order = np.empty(int(counts.sum()), np.int64)
    order[starts[one]] = np.arange(len(simple_tokens))
    order[np.repeat(starts[others], n_other) + within] = len(simple_tokens) + np.arange(len(within))
    pool = pa.concat_arrays(
        [simple_tokens, pa.array([t for tokens in found for t in tokens], pa.string())]
    )
    return counts, pool.take(pa.array(order))


def _per_text(counts: np.ndarray, pieces_per_text: np.ndarray) -> np.ndarray:
    """Sums of consecutive runs of `counts`, `pieces_per_text[i]` long for text i."""
    if len(counts) and pieces_per_text.min(initial=1) > 0:  # a text has a piece, "" too
        return np.add.reduceat(counts, np.cumsum(pieces_per_text) - pieces_per_text, dtype=np.int64)
    total = np.concatenate(([0], np.cumsum(counts, dtype=np.int64)))
    ends = np.cumsum(pieces_per_text)
    return total[ends] - total[ends - pieces_per_text]


def token_ids(texts: pa.Array) -> Tokens:
    """The tokens of `qa.normalize_answer(text).split()` for every text, as ids that are equal
    exactly when the tokens' texts are."""
    pieces = pc.split_pattern(texts, " ")
    pieces_per_text = _list_lengths(pieces)
    encoded = pc.dictionary_encode(pc.list_flatten(pieces))
    indices = encoded.indices.to_numpy(zero_copy_only=False)
    counts, tokens = _piece_tokens(encoded.dictionary)
    ids = pc.dictionary_encode(tokens).indices.to_numpy(zero_copy_only=False)
    starts = np.cumsum(counts) - counts
    if counts.max(initial=0) <= 1:  # usual: every piece is one token or none
        single = np.full(len(counts), -1, ids.dtype)
        single[counts == 1] = ids
        found = single[indices]
        kept = found >= 0
        return Tokens(found[kept].astype(np.int64), _per_text(kept, pieces_per_text))
    lengths = counts[indices]
    within = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    found = ids[np.repeat(starts[indices], lengths) + within]
    return Tokens(found.astype(np.int64), _per_text(lengths, pieces_per_text))


def score_batch(batch: pa.RecordBatch) -> BatchScores:
    """EM and F1 of each response of a batch with the columns `response_id`, `answer`,
    `references` (a non-empty list of texts) and `use_max` (the rule: max over the
    references, else the leave-one-out mean)."""
    answers = batch.column("answer")
    references = batch.column("references")
    n_references = _list_lengths(references)
    texts = pa.concat_arrays(
        [answers.cast(pa.string()), pc.list_flatten(references).cast(pa.string())]
    )
    tokens = token_ids(texts)
    n = len(answers)
    split = int(tokens.lengths[:n].sum())
    owner = np.repeat(np.arange(n, dtype=np.int64), n_references)
    scores = qa_batch.overlap(
        tokens.ids[:split], tokens.lengths[:n], tokens.ids[split:], tokens.lengths[n:], owner
    )
    use_max = batch.column("use_max").to_numpy(zero_copy_only=False)
    return BatchScores(
        batch.column("response_id"),
        qa_batch.combine(scores.em, n_references, use_max=use_max),
        qa_batch.combine(scores.f1, n_references, use_max=use_max),
    )


def score_batches(batches: Iterable[pa.RecordBatch], *, workers: int = 2) -> Iterator[BatchScores]:
    """Score batches in `workers` threads, yielding their scores in order; at most two batches
    per thread are in memory at once."""
    with ThreadPoolExecutor(max(1, min(workers, MAX_WORKERS))) as pool:
        pending: list[Future[BatchScores]] = []
        for batch in batches:
            pending.append(pool.submit(score_batch, batch))
            if len(pending) >= 2 * workers:
                yield pending.pop(0).result()
        for future in pending:
            yield future.result()
