"""scoring.pairwise: win rates, swap reconciliation, Bradley-Terry against scikit-learn."""

import math

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from scoring.pairwise import (
    NOT_JUDGED,
    bradley_terry,
    flip_rate,
    order_state,
    pair_verdict,
    panel_order_verdict,
    reconcile_swap,
    win_rate,
    win_rate_ci,
    win_rate_detail,
)
from scoring.stats import bootstrap_mean_ci_from_counts


def test_win_rate_detail_hand_computed() -> None:
    # scores [1, 1, 0.5, 0]: mean = 2.5 / 4 = 0.625
    # deviations [0.375, 0.375, -0.125, -0.625], squares sum = 0.140625 * 2 + 0.015625
    # + 0.390625 = 0.6875; var (ddof=1) = 0.6875 / 3; SE = sqrt(var / 4)
    d = win_rate_detail(["win", "win", "tie", "loss", None])
    assert (d.n_wins, d.n_ties, d.n_losses, d.n_unscored) == (2, 1, 1, 1)
    assert d.win_rate == 0.625
    assert d.standard_error == pytest.approx(math.sqrt(0.6875 / 3 / 4))
    assert d.standard_error == pytest.approx(np.std([1, 1, 0.5, 0], ddof=1) / 2)


def test_win_rate_detail_degenerate() -> None:
    empty = win_rate_detail([])
    assert math.isnan(empty.win_rate) and math.isnan(empty.standard_error)
    one = win_rate_detail(["tie"])
    assert one.win_rate == 0.5 and math.isnan(one.standard_error)
    assert win_rate_detail(["win"] * 5).standard_error == 0.0  # no variation
    with pytest.raises(ValueError, match="outcomes"):
        win_rate_detail(["won"])


def test_win_rate_averages_evaluators() -> None:
    outcomes = {
        "gpt-4": ["win", "win", "loss", "tie"],  # (2 + 0.5) / 4 = 0.625
        "human": ["loss", "tie"],  # (0 + 0.5) / 2 = 0.25
        "silent": [None],  # no scored verdict: left out
    }
    # EVE: mean over evaluators (0.625 + 0.25) / 2 = 0.4375, not the pooled 3 / 6 = 0.5
    assert win_rate(outcomes) == pytest.approx(0.4375)
    assert math.isnan(win_rate({}))
    assert math.isnan(win_rate({"x": []}))


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("A", "A", "A"),
        ("B", "B", "B"),
        ("tie", "tie", "tie"),
        ("A", "B", "tie"),
        ("B", "A", "tie"),
        ("A", "tie", "tie"),
        ("tie", "B", "tie"),
        (None, "A", None),
        ("A", None, None),
        (None, None, None),
    ],
)
def test_reconcile_swap(first: str | None, second: str | None, expected: str | None) -> None:
    assert reconcile_swap(first, second) == expected


def test_reconcile_swap_rejects_frame_errors() -> None:
    with pytest.raises(ValueError):
        reconcile_swap("1", "A")


def test_flip_rate() -> None:
    # scored pairs: (A,A), (A,B), (tie,A), (B,B); the None pair is left out -> 2 / 4
    assert flip_rate(["A", "A", "tie", "B", None], ["A", "B", "A", "B", "A"]) == 0.5
    assert math.isnan(flip_rate([], []))
    with pytest.raises(ValueError):
        flip_rate(["A"], [])
    # a pair judged in one order only has nothing to flip
    assert flip_rate(["A", "A"], [NOT_JUDGED, "B"]) == 1.0


@pytest.mark.parametrize(
    ("shown_a_first", "shown_b_first", "expected"),
    [
        ("A", "A", "A"),
        ("A", "B", "tie"),  # FastChat: an inconsistent pair is a tie
        ("B", NOT_JUDGED, "B"),  # one order judged: its verdict
        (NOT_JUDGED, "tie", "tie"),
        # an order that did not parse makes the pair unscored: the other never stands in
        ("A", None, None),
        (None, "B", None),
        (None, NOT_JUDGED, None),
    ],
)
def test_pair_verdict(
    shown_a_first: str | None, shown_b_first: str | None, expected: str | None
) -> None:
    assert pair_verdict(shown_a_first, shown_b_first) == expected


def test_pair_verdict_needs_a_judged_order() -> None:
    with pytest.raises(ValueError):
        pair_verdict(NOT_JUDGED, NOT_JUDGED)
    assert order_state(None, judged=True) is None
    assert order_state(None, judged=False) == NOT_JUDGED
    with pytest.raises(ValueError):
        order_state("A", judged=False)


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        (["A", "A", "B"], "A"),  # 2 of 3
        (["A", "B"], "tie"),  # a split is a tie
        (["A", "tie"], "tie"),
        (["A", "A", "B", "tie"], "tie"),  # 2 of 4 is no strict majority
        (["B", None, None], "B"),  # unparsed verdicts are skipped
        ([None, None], None),  # judged, none scored: unscored
        ([], NOT_JUDGED),
    ],
)
def test_panel_order_verdict(verdicts: list, expected: str | None) -> None:
    assert panel_order_verdict(verdicts) == expected


# -- Bradley-Terry -----------------------------------------------------------------------


def test_bradley_terry_two_systems_hand_computed() -> None:
    # x beats y 3 times out of 4: P = 0.75 = 1 / (1 + 10^(-d / 400)) -> d = 400 log10(3)
    # = 190.85; with mean rating 1000 the ratings are 1000 +- 95.42
    battles = [("x", "y", "A")] * 3 + [("y", "x", "A")]
    fit = bradley_terry(battles, n_bootstrap=0)
    assert fit.ratings["x"].rating == pytest.approx(1000 + 200 * math.log10(3))
    assert fit.ratings["y"].rating == pytest.approx(1000 - 200 * math.log10(3))
    assert fit.ratings["x"].n_battles == 4
    assert math.isnan(fit.ratings["x"].low) and fit.reason is None


def test_bradley_terry_tie_is_half_a_win() -> None:
    # x: 1 win + 2 ties = 2 of 4; y the same -> equal ratings
    fit = bradley_terry([("x", "y", "A"), ("x", "y", "B"), ("x", "y", "tie"), ("y", "x", "tie")])
    assert fit.ratings["x"].rating == pytest.approx(1000)
    assert fit.ratings["y"].rating == pytest.approx(1000)
    # x: 3 wins + 1 tie = 3.5 of 5 -> P = 0.7 -> d = 400 log10(0.7 / 0.3)
    fit = bradley_terry([("x", "y", "A")] * 3 + [("x", "y", "tie"), ("x", "y", "B")])
    d = fit.ratings["x"].rating - fit.ratings["y"].rating
    assert d == pytest.approx(400 * math.log10(7 / 3))


def _random_battles(seed: int, n_systems: int, n: int) -> list[tuple[str, str, str]]:
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 1.0, n_systems)
    battles = []
    for _ in range(n):
        i, j = rng.choice(n_systems, 2, replace=False)
        p = 1 / (1 + math.exp(strength[j] - strength[i]))
        u = rng.random()
        outcome = "tie" if u < 0.15 else ("A" if u < 0.15 + 0.85 * p else "B")
        battles.append((f"s{i}", f"s{j}", outcome))
    return battles


def _sklearn_elo(battles: list[tuple[str, str, str]]) -> dict[str, float]:
    # Reference fit: logistic regression without penalty or intercept on +1/-1 indicator
    # rows. Each battle is a "first system won" row weighted by its win share (1, 0.5 or 0)
    # and a "lost" row weighted by the rest, so a tie is half a win.
    systems = sorted({s for a, b, _ in battles for s in (a, b)})
    index = {s: i for i, s in enumerate(systems)}
    share = {"A": 1.0, "B": 0.0, "tie": 0.5}
    rows, ys, weights = [], [], []
    for a, b, outcome in battles:
        x = np.zeros(len(systems))
        x[index[a]], x[index[b]] = 1.0, -1.0
        for y, w in ((1, share[outcome]), (0, 1.0 - share[outcome])):
            if w > 0:
                rows.append(x)
                ys.append(y)
                weights.append(w)
    model = LogisticRegression(C=np.inf, fit_intercept=False, tol=1e-12, max_iter=10_000)
    model.fit(np.array(rows), np.array(ys), sample_weight=np.array(weights))
    theta = model.coef_[0] - model.coef_[0].mean()
    return {s: 1000 + 400 / math.log(10) * theta[i] for s, i in index.items()}


@pytest.mark.parametrize("seed", range(3))
def test_bradley_terry_matches_unpenalized_logistic_regression(seed: int) -> None:
    battles = _random_battles(seed, n_systems=6, n=600)
    fit = bradley_terry(battles, n_bootstrap=200, seed=seed)
    reference = _sklearn_elo(battles)
    for system, rating in reference.items():
        assert fit.ratings[system].rating == pytest.approx(rating, abs=1e-3)
        assert fit.ratings[system].low < rating < fit.ratings[system].high
    ratings = [r.rating for r in fit.ratings.values()]
    assert np.mean(ratings) == pytest.approx(1000)
    assert fit.n_bootstrap_used == 200


def test_bradley_terry_bootstrap_is_seeded() -> None:
    battles = _random_battles(7, n_systems=4, n=300)
    first = bradley_terry(battles, n_bootstrap=100, seed=3)
    assert bradley_terry(battles, n_bootstrap=100, seed=3) == first
    assert bradley_terry(battles, n_bootstrap=100, seed=4) != first


def test_bradley_terry_degenerate() -> None:
    assert bradley_terry([]).ratings == {}
    # perfect separation: x always wins -> the MLE is infinite, reported as nan with a reason
    fit = bradley_terry([("x", "y", "A")] * 5, n_bootstrap=50)
    assert all(math.isnan(r.rating) for r in fit.ratings.values())
    assert fit.reason is not None and fit.n_bootstrap_used == 0
    # two disconnected groups: no common scale
    split = [("a", "b", "A"), ("a", "b", "B"), ("c", "d", "A"), ("c", "d", "B")]
    assert math.isnan(bradley_terry(split).ratings["a"].rating)
    # a chain a > b > c where c also beat a once is strongly connected: finite
    chain = [("a", "b", "A"), ("b", "c", "A"), ("c", "a", "A")]
    fit = bradley_terry(chain, n_bootstrap=20)
    assert fit.ratings["a"].rating == pytest.approx(1000)  # symmetric cycle
    assert fit.n_bootstrap_used < 20  # many resamples break the cycle and are left out
    with pytest.raises(ValueError):
        bradley_terry([("x", "x", "A")])
    with pytest.raises(ValueError):
        bradley_terry([("x", "y", "win")])


def test_win_rate_ci() -> None:
    # EVE estimate: gpt-4 (3 + 0.5) / 5 = 0.7, human (1 + 0) / 3 = 1/3 -> mean 0.51666...
    ci = win_rate_ci({"gpt-4": [3, 1, 1], "human": [1, 0, 2], "idle": [0, 0, 0]}, seed=1)
    assert ci.estimate == pytest.approx((0.7 + 1 / 3) / 2)
    assert ci.low < ci.estimate < ci.high
    # one evaluator: the same multinomial draws as the histogram bootstrap of scores 1/0.5/0
    one = win_rate_ci({"e": [30, 10, 20]}, n_resamples=500, seed=4)
    same = bootstrap_mean_ci_from_counts([1.0, 0.5, 0.0], [30, 10, 20], n_resamples=500, seed=4)
    assert one.estimate == pytest.approx(same.estimate)
    assert (one.low, one.high) == pytest.approx((same.low, same.high))
    empty = win_rate_ci({})
    assert math.isnan(empty.estimate) and math.isnan(empty.low)
    with pytest.raises(ValueError):
        win_rate_ci({"e": [1, -1, 0]})
