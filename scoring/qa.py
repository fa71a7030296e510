"""Open-domain QA metrics: SQuAD-style normalization, exact match, token F1, multi-reference.

The normalization and token F1 follow the official SQuAD v1.1 / CoQA / TopiOCQA evaluation
scripts, so numbers are comparable with published results.
"""

from __future__ import annotations

import functools
import math
import operator
import re
import string
from collections import Counter
from collections.abc import Callable, Sequence

# Deleting through a translation table is the SQuAD script's character filter, done in C.
_DROP_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """Normalize an answer the way the SQuAD, CoQA and TopiOCQA scripts do.

    Lowercase, drop ASCII punctuation (``string.punctuation``), drop the words a/an/the, and
    collapse runs of whitespace to one space. The empty string normalizes to "".
    """
    lowered = text.lower()
    no_punct = lowered.translate(_DROP_PUNCTUATION)
    # Articles are replaced by a space (not deleted) so that neighbours stay separate tokens.
    no_articles = _ARTICLES.sub(" ", no_punct)
    return " ".join(no_articles.split())


def exact_match(prediction: str, reference: str) -> float:
    """1.0 if the normalized prediction equals the normalized reference, else 0.0.

    Two strings that both normalize to "" (e.g. "" and "The.") match: 1.0.
    """
    return float(normalize_answer(prediction) == normalize_answer(reference))


def token_f1(prediction: str, reference: str) -> float:
    """Token-level F1 between normalized prediction and reference (SQuAD/CoQA).

    precision = |common| / |pred tokens|, recall = |common| / |ref tokens|, where common is the
    multiset intersection, and F1 = 2PR / (P + R). Following CoQA/TopiOCQA, if either token list
    is empty the result is 1.0 when both are empty and 0.0 otherwise; no overlap gives 0.0.
    """
    pred_tokens = normalize_answer(prediction).split()
    ref_tokens = normalize_answer(reference).split()
    if not pred_tokens or not ref_tokens:
        return float(pred_tokens == ref_tokens)
    n_common = sum((Counter(pred_tokens) & Counter(ref_tokens)).values())
    if n_common == 0:
        return 0.0
    precision = n_common / len(pred_tokens)
    recall = n_common / len(ref_tokens)
    return 2 * precision * recall / (precision + recall)


def max_over_references(
    prediction: str,
    references: Sequence[str],
    metric: Callable[[str, str], float],
) -> float:
    """Score a prediction against several references by the best of them: the official rule of
    SQuAD v1.1 (``metric_max_over_ground_truths`` in its evaluation script) and of NQ-open.

    ``max_j metric(prediction, references[j])``. Matching one of four references gives EM 1.
    With no references the result is nan.
    """
    if not references:
        return math.nan
    return float(max(metric(prediction, ref) for ref in references))


def multi_reference(
    prediction: str,
    references: Sequence[str],
    metric: Callable[[str, str], float],
) -> float:
    """Score a prediction against several references with the CoQA/TopiOCQA leave-one-out rule.

    With n > 1 references, for each i the prediction is scored against the set of the other
    n-1 references by the max over that set, and the n scores are averaged:
    ``mean_i max_{j != i} metric(prediction, references[j])``. Matching exactly one of four
    references therefore gives EM 0.75, not 1. This keeps machine scores comparable with the
    human score, which those datasets compute by holding out each human answer in turn.

    Open QA with a list of gold answers (SQuAD, NQ-open) takes the plain max instead, which is
    never lower than this average: `max_over_references`.

    With a single reference the prediction is scored against it directly. With no references
    the result is nan. The n scores are summed left to right, in the references' order, so the
    result does not depend on how a Python version sums floats (3.12 compensates `sum`).
    """
    refs = list(references)
    if not refs:
        return math.nan
    scores = [metric(prediction, ref) for ref in refs]
    if len(scores) == 1:
        return float(scores[0])
    # The max without reference i is the overall max unless i is the unique argmax (then it is
    # the runner-up); this avoids re-scoring n-1 references n times.
    ordered = sorted(scores, reverse=True)
    best, second = ordered[0], ordered[1]
    loo = [second if s == best and best != second else best for s in scores]
    return float(functools.reduce(operator.add, loo)) / len(loo)
