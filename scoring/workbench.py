"""The judge workbench's statistics: two versions of a judge compared on the same items, a
map from a judge's scale onto people's, and the spread of a judge asked several times.

- `paired_difference`: kappa or exact agreement of version b minus version a, with a paired
  bootstrap interval (the same resampled items for both versions).
- `mcnemar`: McNemar's test on the items one version gets right and the other wrong.
- `verdict`: "better", "worse" or "cannot tell with n = …" from those.
- `isotonic_map`: the increasing step function closest to people's scores (pool adjacent
  violators), as scikit-learn's `IsotonicRegression`.
- `self_consistency` and `reduce_epochs`: a judge asked N times per answer.

Items where any compared side is missing (None or nan) are dropped. Randomness only from
``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring._alpha import ALPHA_LEVELS, krippendorff_alpha
from scoring._encode import as_array, encode, missing_mask
from scoring.agreement import cohen_kappa, percent_agreement
from scoring.agreement_ci import krippendorff_alpha_ci
from scoring.stats import CI, bootstrap_ci

PAIRED_STATISTICS: tuple[str, ...] = ("quadratic_kappa", "exact")
EPOCH_REDUCERS: tuple[str, ...] = ("mean", "median", "mode")
_CHUNK_CELLS = 1 << 22  # resampled items held in memory at once


@dataclass(frozen=True)
class PairedDifference:
    """`statistic` of version b minus version a against people, over `n` items.

    `low` and `high` are the percentile bootstrap interval at `level`; `a` and `b` are the
    two versions' own values on the same items.
    """

    statistic: str
    difference: float
    low: float
    high: float
    n: int
    a: float
    b: float
    level: float


@dataclass(frozen=True)
class McNemar:
    """McNemar's test of two versions' pass/fail verdicts against people's, on `n` items.

    `b`: items version a gets right and version b wrong; `c`: a wrong and b right.
    `p_value` is the exact two-sided binomial p; `chi2` (with continuity correction) and
    `chi2_p_value` are the large-sample form.
    """

    n: int
    b: int
    c: int
    p_value: float
    chi2: float
    chi2_p_value: float


def _floats(values: object) -> np.ndarray:
    """A 1-D float array with None as nan."""
    items = values.ravel().tolist() if isinstance(values, np.ndarray) else list(values)  # type: ignore[call-overload]  # any iterable of numbers or None
    return np.array([math.nan if v is None else float(v) for v in items], dtype=float)


def _complete(*sides: npt.ArrayLike) -> list[np.ndarray]:
    arrays = [as_array(s) for s in sides]
    if any(a.ndim != 1 or a.shape != arrays[0].shape for a in arrays):
        shapes = ", ".join(str(a.shape) for a in arrays)
        raise ValueError(f"expected 1-D sequences of equal length (one per item), got {shapes}")
    keep = ~np.logical_or.reduce([missing_mask(a) for a in arrays])
    return [a[keep] for a in arrays]


def _kappa_replicates(
    people: np.ndarray, judge: np.ndarray, index: np.ndarray, k: int
) -> np.ndarray:
    """Quadratic kappa of each row of resampled item indices (rows x n), codes 0..k-1."""
    rows = index.shape[0]
    cells = (people * k + judge)[index] + (np.arange(rows) * k * k)[:, None]
    table = np.bincount(cells.ravel(), minlength=rows * k * k).reshape(rows, k, k).astype(float)
    i, j = np.indices((k, k))
    w = ((i - j) ** 2).astype(float)
    n = table.sum(axis=(1, 2))
    expected = np.einsum("ri,rj->rij", table.sum(axis=2), table.sum(axis=1)) / n[:, None, None]
    chance = (w * expected).sum(axis=(1, 2))
    observed = (w * table).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(chance > 0, 1.0 - observed / chance, np.nan)


def paired_difference(
    people: npt.ArrayLike,
    judge_a: npt.ArrayLike,
    judge_b: npt.ArrayLike,
    *,
    statistic: str,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    labels: Sequence[object] | npt.ArrayLike | None = None,
) -> PairedDifference:
    """Agreement of judge_b with people minus that of judge_a, with a paired bootstrap interval.

    `statistic` is "quadratic_kappa" (Cohen's kappa with weights (i - j)^2 on the scale
    `labels`, default every value seen in any of the three, sorted; `scoring.agreement`'s
    `cohen_kappa`, as scikit-learn's ``cohen_kappa_score(weights="quadratic")``) or "exact"
    (share of items where the judge equals people). Items missing on any side are dropped.
    The interval resamples the n items with replacement n_boot times, the same indices for
    both versions (Efron & Tibshirani 1993, ch. 15; scipy's ``bootstrap(paired=True)``), and
    takes the percentile interval of the replicate differences at `level`; replicates on
    which kappa is undefined are left out. No complete item gives nan everywhere and n = 0;
    a kappa undefined on the full sample (one label throughout) gives a nan difference.
    """
    if statistic not in PAIRED_STATISTICS:
        raise ValueError(f"statistic must be one of {PAIRED_STATISTICS}, got {statistic!r}")
    if n_boot < 1 or not 0 < level < 1:
        raise ValueError(f"need n_boot >= 1 and 0 < level < 1, got {n_boot!r} and {level!r}")
    p, a, b = _complete(people, judge_a, judge_b)
    n = int(p.size)
    if n == 0:
        return PairedDifference(
            statistic, math.nan, math.nan, math.nan, 0, math.nan, math.nan, level
        )
    if statistic == "exact":
        value_a, value_b = percent_agreement(p, a), percent_agreement(p, b)
    else:
        scale = np.unique(np.concatenate([p, a, b])) if labels is None else labels
        value_a = cohen_kappa(p, a, labels=scale, weights="quadratic")
        value_b = cohen_kappa(p, b, labels=scale, weights="quadratic")
        codes, _ = encode(np.stack([p, a, b]), scale)
        k = len(np.asarray(scale))
    rng = np.random.default_rng(seed)
    replicates = np.empty(n_boot)
    rows = max(1, _CHUNK_CELLS // n)
    for start in range(0, n_boot, rows):
        index = rng.integers(0, n, size=(min(rows, n_boot - start), n))
        stop = start + index.shape[0]
        if statistic == "exact":
            gain = (b == p).astype(float) - (a == p).astype(float)
            replicates[start:stop] = gain[index].mean(axis=1)
        else:
            kappa_a = _kappa_replicates(codes[0], codes[1], index, k)
            kappa_b = _kappa_replicates(codes[0], codes[2], index, k)
            replicates[start:stop] = kappa_b - kappa_a
    difference = value_b - value_a
    kept = replicates[~np.isnan(replicates)]
    if kept.size == 0 or math.isnan(difference):
        low = high = math.nan
    else:
        tail = (1.0 - level) / 2
        low, high = (float(q) for q in np.quantile(kept, [tail, 1.0 - tail]))
    return PairedDifference(statistic, difference, low, high, n, value_a, value_b, level)


def _binomial_two_sided(k: int, n: int) -> float:
    """Exact two-sided p of k successes in n fair coin flips: min(1, 2 P(X <= min(k, n - k)))."""
    if n == 0:
        return 1.0
    low = min(k, n - k)
    # log-space terms keep large n from overflowing
    terms = [
        math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2)
        for i in range(low + 1)
    ]
    return min(1.0, 2.0 * math.fsum(math.exp(t) for t in terms))


def mcnemar(people: npt.ArrayLike, judge_a: npt.ArrayLike, judge_b: npt.ArrayLike) -> McNemar:
    """McNemar's test: do versions a and b of a pass/fail judge agree with people equally often?

    Over the items with all three verdicts (any labels, compared for equality with people's),
    b counts items a gets right and b wrong, c the reverse. Exact p = min(1, 2 * P(X <=
    min(b, c))) with X ~ Binomial(b + c, 1/2) (as scipy's ``binomtest(b, b + c)``);
    chi2 = (|b - c| - 1)^2 / (b + c) with Edwards' continuity correction, p from the
    chi-square with 1 degree of freedom (as R's ``mcnemar.test`` and statsmodels). No
    discordant item (b + c = 0) gives p_value 1.0 and chi2, chi2_p_value nan.
    """
    p, a, b = _complete(people, judge_a, judge_b)
    right_a, right_b = a == p, b == p
    only_a = int(np.sum(right_a & ~right_b))
    only_b = int(np.sum(~right_a & right_b))
    discordant = only_a + only_b
    if discordant == 0:
        return McNemar(int(p.size), only_a, only_b, 1.0, math.nan, math.nan)
    chi2 = (abs(only_a - only_b) - 1) ** 2 / discordant
    chi2_p = math.erfc(math.sqrt(chi2 / 2))  # survival function of chi-square, 1 df
    exact = _binomial_two_sided(only_a, discordant)
    return McNemar(int(p.size), only_a, only_b, exact, float(chi2), chi2_p)


def verdict(
    diff: PairedDifference, *, noun: str, test: McNemar | None = None, alpha: float = 0.05
) -> str:
    """ "better", "worse" or "cannot tell with n = {n} {noun}" for version b against version a.

    "better" when the interval lies above 0, "worse" when below; with a McNemar `test` (for
    pass/fail) its exact p must also be below `alpha`, in the same direction. Anything else
    (an interval touching 0, a nan interval, n = 0) cannot tell.
    """
    undecided = f"cannot tell with n = {diff.n} {noun}".rstrip()
    if diff.n == 0 or math.isnan(diff.low) or math.isnan(diff.high):
        return undecided
    word = "better" if diff.low > 0 else "worse" if diff.high < 0 else None
    if word is None:
        return undecided
    if test is not None:
        agrees = (test.c > test.b) == (word == "better")
        if not (test.p_value < alpha and agrees):
            return undecided
    return word


@dataclass(frozen=True)
class IsotonicMap:
    """An increasing map from judge scores onto people's: value y[i] at judge score x[i].

    Between knots it interpolates linearly, outside it clips to the end values (as
    scikit-learn's ``IsotonicRegression(out_of_bounds="clip").predict``). No knot gives nan.
    """

    x: tuple[float, ...]
    y: tuple[float, ...]

    def apply(self, scores: npt.ArrayLike) -> np.ndarray:
        """The mapped value of each score; nan (or None) stays nan."""
        s = _floats(scores)
        if not self.x:
            return np.full(s.shape, np.nan)
        return np.where(np.isnan(s), np.nan, np.interp(s, self.x, self.y))


def _pool_adjacent_violators(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The weighted least-squares increasing fit to y (Ayer et al. 1955), in O(n)."""
    means: list[float] = []
    weights: list[float] = []
    sizes: list[int] = []
    for value, weight in zip(y.tolist(), w.tolist(), strict=True):
        means.append(value)
        weights.append(weight)
        sizes.append(1)
        while len(means) > 1 and means[-2] >= means[-1]:
            total = weights[-2] + weights[-1]
            means[-2] = (means[-2] * weights[-2] + means[-1] * weights[-1]) / total
            weights[-2] = total
            sizes[-2] += sizes[-1]
            del means[-1], weights[-1], sizes[-1]
    return np.repeat(means, sizes)


def isotonic_map(
    judge_scores: npt.ArrayLike,
    people_scores: npt.ArrayLike,
    *,
    weights: npt.ArrayLike | None = None,
) -> IsotonicMap:
    """Fit the increasing map from judge scores to people's by pool adjacent violators.

    Minimises sum w_i (y_i - f(x_i))^2 over increasing f (Barlow et al. 1972). Pairs with a
    missing side are dropped; tied judge scores are first pooled into one knot (people's
    weighted mean, weights summed), as scikit-learn does. Empty input gives a map with no
    knot (every score maps to nan); a single distinct judge score maps everything to
    people's mean.
    """
    w_all = np.ones(len(as_array(judge_scores))) if weights is None else weights
    x, y, w = (v.astype(float) for v in _complete(judge_scores, people_scores, w_all))
    if x.size == 0:
        return IsotonicMap((), ())
    knots, index = np.unique(x, return_inverse=True)
    pooled_w = np.bincount(index, weights=w, minlength=knots.size)
    pooled_y = np.bincount(index, weights=w * y, minlength=knots.size) / pooled_w
    fitted = _pool_adjacent_violators(pooled_y, pooled_w)
    return IsotonicMap(tuple(knots.tolist()), tuple(float(v) for v in fitted))


_NAN_CI = CI(math.nan, math.nan, math.nan)


@dataclass(frozen=True)
class SelfConsistency:
    """How much a judge's N ratings of the same answer vary, over `n_answers` answers.

    `mean_sd`: mean over answers of the standard deviation of its ratings (ddof 0);
    `share_all_agree`: share of answers whose ratings are all equal; `alpha`:
    Krippendorff's alpha with the epochs as raters. Answers with fewer than two ratings
    are not counted. Each `*_ci` is that number with its percentile bootstrap interval over
    the answers (nan when there is none).
    """

    n_answers: int
    n_epochs: int
    mean_sd: float
    share_all_agree: float
    alpha: float
    mean_sd_ci: CI = _NAN_CI
    share_all_agree_ci: CI = _NAN_CI
    alpha_ci: CI = _NAN_CI


def _epoch_matrix(
    ratings_by_answer: Sequence[Sequence[float | None]] | np.ndarray,
) -> np.ndarray:
    rows = [_floats(row).tolist() for row in ratings_by_answer]
    width = max((len(r) for r in rows), default=0)
    return np.array([r + [np.nan] * (width - len(r)) for r in rows], dtype=float).reshape(
        len(rows), width
    )


def self_consistency(
    ratings_by_answer: Sequence[Sequence[float | None]] | np.ndarray,
    *,
    level: str = "interval",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> SelfConsistency:
    """Spread of a judge's repeated ratings: one row per answer, one rating per epoch.

    Rows may differ in length; None or nan is a missing (unscored) rating. Per answer with
    at least two ratings r_1..r_m: sd = sqrt(mean((r - mean(r))^2)) and "all agree" when
    every r is equal. alpha is `krippendorff_alpha` of the epochs x answers matrix at
    `level` (1 when the judge always repeats itself, unless all ratings are one value).
    The intervals resample the answers with replacement `n_resamples` times (percentile
    bootstrap at `confidence`): `stats.bootstrap_ci` of the per-answer sd and all-agree
    indicator, `agreement_ci.krippendorff_alpha_ci` for alpha (Efron & Tibshirani 1993).
    No answer with two ratings gives nan for all three numbers and n_answers = 0; a single
    answer gives a zero-width interval for the means and a nan one for alpha.
    """
    if level not in ALPHA_LEVELS:
        raise ValueError(f"level must be one of {ALPHA_LEVELS}, got {level!r}")
    m = _epoch_matrix(ratings_by_answer)
    counts = (~np.isnan(m)).sum(axis=1)
    repeated = m[counts >= 2]
    n_epochs = int(m.shape[1]) if m.size else 0
    if repeated.shape[0] == 0:
        return SelfConsistency(0, n_epochs, math.nan, math.nan, math.nan)
    sd = np.nanstd(repeated, axis=1)
    agree = np.nanmax(repeated, axis=1) == np.nanmin(repeated, axis=1)
    alpha = krippendorff_alpha(repeated.T, level=level)

    def mean_ci(values: np.ndarray) -> CI:
        return bootstrap_ci(values, n_resamples=n_resamples, confidence=confidence, seed=seed)

    alpha_ci = (
        krippendorff_alpha_ci(  # rows sorted: which epoch gave which rating must not matter
            np.sort(repeated, axis=1).T,
            level=level,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
        )
        if not math.isnan(alpha)
        else _NAN_CI
    )
    return SelfConsistency(
        int(repeated.shape[0]),
        n_epochs,
        float(sd.mean()),
        float(agree.mean()),
        float(alpha),
        mean_ci(sd),
        mean_ci(agree.astype(float)),
        CI(float(alpha), alpha_ci.low, alpha_ci.high),
    )


def reduce_epochs(values: Sequence[float | None] | np.ndarray, how: str = "mean") -> float:
    """One rating from a judge's N ratings of an answer: their mean, median or mode.

    None and nan (unscored epochs) are skipped. The median of an even count is the mean of
    the middle two. The mode is the most frequent rating; a tie goes to the lower value (the
    cautious rating, and the same answer on every run). No scored epoch gives nan.
    """
    if how not in EPOCH_REDUCERS:
        raise ValueError(f"how must be one of {EPOCH_REDUCERS}, got {how!r}")
    arr = _floats(values)
    arr = arr[~np.isnan(arr)]
    if arr.size == 0:
        return math.nan
    if how == "mean":
        return float(arr.mean())
    if how == "median":
        return float(np.median(arr).item())
    distinct, counts = np.unique(arr, return_counts=True)  # sorted, so argmax picks the lowest
    return float(distinct[int(np.argmax(counts))])
