"""scoring.workbench against scikit-learn, scipy and the krippendorff package (test-only)."""

import math

import krippendorff
import numpy as np
import pytest
from scipy.stats import binomtest, bootstrap, chi2
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import cohen_kappa_score

from scoring.workbench import (
    McNemar,
    PairedDifference,
    isotonic_map,
    mcnemar,
    paired_difference,
    reduce_epochs,
    self_consistency,
    verdict,
)


def _three(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    people = rng.integers(1, 6, n)
    a = np.clip(people + rng.integers(-2, 3, n), 1, 5)
    b = np.clip(people + rng.integers(-1, 2, n), 1, 5)
    return people, a, b


# -- paired difference -------------------------------------------------------------------


def test_kappa_difference_point_estimate_matches_sklearn() -> None:
    people, a, b = _three(80, 1)
    got = paired_difference(people, a, b, statistic="quadratic_kappa", n_boot=50)
    labels = sorted(set(people) | set(a) | set(b))
    ka = cohen_kappa_score(people, a, weights="quadratic", labels=labels)
    kb = cohen_kappa_score(people, b, weights="quadratic", labels=labels)
    assert got.a == pytest.approx(ka)
    assert got.b == pytest.approx(kb)
    assert got.difference == pytest.approx(kb - ka)
    assert got.n == 80


def test_kappa_bootstrap_equals_a_hand_loop_on_the_same_indices() -> None:
    people, a, b = _three(40, 2)
    got = paired_difference(people, a, b, statistic="quadratic_kappa", n_boot=300, seed=7)
    rng = np.random.default_rng(7)
    index = rng.integers(0, 40, size=(300, 40))
    labels = [1, 2, 3, 4, 5]
    reps = []
    for row in index:
        with np.errstate(invalid="ignore", divide="ignore"):
            kb = cohen_kappa_score(people[row], b[row], weights="quadratic", labels=labels)
            ka = cohen_kappa_score(people[row], a[row], weights="quadratic", labels=labels)
        reps.append(kb - ka)
    low, high = np.nanquantile(reps, [0.025, 0.975])
    assert (got.low, got.high) == pytest.approx((low, high))


def test_kappa_interval_close_to_scipy_paired_bootstrap() -> None:
    people, a, b = _three(200, 3)
    got = paired_difference(people, a, b, statistic="quadratic_kappa", n_boot=2000, seed=0)

    def diff(p: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
        labels = [1, 2, 3, 4, 5]
        kb = cohen_kappa_score(p, y, weights="quadratic", labels=labels)
        return float(kb - cohen_kappa_score(p, x, weights="quadratic", labels=labels))

    ref = bootstrap(
        (people, a, b),
        diff,
        paired=True,
        vectorized=False,
        n_resamples=2000,
        method="percentile",
        random_state=np.random.default_rng(1),
    ).confidence_interval
    # different random draws: the ends agree to Monte Carlo error
    assert got.low == pytest.approx(ref.low, abs=0.03)
    assert got.high == pytest.approx(ref.high, abs=0.03)
    assert got.low < got.difference < got.high


def test_exact_difference_matches_scipy_bootstrap_and_hand_count() -> None:
    people, a, b = _three(150, 4)
    got = paired_difference(people, a, b, statistic="exact", n_boot=2000, seed=0)
    assert got.difference == pytest.approx(np.mean(b == people) - np.mean(a == people))
    gain = (b == people).astype(float) - (a == people).astype(float)
    ref = bootstrap(
        (gain,), np.mean, n_resamples=2000, method="percentile", random_state=1
    ).confidence_interval
    assert got.low == pytest.approx(ref.low, abs=0.02)
    assert got.high == pytest.approx(ref.high, abs=0.02)


def test_paired_difference_hand_cases() -> None:
    # people [1, 2, 3, None]; a right on 1 of 3, b right on 3 of 3 -> +2/3; the None is dropped
    got = paired_difference([1, 2, 3, None], [1, 1, 1, 2], [1, 2, 3, 3], statistic="exact")
    assert got.n == 3
    assert got.difference == pytest.approx(2 / 3)
    # identical versions: every replicate is 0
    same = paired_difference([1, 2, 3], [1, 2, 2], [1, 2, 2], statistic="quadratic_kappa")
    assert (same.difference, same.low, same.high) == (0.0, 0.0, 0.0)
    empty = paired_difference([], [], [], statistic="exact")
    assert empty.n == 0 and math.isnan(empty.difference) and math.isnan(empty.low)
    # one label throughout: kappa undefined
    flat = paired_difference([3, 3], [3, 3], [3, 3], statistic="quadratic_kappa")
    assert math.isnan(flat.difference) and math.isnan(flat.low)
    with pytest.raises(ValueError, match="statistic"):
        paired_difference([1], [1], [1], statistic="spearman")
    with pytest.raises(ValueError, match="equal length"):
        paired_difference([1, 2], [1], [1, 2], statistic="exact")


# -- McNemar -----------------------------------------------------------------------------


def test_mcnemar_against_scipy() -> None:
    rng = np.random.default_rng(5)
    people = rng.integers(0, 2, 120)
    a = np.where(rng.random(120) < 0.7, people, 1 - people)
    b = np.where(rng.random(120) < 0.85, people, 1 - people)
    got = mcnemar(people, a, b)
    only_a = int(np.sum((a == people) & (b != people)))
    only_b = int(np.sum((a != people) & (b == people)))
    assert (got.b, got.c, got.n) == (only_a, only_b, 120)
    assert got.p_value == pytest.approx(binomtest(only_a, only_a + only_b).pvalue)
    stat = (abs(only_a - only_b) - 1) ** 2 / (only_a + only_b)
    assert got.chi2 == pytest.approx(stat)
    assert got.chi2_p_value == pytest.approx(chi2.sf(stat, 1))


def test_mcnemar_hand_cases() -> None:
    # b = 0, c = 5: exact p = 2 * 0.5^5 = 0.0625; chi2 = (5 - 1)^2 / 5 = 3.2
    people = ["pass"] * 5 + ["fail"]
    a = ["fail"] * 5 + ["fail"]
    b = ["pass"] * 5 + ["fail"]
    got = mcnemar(people, a, b)
    assert (got.b, got.c) == (0, 5)
    assert got.p_value == pytest.approx(0.0625)
    assert got.chi2 == pytest.approx(3.2)
    none = mcnemar([1, 0], [1, 0], [1, 0])
    assert none.p_value == 1.0 and math.isnan(none.chi2)
    assert mcnemar([], [], []).n == 0


# -- verdict -----------------------------------------------------------------------------


def _diff(low: float, high: float, n: int = 50) -> PairedDifference:
    return PairedDifference("exact", (low + high) / 2, low, high, n, 0.5, 0.6, 0.95)


def test_verdict_reads_the_interval() -> None:
    assert verdict(_diff(0.01, 0.2), noun="answers") == "better"
    assert verdict(_diff(-0.2, -0.01), noun="answers") == "worse"
    assert verdict(_diff(-0.1, 0.2), noun="answers") == "cannot tell with n = 50 answers"
    assert verdict(_diff(math.nan, math.nan, 0), noun="items") == "cannot tell with n = 0 items"


def test_verdict_needs_mcnemar_to_agree_for_pass_fail() -> None:
    significant = McNemar(50, 1, 12, 0.003, 7.7, 0.005)
    weak = McNemar(50, 3, 8, 0.23, 1.5, 0.2)
    assert verdict(_diff(0.01, 0.2), noun="answers", test=significant) == "better"
    assert verdict(_diff(0.01, 0.2), noun="answers", test=weak).startswith("cannot tell")
    assert verdict(_diff(-0.2, -0.01), noun="answers", test=significant).startswith("cannot")


# -- isotonic map ------------------------------------------------------------------------


def _sklearn_fit(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> IsotonicRegression:
    return IsotonicRegression(out_of_bounds="clip").fit(x, y, sample_weight=w)


def test_isotonic_matches_sklearn_with_ties_and_clipping() -> None:
    rng = np.random.default_rng(6)
    judge = rng.integers(1, 11, 300).astype(float)  # many tied x values
    people = np.clip(judge / 2 + rng.normal(0, 1.5, 300), 1, 5)
    fitted = isotonic_map(judge, people)
    reference = _sklearn_fit(judge, people)
    queries = np.array([-3.0, 0.5, 1, 2.5, 5, 7.25, 10, 12])  # below, between, above
    assert fitted.apply(queries) == pytest.approx(reference.predict(queries))
    assert fitted.apply(judge) == pytest.approx(reference.predict(judge))
    assert np.all(np.diff(fitted.y) >= 0)


def test_isotonic_matches_sklearn_with_weights() -> None:
    rng = np.random.default_rng(8)
    judge = rng.normal(size=60).round(1)
    people = judge + rng.normal(size=60)
    w = rng.integers(1, 5, 60).astype(float)
    fitted = isotonic_map(judge, people, weights=w)
    assert fitted.apply(judge) == pytest.approx(_sklearn_fit(judge, people, w).predict(judge))
    # a weight of k is k copies of the pair
    copies = isotonic_map(np.repeat(judge, w.astype(int)), np.repeat(people, w.astype(int)))
    assert copies.y == pytest.approx(fitted.y)


def test_isotonic_hand_cases() -> None:
    # y = [1, 3, 2]: the last two violate and pool to 2.5
    assert isotonic_map([1, 2, 3], [1, 3, 2]).y == pytest.approx((1, 2.5, 2.5))
    # tied x = 1 pooled first: mean(1, 3) = 2, then 2 > 1 pools to (2*2 + 1)/3 = 5/3
    assert isotonic_map([1, 1, 2], [1, 3, 1]).y == pytest.approx((5 / 3, 5 / 3))
    single = isotonic_map([4, 4], [2, 3])
    assert single.apply([1, 4, 9]) == pytest.approx([2.5, 2.5, 2.5])
    empty = isotonic_map([None], [3])
    assert empty.x == () and np.isnan(empty.apply([1, 2])).all()
    assert np.isnan(isotonic_map([1, 2], [1, 2]).apply([None, 1.5])[0])


# -- self-consistency and reducers -------------------------------------------------------


def test_self_consistency_against_numpy_and_krippendorff() -> None:
    rng = np.random.default_rng(9)
    truth = rng.integers(1, 6, 40)
    ratings = np.clip(truth[:, None] + rng.integers(-1, 2, (40, 3)), 1, 5).astype(float)
    ratings[3, 1] = np.nan
    got = self_consistency(ratings)
    assert got.n_answers == 40 and got.n_epochs == 3
    assert got.mean_sd == pytest.approx(np.mean(np.nanstd(ratings, axis=1)))
    same = [len(set(r[~np.isnan(r)])) == 1 for r in ratings]
    assert got.share_all_agree == pytest.approx(np.mean(same))
    ref = krippendorff.alpha(reliability_data=ratings.T, level_of_measurement="interval")
    assert got.alpha == pytest.approx(ref)


def test_self_consistency_intervals_against_scipy_bootstrap() -> None:
    rng = np.random.default_rng(11)
    truth = rng.integers(1, 6, 120)
    ratings = np.clip(truth[:, None] + rng.integers(-1, 2, (120, 4)), 1, 5).astype(float)
    got = self_consistency(ratings, n_resamples=2000, seed=0)
    sd = np.std(ratings, axis=1)
    same = (ratings.max(axis=1) == ratings.min(axis=1)).astype(float)

    def scipy_ci(values: np.ndarray) -> tuple[float, float]:
        ci = bootstrap(
            (values,),
            np.mean,
            n_resamples=2000,
            method="percentile",
            random_state=np.random.default_rng(1),
        ).confidence_interval
        return float(ci.low), float(ci.high)

    # different random draws: the ends agree to Monte Carlo error
    for found, values in ((got.mean_sd_ci, sd), (got.share_all_agree_ci, same)):
        low, high = scipy_ci(values)
        assert found.estimate == pytest.approx(values.mean())
        assert (found.low, found.high) == pytest.approx((low, high), abs=0.02)
        assert found.low < found.estimate < found.high

    def alpha_of(index: np.ndarray) -> float:
        rows = ratings[index.astype(int)]
        return float(krippendorff.alpha(reliability_data=rows.T, level_of_measurement="interval"))

    ref = bootstrap(
        (np.arange(len(ratings)),),
        alpha_of,
        vectorized=False,
        n_resamples=1000,
        method="percentile",
        random_state=np.random.default_rng(2),
    ).confidence_interval
    assert got.alpha_ci.estimate == got.alpha
    assert (got.alpha_ci.low, got.alpha_ci.high) == pytest.approx((ref.low, ref.high), abs=0.03)
    assert got.alpha_ci.low < got.alpha < got.alpha_ci.high
    # seeded, and blind to which epoch gave which rating of an answer
    assert self_consistency(ratings, n_resamples=2000, seed=0) == got
    assert self_consistency(ratings[:, ::-1], n_resamples=2000, seed=0) == got


def test_self_consistency_hand_cases() -> None:
    # answer 1: [2, 4] sd 1; answer 2: [3, 3] sd 0; answer 3 has one rating and is skipped
    got = self_consistency([[2, 4], [3, 3], [5, None]])
    assert got.n_answers == 2
    assert got.mean_sd == pytest.approx(0.5)
    assert got.share_all_agree == 0.5
    perfect = self_consistency([[1, 1, 1], [4, 4, 4]])
    assert perfect.mean_sd == 0 and perfect.share_all_agree == 1 and perfect.alpha == 1
    # one answer: every resample is that answer (a zero-width interval); alpha has no spread
    one = self_consistency([[2, 4]])
    assert (one.mean_sd_ci.low, one.mean_sd_ci.high) == (1.0, 1.0)
    assert (one.share_all_agree_ci.low, one.share_all_agree_ci.high) == (0.0, 0.0)
    nothing = self_consistency([[3], [None, 2]])
    assert nothing.n_answers == 0 and math.isnan(nothing.mean_sd) and math.isnan(nothing.alpha)
    assert math.isnan(nothing.mean_sd_ci.low) and math.isnan(nothing.alpha_ci.high)
    assert self_consistency([]).n_answers == 0


def test_reduce_epochs() -> None:
    assert reduce_epochs([1, 2, 4], "mean") == pytest.approx(7 / 3)
    assert reduce_epochs([1, 2, 4, 5], "median") == 3.0
    assert reduce_epochs([4, 2, 2, 4, 5], "mode") == 2.0  # tie 2 vs 4: the lower
    assert reduce_epochs([3, None, 3, 1], "mode") == 3.0
    assert math.isnan(reduce_epochs([None, float("nan")], "mean"))
    with pytest.raises(ValueError, match="how"):
        reduce_epochs([1], "max")
