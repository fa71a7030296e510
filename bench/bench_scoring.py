"""Benchmark scoring's kappa, alpha and bootstrap CI on 1,000,000 ratings against the references.

Run from the repository root:  python bench/bench_scoring.py

The references (scikit-learn, the krippendorff package, scipy) are measured in the same run on
the same data. Seconds are the best of `--repeats` runs; peak memory is the peak of Python-
and numpy-allocated memory during one separate run, traced with tracemalloc. The script exits
with status 1 if one of ours takes 2 s or more, is slower than its reference, or disagrees
with it.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring.agreement import cohen_kappa, krippendorff_alpha
from scoring.agreement_ci import krippendorff_alpha_ci, paired_agreement_ci
from scoring.stats import bootstrap_ci

N_RATINGS = 1_000_000
N_RESAMPLES = 1_000
SCALE = [1, 2, 3, 4, 5]
TIME_LIMIT_S = 2.0


@dataclass(frozen=True)
class Case:
    name: str
    data: str
    ours: Callable[[], Any]
    reference_name: str
    reference: Callable[[], Any]
    tolerance: float  # allowed |ours - reference| of the returned numbers
    gated: bool = True  # False: informational row, outside the pass/fail criteria


@dataclass(frozen=True)
class Measurement:
    seconds: float
    peak_mib: float
    value: Any


def measure(func: Callable[[], Any], *, repeats: int) -> Measurement:
    best = float("inf")
    value = None
    for _ in range(repeats):
        start = time.perf_counter()
        value = func()
        best = min(best, time.perf_counter() - start)
    tracemalloc.start()
    func()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return Measurement(best, peak / 2**20, value)


def _ratings(rng: np.random.Generator, truth: np.ndarray, n_raters: int) -> np.ndarray:
    noise = rng.integers(-1, 2, (n_raters, truth.size)) * (rng.random((n_raters, truth.size)) < 0.4)
    return np.clip(truth + noise, 1, 5)


def _agreement_cases(rng: np.random.Generator) -> list[Case]:
    import krippendorff
    from sklearn.metrics import cohen_kappa_score

    judge, human = _ratings(rng, rng.integers(1, 6, N_RATINGS), 2)
    two = _ratings(rng, rng.integers(1, 6, N_RATINGS // 2), 2).astype(float)
    four = _ratings(rng, rng.integers(1, 6, N_RATINGS // 4), 4).astype(float)
    four[rng.random(four.shape) < 0.1] = np.nan
    cases = [
        Case(
            "cohen_kappa (quadratic)",
            "2 raters x 1,000,000 items",
            lambda: cohen_kappa(judge, human, labels=SCALE, weights="quadratic"),
            "sklearn cohen_kappa_score",
            lambda: cohen_kappa_score(judge, human, labels=SCALE, weights="quadratic"),
            1e-9,
        )
    ]
    for level, data, shape in (
        ("interval", two, "2 raters x 500,000 units"),
        ("ordinal", four, "4 raters x 250,000 units, 10% missing"),
        ("nominal", four, "4 raters x 250,000 units, 10% missing"),
    ):
        cases.append(
            Case(
                f"krippendorff_alpha {level}",
                shape,
                lambda d=data, lv=level: krippendorff_alpha(d, level=lv),
                "krippendorff.alpha",
                lambda d=data, lv=level: krippendorff.alpha(d, level_of_measurement=lv),
                1e-9,
            )
        )
    return cases


def _bootstrap_cases(rng: np.random.Generator, seed: int) -> list[Case]:
    from scipy import stats

    def scipy_ci(values: np.ndarray) -> tuple[float, float]:
        # batch bounds memory: unbatched, scipy holds 1,000 x 1,000,000 float64 (8 GB)
        res = stats.bootstrap(
            (values,),
            np.mean,
            n_resamples=N_RESAMPLES,
            method="percentile",
            vectorized=True,
            batch=20,
            random_state=seed,
        )
        return float(res.confidence_interval.low), float(res.confidence_interval.high)

    def our_ci(values: np.ndarray) -> tuple[float, float]:
        ci = bootstrap_ci(values, statistic="mean", n_resamples=N_RESAMPLES, seed=seed)
        return ci.low, ci.high

    scores = rng.integers(1, 6, N_RATINGS).astype(float)
    continuous = rng.normal(3.0, 1.0, N_RATINGS)
    return [
        Case(
            "bootstrap_ci mean, 1,000 resamples",
            "1,000,000 ratings on 1-5",
            lambda: our_ci(scores),
            "scipy.stats.bootstrap (percentile)",
            lambda: scipy_ci(scores),
            # two Monte Carlo estimates of one interval: each end has sd ~1.2e-4 here
            1e-3,
        ),
        Case(
            "bootstrap_ci mean, 1,000 resamples",
            "1,000,000 continuous values (fallback)",
            lambda: our_ci(continuous),
            "scipy.stats.bootstrap (percentile)",
            lambda: scipy_ci(continuous),
            1e-3,
            gated=False,
        ),
    ]


def _interval_cases(rng: np.random.Generator, seed: int) -> list[Case]:
    """The calibration page's intervals (scoring.agreement_ci) against scipy's bootstrap of
    sklearn's kappa, at 20,000 pairs: scipy calls the statistic once per resample, which at
    1,000,000 pairs would take minutes."""
    from scipy import stats
    from sklearn.metrics import cohen_kappa_score

    labels = [1.0, 2.0, 3.0, 4.0, 5.0]
    human = rng.integers(1, 6, 20_000).astype(float)
    judge = np.clip(human + rng.integers(-1, 2, human.size), 1, 5).astype(float)

    def scipy_ci() -> tuple[float, float]:
        res = stats.bootstrap(
            (judge, human),
            lambda a, b: cohen_kappa_score(a, b, labels=labels, weights="quadratic"),
            paired=True,
            vectorized=False,
            n_resamples=N_RESAMPLES,
            method="percentile",
            random_state=seed,
        )
        return float(res.confidence_interval.low), float(res.confidence_interval.high)

    def our_ci() -> tuple[float, float]:
        ci = paired_agreement_ci(
            judge, human, labels=labels, n_resamples=N_RESAMPLES, seed=seed
        ).kappa_quadratic
        return ci.low, ci.high

    return [
        Case(
            "kappa 95% CI, 1,000 resamples",
            "20,000 pairs on 1-5",
            our_ci,
            "scipy.stats.bootstrap of sklearn kappa",
            scipy_ci,
            # two Monte Carlo estimates of one interval
            3e-3,
        )
    ]


def _intervals_at_scale(seed: int) -> None:
    """What the Calibration page computes, on 1,000,000 ratings (no reference can run there)."""
    rng = np.random.default_rng(seed)
    labels = [1.0, 2.0, 3.0, 4.0, 5.0]
    human = rng.integers(1, 6, N_RATINGS).astype(float)
    judge = np.clip(human + rng.integers(-1, 2, human.size), 1, 5).astype(float)
    data = np.vstack([judge, human]).reshape(4, -1)
    data[rng.random(data.shape) < 0.1] = np.nan
    for name, run in (
        (
            "paired_agreement_ci (5 statistics)",
            lambda: paired_agreement_ci(
                judge, human, labels=labels, n_resamples=N_RESAMPLES, seed=seed
            ),
        ),
        (
            "krippendorff_alpha_ci ordinal",
            lambda: krippendorff_alpha_ci(
                data, level="ordinal", values=labels, n_resamples=N_RESAMPLES, seed=seed
            ),
        ),
    ):
        result = measure(run, repeats=1)
        print(
            f"{name:<36} {'1,000,000 ratings, 1,000 resamples':<40} {result.seconds:>8.3f} "
            f"{result.peak_mib:>9.1f}  (informational: no reference runs at this size)"
        )


def build_cases(seed: int) -> list[Case]:
    rng = np.random.default_rng(seed)
    return _agreement_cases(rng) + _bootstrap_cases(rng, seed) + _interval_cases(rng, seed)


def _agrees(ours: Any, reference: Any, tolerance: float) -> bool:
    return bool(np.allclose(np.asarray(ours, float), np.asarray(reference, float), atol=tolerance))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of ours (best is kept)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import scipy
    import sklearn

    print(
        f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__},"
        f" scikit-learn {sklearn.__version__}, {platform.machine()}, seed {args.seed}"
    )
    header = (
        f"{'function':<36} {'data':<40} {'ours s':>8} {'ours MiB':>9} {'ref s':>8} "
        f"{'ref MiB':>9} {'speedup':>8} {'mem ratio':>9}  reference"
    )
    print(header)
    print("-" * len(header))
    failures = []
    for case in build_cases(args.seed):
        slow = "scipy" in case.reference_name or not case.gated
        ours = measure(case.ours, repeats=1 if not case.gated else args.repeats)
        ref = measure(case.reference, repeats=1 if slow else args.repeats)
        print(
            f"{case.name:<36} {case.data:<40} {ours.seconds:>8.3f} {ours.peak_mib:>9.1f} "
            f"{ref.seconds:>8.3f} {ref.peak_mib:>9.1f} {ref.seconds / ours.seconds:>7.1f}x "
            f"{ref.peak_mib / max(ours.peak_mib, 1e-9):>8.1f}x  {case.reference_name}"
        )
        print(f"{'':<36} values: ours {ours.value!r}, reference {ref.value!r}")
        if not case.gated:
            print(f"{'':<36} (informational: not a rating workload, outside the 2 s criterion)")
        elif ours.seconds >= TIME_LIMIT_S or ours.seconds > ref.seconds:
            failures.append(f"{case.name}: {ours.seconds:.3f} s (reference {ref.seconds:.3f} s)")
        if not _agrees(ours.value, ref.value, case.tolerance):
            failures.append(f"{case.name}: {ours.value!r} differs from {ref.value!r}")
    _intervals_at_scale(args.seed)
    for failure in failures:
        print("FAIL", failure)
    print("speedup = reference seconds / our seconds; mem ratio = reference peak / our peak")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
