"""A pairwise judge against a label (people's majority, or gold), under every published
convention, from one count table.

A judge's judgment of a pair is its verdict with A shown first and its verdict with B shown
first, each an order state of `scoring.pairwise` (a canonical verdict, None when it did not
parse, or NOT_JUDGED); the pair's label is a verdict, or None when the pair has none. Every
convention is a function of those three per pair, so a judge's pairs are a 5 x 5 x 4 count
table over (A-first state, B-first state, label), in the orders of ORDER_STATES and LABELS,
and every convention is a ratio of weighted sums of that table (`count_table` builds it).

Intervals are percentile bootstraps over pairs. Resampling n pairs with replacement is a
multinomial draw of n over the table's cells (as in `scoring.agreement_ci`), so 1,000
replicates of a million pairs cost what 1,000 draws over at most 100 cells cost. The
conventions against the label resample the scored labelled pairs; the label-free ones
(consistency, flip rate, position bias) resample the pairs judged and scored in both orders.

A pair with an order that did not parse is in no convention's pairs, labelled or not: it is
only counted (`unscored_pairs`, and its verdicts in `unscored_verdicts`). The one exception is
`accuracy`, LLMBar's Acc, which counts an unparsed verdict as wrong, as LLMBar's own
evaluate.py does; `accuracy_scored` is the same per-order accuracy over the scored pairs.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from scoring.pairwise import NOT_JUDGED, in_both_orders, is_unscored_pair, pair_verdict
from scoring.stats import percentile_ci

ORDER_STATES: tuple[str | None, ...] = ("A", "B", "tie", None, NOT_JUDGED)
LABELS: tuple[str | None, ...] = ("A", "B", "tie", None)
TABLE_SHAPE = (len(ORDER_STATES), len(ORDER_STATES), len(LABELS))
_VERDICTS = ("A", "B", "tie")


def vote_verdict(shown_a_first: str | None, shown_b_first: str | None) -> str | None:
    """The two orders' verdicts voting, as JudgeBench scores its leaderboard: the same verdict
    twice stands, A with a tie leans A, B with a tie leans B, A against B is a tie. One order
    judged (the other NOT_JUDGED) gives that order's verdict; an unparsed order gives None."""
    if is_unscored_pair(shown_a_first, shown_b_first):
        return None
    if not in_both_orders(shown_a_first, shown_b_first):
        return pair_verdict(shown_a_first, shown_b_first)
    votes = {"A": 1, "B": -1, "tie": 0}
    total = votes[str(shown_a_first)] + votes[str(shown_b_first)]
    return "A" if total > 0 else "B" if total < 0 else "tie"


def count_table(cells: Iterable[tuple[str | None, str | None, str | None, int]]) -> np.ndarray:
    """The 5 x 5 x 4 table of pairs per (A-first state, B-first state, label) from
    (A-first state, B-first state, label, count) rows; repeated cells add up. A state outside
    ORDER_STATES, a label outside LABELS, a negative count or a pair judged in neither order
    raises ValueError. No rows give a table of zeros."""
    table = np.zeros(TABLE_SHAPE, dtype=np.int64)
    for first, second, label, count in cells:
        if first not in ORDER_STATES or second not in ORDER_STATES or label not in LABELS:
            raise ValueError(f"not a pair cell: {(first, second, label)!r}")
        if first == NOT_JUDGED and second == NOT_JUDGED:
            raise ValueError("a pair needs at least one judged order")
        if count < 0:
            raise ValueError(f"a cell cannot hold {count} pairs")
        cell = ORDER_STATES.index(first), ORDER_STATES.index(second), LABELS.index(label)
        table[cell] += count
    return table


@dataclass(frozen=True)
class _Weights:
    """Per cell: 1 where the cell belongs to a set of pairs (or verdicts), else 0."""

    labelled: np.ndarray  # scored pairs with a label
    labelled_all: np.ndarray  # pairs with a label, an unparsed verdict or not (LLMBar's Acc)
    first_judged_all: np.ndarray  # labelled_all, the A-first order judged (parsed or not)
    first_hit_all: np.ndarray  # ... and equal to the label
    second_judged_all: np.ndarray
    second_hit_all: np.ndarray
    both: np.ndarray  # pairs judged and scored in both orders, labelled or not
    first_judged: np.ndarray  # labelled, the A-first order scored
    first_hit: np.ndarray  # ... and equal to the label
    second_judged: np.ndarray
    second_hit: np.ndarray
    both_hit: np.ndarray  # labelled, both orders, both equal to the label
    agreement_hit: np.ndarray  # labelled, the pair's verdict equals the label
    vote_hit: np.ndarray  # labelled, the orders' vote equals the label
    no_tie: np.ndarray  # labelled, neither the pair's verdict nor the label a tie
    no_tie_hit: np.ndarray
    consistent: np.ndarray  # both orders, the same verdict
    chose_first: np.ndarray  # both orders: verdicts that chose the answer shown first
    not_tie: np.ndarray  # both orders: verdicts that are not a tie
    unscored_verdicts: np.ndarray
    unscored_pairs: np.ndarray
    confusion: np.ndarray  # (5, 5, 4, 3, 3): labelled, the pair's verdict x the label


@functools.cache
def _weights() -> _Weights:
    w = {name: np.zeros(TABLE_SHAPE) for name in _Weights.__dataclass_fields__}
    w["confusion"] = np.zeros((*TABLE_SHAPE, 3, 3))
    for (i, f), (j, s), (k, label) in itertools.product(
        enumerate(ORDER_STATES), enumerate(ORDER_STATES), enumerate(LABELS)
    ):
        cell = (i, j, k)
        w["unscored_verdicts"][cell] = (f is None) + (s is None)
        if label is not None and not f == s == NOT_JUDGED:
            # LLMBar counts every labelled pair, a verdict it could not parse as wrong.
            w["labelled_all"][cell] = 1
            w["first_judged_all"][cell] = f != NOT_JUDGED
            w["first_hit_all"][cell] = f == label
            w["second_judged_all"][cell] = s != NOT_JUDGED
            w["second_hit_all"][cell] = s == label
        if is_unscored_pair(f, s) or f == s == NOT_JUDGED:
            w["unscored_pairs"][cell] = is_unscored_pair(f, s)
            continue
        verdict = pair_verdict(f, s)
        if in_both_orders(f, s):
            w["both"][cell] = 1
            w["consistent"][cell] = f == s
            w["chose_first"][cell] = (f == "A") + (s == "B")
            w["not_tie"][cell] = (f != "tie") + (s != "tie")
        if label is None:
            continue
        w["labelled"][cell] = 1
        w["first_judged"][cell] = f != NOT_JUDGED
        w["first_hit"][cell] = f == label
        w["second_judged"][cell] = s != NOT_JUDGED
        w["second_hit"][cell] = s == label
        w["both_hit"][cell] = in_both_orders(f, s) and f == s == label
        w["agreement_hit"][cell] = verdict == label
        w["vote_hit"][cell] = vote_verdict(f, s) == label
        w["no_tie"][cell] = verdict != "tie" and label != "tie"
        w["no_tie_hit"][cell] = verdict != "tie" and verdict == label
        w["confusion"][(*cell, _VERDICTS.index(str(verdict)), _VERDICTS.index(label))] = 1
    for array in w.values():
        array.flags.writeable = False
    return _Weights(**w)


def _sum(table: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted sums over the cells; `table` may carry leading replicate dimensions."""
    return np.tensordot(np.asarray(table, dtype=float), weights, axes=3)


def _ratio(table: np.ndarray, numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    num, den = _sum(table, numerator), _sum(table, denominator)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _per_order(
    table: np.ndarray, hits: tuple[np.ndarray, np.ndarray], judged: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """The mean over the two orders of each order's share of hits; an order no pair was
    judged in is left out of the mean."""
    first = _ratio(table, hits[0], judged[0])
    second = _ratio(table, hits[1], judged[1])
    both = (first + second) / 2
    return np.where(np.isnan(first), second, np.where(np.isnan(second), first, both))


def accuracy(table: np.ndarray) -> np.ndarray:
    """LLMBar's "Acc" (`correct_average` in LLMBar's LLMEvaluator/evaluate.py): for each
    presentation order, correct / judged over every labelled pair, a verdict that did not
    parse counting as wrong (LLMBar compares the parsed winner, None when its parsing found
    none, with the label); then the mean over the two orders. An order no pair was judged in
    is left out of the mean, so on one order it is that order's share (Auto-J's single-order
    accuracy). No labelled pair gives nan. `accuracy_scored` leaves unparsed pairs out."""
    w = _weights()
    return _per_order(
        table, (w.first_hit_all, w.second_hit_all), (w.first_judged_all, w.second_judged_all)
    )


def accuracy_scored(table: np.ndarray) -> np.ndarray:
    """Per-order accuracy as `accuracy`, over the scored labelled pairs only: a pair with a
    verdict that did not parse is left out (judgeboard's rule for every other convention),
    so it equals `accuracy` when every verdict parsed. No scored labelled pair gives nan."""
    w = _weights()
    return _per_order(table, (w.first_hit, w.second_hit), (w.first_judged, w.second_judged))


def accuracy_both_orders(table: np.ndarray) -> np.ndarray:
    """Share of the labelled pairs judged in both orders whose two verdicts both equal the
    label (LLMBar's `correct_both`, Auto-J's "agreement"). No such pair gives nan."""
    w = _weights()
    return _ratio(table, w.both_hit, w.both * w.labelled)


def agreement(table: np.ndarray) -> np.ndarray:
    """Share of the scored labelled pairs whose verdict (`scoring.pairwise.pair_verdict`: an
    order-inconsistent pair is a tie) equals the label, ties included (FastChat's MT-Bench
    agreement). It rewards inconsistency wherever the label is a tie. No pair gives nan."""
    w = _weights()
    return _ratio(table, w.agreement_hit, w.labelled)


def accuracy_vote(table: np.ndarray) -> np.ndarray:
    """Share of the scored labelled pairs whose orders' vote (`vote_verdict`) equals the
    label (JudgeBench's leaderboard accuracy). No pair gives nan."""
    w = _weights()
    return _ratio(table, w.vote_hit, w.labelled)


def kappa(table: np.ndarray) -> np.ndarray:
    """Cohen's kappa, unweighted over the classes A, B and tie, of the pair's verdict (as in
    `agreement`) against the label: (p_o - p_e) / (1 - p_e), with p_o the share of equal
    classes and p_e = sum over classes of the product of the two marginal shares (Cohen
    1960; sklearn's `cohen_kappa_score`). No pair, or p_e = 1 (both sides one class), nan."""
    confusion = _sum(table, _weights().confusion)
    n = confusion.sum(axis=(-2, -1))
    safe = np.where(n > 0, n, 1)[..., None]
    observed = np.trace(confusion, axis1=-2, axis2=-1) / safe[..., 0]
    chance = (confusion.sum(axis=-1) / safe * confusion.sum(axis=-2) / safe).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (observed - chance) / (1 - chance)
    return np.where((n > 0) & (chance < 1), value, np.nan)


def agreement_without_ties(table: np.ndarray) -> np.ndarray:
    """`agreement` on the scored labelled pairs where neither the pair's verdict nor the
    label is a tie. No such pair gives nan; see `coverage_without_ties`."""
    w = _weights()
    return _ratio(table, w.no_tie_hit, w.no_tie)


def coverage_without_ties(table: np.ndarray) -> np.ndarray:
    """Share of the scored labelled pairs that `agreement_without_ties` covers. No labelled
    pair gives nan."""
    w = _weights()
    return _ratio(table, w.no_tie, w.labelled)


def consistency(table: np.ndarray) -> np.ndarray:
    """Share of the pairs judged and scored in both orders, labelled or not, whose two
    canonical verdicts are the same (LLMBar's positional agreement, `equal`). No such pair
    gives nan."""
    w = _weights()
    return _ratio(table, w.consistent, w.both)


def flip_rate(table: np.ndarray) -> np.ndarray:
    """1 - `consistency`: the share of pairs judged in both orders whose two verdicts differ
    (`scoring.pairwise.flip_rate`). No such pair gives nan."""
    w = _weights()
    return _ratio(table, w.both - w.consistent, w.both)


def position_bias(table: np.ndarray) -> np.ndarray:
    """Among the verdicts of pairs judged in both orders that are not a tie, the share that
    chose the answer shown first ("A" with A shown first, "B" with B shown first). 0.5 is
    no position bias, above it the bias to the first position that Zheng et al. (2023,
    MT-Bench) found by swapping the order. No such verdict gives nan."""
    w = _weights()
    return _ratio(table, w.chose_first, w.not_tie)


@dataclass(frozen=True)
class Convention:
    """One convention's estimate, its 95% percentile bootstrap interval and its n."""

    estimate: float
    low: float
    high: float
    n: int


@dataclass(frozen=True)
class PairwiseAgreement:
    """Every convention of one judge (see each function), and the two unscored counts:
    `unscored_verdicts` counts verdicts that did not parse, `unscored_pairs` the pairs with
    at least one such verdict, labelled or not."""

    accuracy: Convention
    accuracy_scored: Convention
    accuracy_both_orders: Convention
    agreement: Convention
    accuracy_vote: Convention
    kappa: Convention
    agreement_without_ties: Convention
    coverage_without_ties: Convention
    consistency: Convention
    flip_rate: Convention
    position_bias: Convention
    unscored_verdicts: int
    unscored_pairs: int


# Each convention: its function, and the cells its n counts.
Rule = tuple[Callable[[np.ndarray], np.ndarray], str]
# LLMBar's Acc counts the labelled pairs with an unparsed verdict too: resampled apart.
_EVERY_LABELLED: dict[str, Rule] = {"accuracy": (accuracy, "labelled_all")}
_AGAINST_LABEL: dict[str, Rule] = {
    "accuracy_scored": (accuracy_scored, "labelled"),
    "accuracy_both_orders": (accuracy_both_orders, "both_labelled"),
    "agreement": (agreement, "labelled"),
    "accuracy_vote": (accuracy_vote, "labelled"),
    "kappa": (kappa, "labelled"),
    "agreement_without_ties": (agreement_without_ties, "no_tie"),
    "coverage_without_ties": (coverage_without_ties, "labelled"),
}
_LABEL_FREE: dict[str, Rule] = {
    "consistency": (consistency, "both"),
    "flip_rate": (flip_rate, "both"),
    "position_bias": (position_bias, "not_tie"),
}


def _n_weights(name: str) -> np.ndarray:
    w = _weights()
    if name == "both_labelled":
        return w.both * w.labelled
    return np.asarray(getattr(w, name))


def _replicates(
    table: np.ndarray, population: np.ndarray, n_resamples: int, seed: int
) -> np.ndarray:
    """(n_resamples, 5, 5, 4) tables, each n pairs drawn with replacement from the pairs of
    `table` that `population` marks (n of them)."""
    cells = (table * population).ravel()
    n = int(cells.sum())
    draws = np.zeros((n_resamples, cells.size))
    if n:
        present = np.flatnonzero(cells)
        rng = np.random.default_rng(seed)
        draws[:, present] = rng.multinomial(n, cells[present] / n, size=n_resamples)
    return draws.reshape(n_resamples, *TABLE_SHAPE)


def _convention(
    table: np.ndarray, replicates: np.ndarray, rule: Rule, confidence: float
) -> Convention:
    function, n_cells = rule
    estimate = float(function(table))
    n = int(round(float(_sum(table, _n_weights(n_cells)))))
    finite = function(replicates)
    finite = finite[~np.isnan(finite)]
    if math.isnan(estimate) or finite.size == 0:
        return Convention(estimate, math.nan, math.nan, n)
    ci = percentile_ci(estimate, finite, confidence=confidence)
    return Convention(ci.estimate, ci.low, ci.high, n)


def pairwise_agreement(
    table: np.ndarray, *, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> PairwiseAgreement:
    """Every convention of a judge's count table (`count_table`) with its interval and n.

    n counts the pairs behind each number: every labelled pair (accuracy, LLMBar's), the
    scored labelled pairs (accuracy_scored, agreement, accuracy_vote, kappa,
    coverage_without_ties), those judged in both orders
    (accuracy_both_orders), those without a tie (agreement_without_ties), the pairs judged
    in both orders (consistency, flip_rate), and for position_bias its non-tie verdicts. An
    empty table gives nan estimates with n = 0, and zero unscored counts.
    """
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples!r}")
    t = np.asarray(table, dtype=np.int64)
    if t.shape != TABLE_SHAPE or (t < 0).any():
        raise ValueError(f"expected a {TABLE_SHAPE} table of counts, got shape {t.shape}")
    w = _weights()
    found: dict[str, Convention] = {}
    # Each population is resampled on its own: the label-free conventions use every pair
    # judged in both orders, the others the scored labelled pairs.
    for rules, population in (
        (_EVERY_LABELLED, w.labelled_all),
        (_AGAINST_LABEL, w.labelled),
        (_LABEL_FREE, w.both),
    ):
        replicates = _replicates(t, population, n_resamples, seed)
        for name, rule in rules.items():
            found[name] = _convention(t, replicates, rule, confidence)
    return PairwiseAgreement(
        **found,
        unscored_verdicts=int(_sum(t, w.unscored_verdicts)),
        unscored_pairs=int(_sum(t, w.unscored_pairs)),
    )
