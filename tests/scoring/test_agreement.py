"""scoring.agreement against scikit-learn, scipy and the krippendorff package (test-only, GPL)."""

import math

import krippendorff
import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr
from sklearn.metrics import cohen_kappa_score, confusion_matrix as sk_confusion_matrix

from scoring.agreement import (
    cohen_kappa,
    cohen_kappa_from_confusion,
    confusion_matrix,
    kendall_tau,
    krippendorff_alpha,
    mean_bias,
    percent_agreement,
    spearman,
)

SCALE = [1, 2, 3, 4, 5]
WEIGHTS = [None, "linear", "quadratic"]


# -- percent agreement, bias -------------------------------------------------------------


def test_percent_agreement() -> None:
    a = [1, 2, 3, 4, None]
    b = [1, 3, 3, 1, 5]
    # last pair dropped (missing); equal on pairs 0 and 2 of 4 -> 0.5
    assert percent_agreement(a, b) == 0.5
    # |diff| = [0, 1, 0, 3]: within 1 on 3 of 4 -> 0.75
    assert percent_agreement(a, b, tolerance=1) == 0.75
    assert percent_agreement(["x", "y"], ["x", "z"]) == 0.5
    assert math.isnan(percent_agreement([], []))
    with pytest.raises(ValueError):
        percent_agreement([1, 2], [1])


def test_mean_bias() -> None:
    # judge - human = [1, -1, 2] (third pair dropped): mean = 2/3
    assert mean_bias([4, 2, None, 5], [3, 3, 1, 3]) == pytest.approx(2 / 3)
    assert mean_bias(np.array([5.0, np.nan]), np.array([3.0, 1.0])) == 2.0
    assert math.isnan(mean_bias([None], [3]))


# -- Cohen's kappa -----------------------------------------------------------------------


def test_kappa_hand_computed() -> None:
    # table [[20, 5], [10, 15]], n = 50: p_o = 35/50 = 0.7
    # marginals a: 25, 25; b: 30, 20 -> p_e = (25*30 + 25*20) / 50^2 = 0.5
    # kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    assert cohen_kappa_from_confusion([[20, 5], [10, 15]]) == pytest.approx(0.4)


def test_kappa_weights_use_the_full_scale() -> None:
    # No 3s at all: with labels=[1..5] the distance from 2 to 4 is 2 positions, not 1.
    a = [1, 2, 4, 5, 2, 4]
    b = [2, 4, 4, 5, 2, 1]
    for weights in WEIGHTS:
        ours = cohen_kappa(a, b, labels=SCALE, weights=weights)
        assert ours == pytest.approx(cohen_kappa_score(a, b, labels=SCALE, weights=weights))
    observed_only = cohen_kappa(a, b, labels=[1, 2, 4, 5], weights="linear")
    assert observed_only != pytest.approx(cohen_kappa(a, b, labels=SCALE, weights="linear"))


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("weights", WEIGHTS)
def test_kappa_matches_sklearn_on_random_data(seed: int, weights: str | None) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 400))
    a = rng.integers(1, 6, n)
    noise = rng.integers(-2, 3, n) * (rng.random(n) < 0.4)
    b = np.clip(a + noise, 1, 5)
    expected = cohen_kappa_score(a, b, labels=SCALE, weights=weights)
    assert cohen_kappa(a, b, labels=SCALE, weights=weights) == pytest.approx(expected)
    assert cohen_kappa(list(a), list(b), labels=SCALE, weights=weights) == pytest.approx(expected)
    table = confusion_matrix(a, b, labels=SCALE)
    np.testing.assert_array_equal(table, sk_confusion_matrix(a, b, labels=SCALE))
    assert cohen_kappa_from_confusion(table, weights=weights) == pytest.approx(expected)


def test_kappa_string_labels_and_missing_pairs() -> None:
    a = ["good", "bad", "good", None, "ok", "bad"]
    b = ["good", "good", "good", "bad", "ok", float("nan")]
    labels = ["bad", "ok", "good"]
    kept_a, kept_b = ["good", "bad", "good", "ok"], ["good", "good", "good", "ok"]
    expected = cohen_kappa_score(kept_a, kept_b, labels=labels)
    assert cohen_kappa(a, b, labels=labels) == pytest.approx(expected)


def test_kappa_degenerate() -> None:
    assert math.isnan(cohen_kappa([], [], labels=SCALE))
    # both raters always say 3: chance disagreement 0 -> nan (sklearn gives nan too)
    assert math.isnan(cohen_kappa([3, 3, 3], [3, 3, 3], labels=SCALE))
    assert cohen_kappa([1, 2, 3], [1, 2, 3], labels=SCALE) == 1.0
    with pytest.raises(ValueError, match="not in labels"):
        cohen_kappa([1, 6], [1, 2], labels=SCALE)
    with pytest.raises(ValueError):
        cohen_kappa_from_confusion([[1, 2, 3]])
    with pytest.raises(ValueError):
        cohen_kappa([1], [1], labels=SCALE, weights="cubic")


# -- Krippendorff's alpha ----------------------------------------------------------------

NAN = np.nan
# The examples of krippendorff.alpha's docstring, with the values it prints.
DOC_DATA_1 = [
    [NAN, NAN, NAN, NAN, NAN, 3, 4, 1, 2, 1, 1, 3, 3, NAN, 3],
    [1, NAN, 2, 1, 3, 3, 4, 3, NAN, NAN, NAN, NAN, NAN, NAN, NAN],
    [NAN, NAN, 2, 1, 3, 4, 4, NAN, 2, 1, 1, 3, 3, NAN, 4],
]
DOC_DATA_2 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]
WORDS = ["very low", "low", "mid", "high", "very high"]


def test_alpha_krippendorff_docstring_examples() -> None:
    assert round(krippendorff_alpha(DOC_DATA_1, level="nominal"), 6) == 0.691358
    assert round(krippendorff_alpha(DOC_DATA_1, level="interval"), 6) == 0.810845
    assert round(krippendorff_alpha(DOC_DATA_2, level="ordinal"), 3) == 0.815
    assert round(krippendorff_alpha(DOC_DATA_2, level="ordinal", values=SCALE), 3) == 0.815
    assert round(krippendorff_alpha(DOC_DATA_2, level="ratio"), 3) == 0.797
    as_words = [[None if math.isnan(v) else WORDS[int(v) - 1] for v in row] for row in DOC_DATA_2]
    assert round(krippendorff_alpha(as_words, level="ordinal", values=WORDS), 3) == 0.815
    assert round(krippendorff_alpha(as_words, level="nominal"), 3) == 0.743
    # The package's own string example: np.asarray turns its np.nan entries into "nan".
    with_nan = [[NAN if v is None else v for v in row] for row in as_words]
    assert np.asarray(with_nan).dtype.kind == "U"
    assert round(krippendorff_alpha(with_nan, level="ordinal", values=WORDS), 3) == 0.815
    assert round(krippendorff_alpha(with_nan, level="nominal"), 3) == 0.743


def test_alpha_hand_computed_nominal() -> None:
    # Two raters, units (a,a), (a,b), (b,b): n = 6 pairable values.
    # Coincidences: unit 1 adds o_aa = 2, unit 2 adds o_ab = o_ba = 1, unit 3 adds o_bb = 2.
    # D_o ~ sum of off-diagonal o = 2; n_a = n_b = 3 -> sum_{c!=k} n_c n_k = 2 * 9 = 18.
    # alpha = 1 - (n - 1) * 2 / 18 = 1 - 5 * 2 / 18 = 4/9
    assert krippendorff_alpha([["a", "a", "b"], ["a", "b", "b"]]) == pytest.approx(4 / 9)


LEVELS = ["nominal", "ordinal", "interval", "ratio"]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", LEVELS)
def test_alpha_matches_krippendorff_on_random_data(seed: int, level: str) -> None:
    rng = np.random.default_rng(seed)
    raters, units = int(rng.integers(2, 7)), int(rng.integers(3, 200))
    truth = rng.integers(1, 6, units)
    data = np.clip(truth + rng.integers(-1, 2, (raters, units)), 1, 5).astype(float)
    data[rng.random(data.shape) < 0.25] = np.nan
    expected = krippendorff.alpha(data, level_of_measurement=level)
    assert krippendorff_alpha(data, level=level) == pytest.approx(expected)
    expected = krippendorff.alpha(data, level_of_measurement=level, value_domain=list(range(7)))
    assert krippendorff_alpha(data, level=level, values=range(7)) == pytest.approx(expected)


@pytest.mark.parametrize("level", ["interval", "ratio"])
def test_alpha_matches_krippendorff_on_continuous_values(level: str) -> None:
    rng = np.random.default_rng(42)
    truth = rng.gamma(2.0, 2.0, 80)
    data = truth + rng.normal(0, 0.5, (4, 80))
    data = np.abs(data)
    data[rng.random(data.shape) < 0.2] = np.nan
    expected = krippendorff.alpha(data, level_of_measurement=level)
    assert krippendorff_alpha(data, level=level) == pytest.approx(expected)


def test_alpha_degenerate() -> None:
    assert math.isnan(krippendorff_alpha([[1, 2, 3]], level="interval"))  # single rater
    assert math.isnan(krippendorff_alpha([[1, NAN], [NAN, 2]]))  # nothing pairable
    assert math.isnan(krippendorff_alpha([[3, 3, 3], [3, 3, 3]]))  # no variation
    assert math.isnan(krippendorff_alpha(np.empty((0, 0))))
    assert krippendorff_alpha([[1, 2, 3], [1, 2, 3]], level="ordinal") == 1.0
    with pytest.raises(ValueError, match="not in labels"):
        krippendorff_alpha([[1, 9], [1, 2]], values=SCALE)
    with pytest.raises(ValueError):
        krippendorff_alpha([["x", "y"], ["x", "x"]], level="interval")
    with pytest.raises(ValueError, match="values="):
        krippendorff_alpha([["x", "y"], ["x", "x"]], level="ordinal")
    with pytest.raises(ValueError):
        krippendorff_alpha([1, 2, 3])


# -- rank correlations -------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_rank_correlations_match_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 500))
    if seed % 2:  # heavy ties: ratings on a 1-5 scale
        a = rng.integers(1, 6, n)
        b = np.clip(a + rng.integers(-1, 2, n), 1, 5)
    else:
        a = rng.normal(size=n)
        b = a + rng.normal(size=n)
    assert spearman(a, b) == pytest.approx(spearmanr(a, b).statistic)
    assert kendall_tau(a, b) == pytest.approx(kendalltau(a, b).statistic)


def test_rank_correlations_hand_computed() -> None:
    # a = [1, 2, 3], b = [1, 3, 2]: d = [0, -1, 1], rho = 1 - 6 * 2 / (3 * 8) = 0.5
    # pairs: (1,2) concordant, (1,3) concordant, (2,3) discordant -> tau = (2 - 1) / 3
    assert spearman([1, 2, 3], [1, 3, 2]) == pytest.approx(0.5)
    assert kendall_tau([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3)
    assert kendall_tau([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)


def test_rank_correlations_degenerate() -> None:
    for func in (spearman, kendall_tau):
        assert math.isnan(func([], []))
        assert math.isnan(func([1], [2]))
        assert math.isnan(func([2, 2, 2], [1, 2, 3]))  # all ties on one side
        assert func([1, None, 3, 2], [1, 5, 3, 2]) == pytest.approx(1.0)  # pair dropped


def test_alpha_accepts_none_in_numeric_lists() -> None:
    with_none = [[None if math.isnan(v) else v for v in row] for row in DOC_DATA_1]
    assert krippendorff_alpha(with_none, level="interval") == pytest.approx(
        krippendorff_alpha(DOC_DATA_1, level="interval")
    )


def test_kappa_on_more_ratings_than_one_chunk() -> None:
    # confusion_matrix encodes in chunks of 131,072; cross a few chunk boundaries
    rng = np.random.default_rng(11)
    a = rng.integers(1, 6, 300_001)
    b = np.clip(a + rng.integers(-2, 3, a.size), 1, 5).astype(float)
    b[::97] = np.nan
    keep = ~np.isnan(b)
    np.testing.assert_array_equal(
        confusion_matrix(a, b, labels=SCALE),
        sk_confusion_matrix(a[keep], b[keep].astype(int), labels=SCALE),
    )
    assert cohen_kappa(a, b, labels=SCALE, weights="linear") == pytest.approx(
        cohen_kappa_score(a[keep], b[keep].astype(int), labels=SCALE, weights="linear")
    )


def test_alpha_ratio_refuses_too_many_distinct_values() -> None:
    data = np.random.default_rng(0).random((2, 20_001)) + 1.0
    with pytest.raises(ValueError, match="distinct values"):
        krippendorff_alpha(data, level="ratio")
    assert not math.isnan(krippendorff_alpha(data, level="interval"))  # closed form: fine
