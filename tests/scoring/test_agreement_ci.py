"""The count-table bootstraps replicate exactly what the direct functions give on the resampled
data: each replicate is checked against `scoring.agreement` on the expanded sample."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest

from scoring import agreement
from scoring._encode import encode
from scoring.agreement_ci import (
    _cells,
    _paired_replicates,
    _pattern_coincidences,
    _squared_distances,
    krippendorff_alpha_ci,
    paired_agreement_ci,
    snap,
)

LABELS = [1.0, 2.0, 3.0, 4.0, 5.0]


def _pairs(seed: int, n: int = 300, *, panel: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 6, n).astype(float)
    judge = np.clip(human + rng.integers(-1, 2, n), 1, 5).astype(float)
    if panel:  # a panel's mean of two judges takes half points
        judge = (judge + np.clip(human + rng.integers(-1, 2, n), 1, 5)) / 2
    return judge, human


def test_snap_goes_to_the_nearest_point_and_ties_up() -> None:
    # 4.5 is as near 4 as 5: up; 1.25 -> 1; 0.2 (below the scale) -> 1; nan stays nan
    assert snap([4.5, 1.25, 0.2, 3.0, np.nan], LABELS)[:4].tolist() == [5.0, 1.0, 1.0, 3.0]
    assert np.isnan(snap([np.nan], LABELS)[0])


@pytest.mark.parametrize("panel", [False, True])
def test_estimates_equal_the_direct_functions(panel: bool) -> None:
    judge, human = _pairs(1, panel=panel)
    result = paired_agreement_ci(judge, human, labels=LABELS, n_resamples=200)
    snapped = snap(judge, LABELS)
    assert result.n == judge.size
    assert result.exact.estimate == agreement.percent_agreement(snapped, human)
    assert result.within_one.estimate == agreement.percent_agreement(snapped, human, tolerance=1)
    assert result.kappa_quadratic.estimate == pytest.approx(
        agreement.cohen_kappa(snapped, human, labels=LABELS, weights="quadratic")
    )
    assert result.spearman.estimate == pytest.approx(agreement.spearman(judge, human))
    assert result.bias.estimate == pytest.approx(agreement.mean_bias(judge, human))
    for ci in (result.exact, result.kappa_quadratic, result.spearman, result.bias):
        assert ci.low <= ci.estimate <= ci.high


@pytest.mark.parametrize("panel", [False, True])
def test_each_replicate_equals_the_statistic_of_its_resample(panel: bool) -> None:
    judge, human = _pairs(2, panel=panel)
    cell_j, cell_h, counts = _cells(judge, human)
    draws = np.random.default_rng(5).multinomial(judge.size, counts / judge.size, size=8)
    replicates = _paired_replicates(cell_j, cell_h, LABELS, draws.astype(float))
    for r, row in enumerate(draws):
        j, h = np.repeat(cell_j, row), np.repeat(cell_h, row)
        s = snap(j, LABELS)
        assert replicates["exact"][r] == pytest.approx(agreement.percent_agreement(s, h))
        assert replicates["within_one"][r] == pytest.approx(
            agreement.percent_agreement(s, h, tolerance=1)
        )
        assert replicates["kappa_quadratic"][r] == pytest.approx(
            agreement.cohen_kappa(s, h, labels=LABELS, weights="quadratic")
        )
        assert replicates["spearman"][r] == pytest.approx(agreement.spearman(j, h))
        assert replicates["bias"][r] == pytest.approx(agreement.mean_bias(j, h))


def test_degenerate_pairs() -> None:
    empty = paired_agreement_ci([], [], labels=LABELS)
    assert empty.n == 0 and math.isnan(empty.exact.estimate)
    # one pair: exact 1, spearman undefined (no variation) with no interval
    one = paired_agreement_ci([3], [3], labels=LABELS, n_resamples=50)
    assert one.exact.estimate == 1.0 and (one.exact.low, one.exact.high) == (1.0, 1.0)
    assert math.isnan(one.spearman.estimate) and math.isnan(one.spearman.low)
    # missing sides are dropped: (nan, 2) and (4, nan) leave one pair
    assert paired_agreement_ci([np.nan, 4, 2], [2, np.nan, 2], labels=LABELS).n == 1


def _ratings(seed: int, raters: int = 4, units: int = 120) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, units)
    data = np.clip(truth + rng.integers(-1, 2, (raters, units)), 1, 5).astype(float)
    data[rng.random(data.shape) < 0.25] = np.nan
    return data


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_estimate_matches_the_krippendorff_package(level: str) -> None:
    data = _ratings(3)
    result = krippendorff_alpha_ci(data, level=level, values=LABELS, n_resamples=200)
    assert result.estimate == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=LABELS)
    )
    assert result.low <= result.estimate <= result.high


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_replicates_equal_alpha_of_the_resampled_units(level: str) -> None:
    data = _ratings(4)
    codes, domain = encode(data, LABELS)
    matrices, counts = _pattern_coincidences(codes, domain.size)
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    patterns, inverse = np.unique(
        np.where(np.isnan(data[:, pairable]), -1, data[:, pairable]).T, axis=0, return_inverse=True
    )
    assert patterns.shape[0] == counts.size
    # resample units by pattern counts, rebuild the matrix, and compare with the direct alpha
    draws = np.random.default_rng(9).multinomial(int(counts.sum()), counts / counts.sum(), size=5)
    for row in draws:
        units = np.repeat(patterns, row, axis=0).T
        resampled = np.where(units == -1, np.nan, units)
        direct = agreement.krippendorff_alpha(resampled, level=level, values=LABELS)
        observed = np.tensordot(row.astype(float), matrices, axes=1)
        n_c = observed.sum(axis=1)
        delta = _squared_distances(level, domain, n_c[None, :])[0]
        vectorized = 1 - (n_c.sum() - 1) * (observed * delta).sum() / (n_c @ delta @ n_c)
        assert vectorized == pytest.approx(direct)


def test_alpha_degenerate() -> None:
    # a single rater: nothing is pairable
    assert math.isnan(krippendorff_alpha_ci([[1, 2, 3]], level="ordinal").estimate)
    # everyone agrees on one value: no variation
    same = krippendorff_alpha_ci([[2, 2], [2, 2]], level="ordinal", values=LABELS)
    assert math.isnan(same.estimate) and math.isnan(same.low)
