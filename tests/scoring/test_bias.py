"""Bias estimates on seeded synthetic data with a known injected bias: each 95% interval
covers the injected value; point estimates are checked against scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from scoring import bias

INJECTED_LENGTH = 0.6  # scale points per 100 words, beyond people's
INJECTED_POSITION = 0.7  # share of decided verdicts for the answer shown first
INJECTED_SELF = 0.8  # scale points more for the judge's own family


def test_length_slope_beyond_people_covers_the_injected_bias() -> None:
    rng = np.random.default_rng(7)
    words = rng.integers(20, 400, size=400).astype(float)
    quality = rng.normal(3.0, 1.0, size=400)
    # People also like longer answers a little (0.2 per 100 words): only the excess is bias.
    human = quality + 0.2 * words / 100 + rng.normal(0, 0.3, size=400)
    judge = quality + (0.2 + INJECTED_LENGTH) * words / 100 + rng.normal(0, 0.3, size=400)
    found = bias.length_slope(words, judge, human)
    expected = scipy_stats.linregress(words / 100, judge - human).slope
    assert found.estimate == pytest.approx(expected)
    assert found.low < INJECTED_LENGTH < found.high
    raw = bias.length_slope(words, judge)  # the raw slope holds people's 0.2 too
    assert raw.estimate == pytest.approx(scipy_stats.linregress(words / 100, judge).slope)
    assert raw.low < 0.2 + INJECTED_LENGTH < raw.high


def test_length_slope_degenerate_input() -> None:
    assert math.isnan(bias.length_slope([], []).estimate)
    assert math.isnan(bias.length_slope([50, 50, 50], [1, 2, 3]).estimate)  # one length
    assert math.isnan(bias.length_slope([10, 20], [1, 2]).estimate)  # too few


def test_position_share_covers_the_injected_bias() -> None:
    rng = np.random.default_rng(11)
    n_pairs = 500
    # Each pair judged in both orders; a decided verdict goes to the first-shown answer with
    # probability 0.7; 10% of verdicts are ties.
    decided = rng.binomial(2, 0.9, size=n_pairs)
    first = rng.binomial(decided, INJECTED_POSITION)
    found = bias.position_share(first, decided)
    assert found.estimate == pytest.approx(first.sum() / decided.sum())
    assert found.low < INJECTED_POSITION < found.high
    assert not found.low < 0.5 < found.high


def test_position_share_hand_example_and_empty() -> None:
    # Pairs: (1 of 2 first), (2 of 2 first), (0 of 0 decided) -> 3 of 4 = 0.75.
    assert bias.position_share([1, 2, 0], [2, 2, 0]).estimate == 0.75
    assert math.isnan(bias.position_share([0], [0]).estimate)


def test_self_preference_covers_the_injected_bias() -> None:
    rng = np.random.default_rng(5)
    quality = rng.normal(3.0, 1.0, size=300)
    others = quality + rng.normal(0, 0.4, size=300)
    judge = quality + INJECTED_SELF + rng.normal(0, 0.4, size=300)
    found = bias.self_preference(judge, others)
    assert found.estimate == pytest.approx(float(np.mean(judge - others)))
    assert found.low < INJECTED_SELF < found.high


def test_shift_drops_incomplete_pairs() -> None:
    # Pairs (1 -> 2), (3 -> 3), (nan -> 5): the mean change of the two complete ones is 0.5.
    found = bias.shift([1, 3, math.nan], [2, 3, 5])
    assert found.estimate == 0.5
    assert math.isnan(bias.shift([math.nan], [1]).estimate)
    assert bias.word_count("  two   words ") == 2
