"""The seeded simulation of bench/bench_corrected.py: 1,000 evaluations with a known truth and
a judge biased by +0.1. The corrected 95% interval covers the truth in at least 93% of them
(95.1% with seed 0); the judge-only interval, blind to the bias, almost never does."""

from __future__ import annotations

from bench import bench_corrected


def test_corrected_intervals_cover_the_truth_and_judge_only_ones_do_not() -> None:
    corrected, judge_only, own = bench_corrected.coverage(1000, seed=0)
    assert corrected >= 0.93
    assert judge_only < 0.05
    assert own >= corrected  # the units' own mean is easier to cover


def test_without_bias_the_judge_only_interval_covers_again(monkeypatch) -> None:
    # The check can fail: with an unbiased, noise-free judge, judge-only covers too.
    monkeypatch.setattr(bench_corrected, "BIAS", 0.0)
    monkeypatch.setattr(bench_corrected, "NOISE", 0.0)
    _, judge_only, _ = bench_corrected.coverage(200, seed=1)
    assert judge_only >= 0.9
