"""scoring.correlation: a judge against the mean of people at the item and the system level,
against scipy (the statistics, and scipy.stats.bootstrap for the intervals) and by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from scoring import correlation

RNG = np.random.default_rng(7)
JUDGE = RNG.integers(1, 6, 200).astype(float)
# people's mean of two ratings: halves occur, as they do for a mean
HUMAN = np.round(np.clip(JUDGE + RNG.normal(0, 1.3, 200), 1, 5) * 2) / 2


def test_item_level_equals_scipy() -> None:
    found = correlation.item_level(JUDGE, HUMAN)
    assert found["pearson"].estimate == pytest.approx(stats.pearsonr(JUDGE, HUMAN)[0])
    assert found["spearman"].estimate == pytest.approx(stats.spearmanr(JUDGE, HUMAN)[0])
    assert found["kendall"].estimate == pytest.approx(stats.kendalltau(JUDGE, HUMAN)[0])
    assert {c.n for c in found.values()} == {200}


@pytest.mark.parametrize("name", ["pearson", "spearman", "kendall"])
def test_item_level_intervals_agree_with_scipys_bootstrap(name: str) -> None:
    """The multinomial draws over the distinct cells against scipy's percentile bootstrap
    over items: the same interval up to Monte Carlo error (10,000 resamples each)."""
    ours = correlation.item_level(JUDGE, HUMAN, n_resamples=10_000, seed=3)[name]
    function = {
        "pearson": lambda x, y: stats.pearsonr(x, y)[0],
        "spearman": lambda x, y: stats.spearmanr(x, y)[0],
        "kendall": lambda x, y: stats.kendalltau(x, y)[0],
    }[name]
    reference = stats.bootstrap(
        (JUDGE, HUMAN),
        function,
        paired=True,
        vectorized=False,
        n_resamples=10_000,
        method="percentile",
        random_state=np.random.default_rng(4),
    ).confidence_interval
    assert ours.low == pytest.approx(reference.low, abs=0.012)
    assert ours.high == pytest.approx(reference.high, abs=0.012)


def test_system_level_by_hand() -> None:
    # Three systems, two items each: judge means 1.5, 3.5, 4.5; human means 2, 3, 5.
    judge = [1, 2, 3, 4, 4, 5]
    human = [2, 2, 3, 3, 5, 5]
    systems = ["a", "a", "b", "b", "c", "c"]
    found = correlation.system_level(judge, human, systems)
    # Pearson on (1.5, 3.5, 4.5) and (2, 3, 5): deviations (-1.67, 0.33, 1.33) and
    # (-1.33, -0.33, 1.67); sum of products 2.222 + -0.111 + 2.222 = 4.333;
    # sqrt(4.667 * 4.667) = 4.667 -> 0.9286
    assert found["pearson"].estimate == pytest.approx(13 / 14)
    assert found["spearman"].estimate == pytest.approx(1.0)  # the same order
    assert found["kendall"].estimate == pytest.approx(1.0)
    assert {c.n for c in found.values()} == {3}
    means = ([1.5, 3.5, 4.5], [2, 3, 5])
    assert found["pearson"].estimate == pytest.approx(stats.pearsonr(*means)[0])
    for c in found.values():
        assert c.low <= c.estimate <= c.high


def test_system_level_equals_scipy_on_the_means() -> None:
    systems = RNG.integers(0, 6, JUDGE.size).astype(str)
    found = correlation.system_level(JUDGE, HUMAN, systems)
    names = sorted(set(systems))
    judge_means = [JUDGE[systems == s].mean() for s in names]
    human_means = [HUMAN[systems == s].mean() for s in names]
    assert found["kendall"].estimate == pytest.approx(stats.kendalltau(judge_means, human_means)[0])
    assert found["spearman"].estimate == pytest.approx(stats.spearmanr(judge_means, human_means)[0])
    assert found["pearson"].n == 6


def test_degenerate_inputs_give_nan() -> None:
    assert all(math.isnan(c.estimate) for c in correlation.item_level([], []).values())
    assert all(math.isnan(c.estimate) for c in correlation.item_level([3], [4]).values())
    flat = correlation.item_level([3, 3, 3], [1, 2, 3])  # a side that does not vary
    assert all(math.isnan(c.estimate) and math.isnan(c.low) for c in flat.values())
    two = correlation.system_level([1, 2, 3, 4], [1, 2, 3, 4], ["a", "a", "b", "b"])
    assert all(math.isnan(c.estimate) and c.n == 2 for c in two.values())
    # pairs with a missing side are dropped
    assert correlation.pearson([1, 2, np.nan, 4], [1, 2, 9, 4]) == pytest.approx(1.0)
