"""Benchmark: judge-corrected estimates, their coverage and their speed.

    python -m bench.bench_corrected                   # both parts
    python -m bench.bench_corrected --coverage-only   # the seeded simulation alone (~10 s)
    python -m bench.bench_corrected --db PATH --reuse # time again on a database built before

1. Coverage: a seeded simulation of 1,000 evaluations with a known truth. Each has N units
   whose true (people's) scores are uniform on [0, 1]; the judge sees the truth plus a bias
   of BIAS and noise, clipped to [0, 1]; people label a random n of the units. For each
   evaluation the nominal 95% intervals are computed exactly as `metrics/corrected/systems.py`
   computes them (PPI++ for the corrected one, the normal interval of the judge's mean for
   the judge-only one), and we count how often each covers the truth, TRUTH = 0.5 (the
   expected true score). Goal: corrected >= 93%; the judge-only one misses (its interval
   is about the judge's sampling noise, not its bias). Covering the mean true score of the
   N units themselves is easier (the labels are drawn from them without replacement), so
   that share is higher; it is printed too.
2. Speed: the 1M-response benchmark database of `bench/dashboard_fixture.py` (built like
   `bench.bench_dashboard` does); its hash-chosen human ratings and verdicts are marked
   `selection = 'random'` so that every system has a valid sample. Times
   `corrected.corrected_and_compared` for every system, the one read the Overview, the report
   and `metrics --json` make (median of 3 warm runs after one cold; wall and CPU time).
   Goal: under 1 s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from scoring import ppi

N_EVALS, N_UNITS, N_LABELLED, BIAS, NOISE, SEED = 1000, 2000, 200, 0.1, 0.15, 0
TRUTH = 0.5
GOAL_COVERAGE, GOAL_S = 0.93, 1.0
Z = 1.959963984540054


def one_evaluation(rng: np.random.Generator) -> tuple[bool, bool, bool]:
    """(corrected covers TRUTH, judge-only covers TRUTH, corrected covers the N units' own
    mean) for one simulated evaluation."""
    truth = rng.uniform(0, 1, N_UNITS)
    judge = np.clip(truth + BIAS + rng.normal(0, NOISE, N_UNITS), 0, 1)
    own = float(truth.mean())
    labelled = np.zeros(N_UNITS, dtype=bool)
    labelled[rng.choice(N_UNITS, N_LABELLED, replace=False)] = True
    found = ppi.ppi_mean(truth[labelled], judge[labelled], ppi.Moments.of(judge[~labelled]))
    judge_se = judge.std() / np.sqrt(N_UNITS)
    judge_covers = abs(judge.mean() - TRUTH) <= Z * judge_se
    return found.low <= TRUTH <= found.high, bool(judge_covers), found.low <= own <= found.high


def coverage(n_evals: int = N_EVALS, *, seed: int = SEED) -> tuple[float, float, float]:
    """Shares of the evaluations whose corrected and judge-only intervals cover TRUTH, and
    whose corrected interval covers the units' own mean."""
    rng = np.random.default_rng(seed)
    hits = np.array([one_evaluation(rng) for _ in range(n_evals)])
    return float(hits[:, 0].mean()), float(hits[:, 1].mean()), float(hits[:, 2].mean())


def _mark_random(db: Path) -> None:
    from dashboard.store import Store

    with Store(db, wait_s=60).connection() as con:
        con.execute("UPDATE ratings SET selection = 'random' WHERE rater_kind = 'human'")
        con.execute("UPDATE preferences SET selection = 'random' WHERE rater_kind = 'human'")


def speed(db: Path, *, reuse: bool) -> dict[str, float]:
    from dashboard.metrics import corrected
    from dashboard.metrics.selection import Selection
    from dashboard.store import Store

    if not reuse:
        from bench.dashboard_fixture import build

        build(Store(db, wait_s=60), log=lambda line: print(line, file=sys.stderr))
    _mark_random(db)
    store = Store(db, wait_s=60)
    selection = Selection()

    def both() -> tuple[float, float]:
        started, cpu = time.perf_counter(), time.process_time()
        found, compared = corrected.corrected_and_compared(store, selection)
        assert found.systems and compared.differences
        return time.perf_counter() - started, time.process_time() - cpu

    cold = both()
    warm = [both() for _ in range(3)]
    return {
        "cold wall s": cold[0],
        "cold cpu s": cold[1],
        "warm wall s": statistics.median(w[0] for w in warm),
        "warm cpu s": statistics.median(w[1] for w in warm),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path)
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--coverage-only", action="store_true")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    covered, judge_only, own = coverage()
    print(
        f"coverage of the nominal 95% intervals over {N_EVALS} evaluations (N={N_UNITS}, "
        f"n={N_LABELLED}, judge bias {BIAS:+g}, noise {NOISE:g}, seed {SEED}), truth "
        f"{TRUTH:g}: corrected {covered:.1%}, judge-only {judge_only:.1%}; the units' own "
        f"mean: corrected {own:.1%} ({time.perf_counter() - started:.1f} s)"
    )
    ok = covered >= GOAL_COVERAGE and judge_only < GOAL_COVERAGE
    if not args.coverage_only:
        with tempfile.TemporaryDirectory() as tmp:
            db = args.db or Path(tmp) / "bench.duckdb"
            times = speed(db, reuse=args.reuse)
        for name, seconds in times.items():
            print(f"{name:>22}: {seconds:.3f}")
        total = times["warm wall s"]
        print(f"warm corrected + comparisons: {total:.3f} s (goal < {GOAL_S:g} s)")
        ok = ok and total < GOAL_S
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
