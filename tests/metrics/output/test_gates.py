"""The gates of `judgeboard metrics` (`--fail-under`, `--fail-over`) on the metrics JSON: a
name, a pattern or a part of a metric, each direction, and a name that is nobody's."""

from __future__ import annotations

import pytest

from dashboard.metrics.output import OVER, UNDER, Gate, GateError, gates
from tests import builders

METRICS = {
    "systems.a.effective": {"value": 0.7, "low": 0.6, "high": 0.8, "n": 40},
    "systems.b.effective": {"value": 0.5, "low": 0.4, "high": 0.6, "n": 40},
    "calibration.j.bias": {"value": -0.2, "low": -0.4, "high": 0.1, "n": 12},
    "calibration.j.kappa_quadratic": {"value": None, "low": None, "high": None, "n": 1},
}


@pytest.mark.parametrize(
    ("gate", "failed"),
    [
        (Gate("systems.a.effective", 0.7), []),  # at the threshold: passes
        (Gate("systems.a.effective", 0.71), ["systems.a.effective = 0.7 is under"]),
        (Gate("systems.*.effective", 0.6), ["systems.b.effective = 0.5 is under"]),
        (Gate("systems.a.effective.low", 0.65), ["systems.a.effective.low = 0.6 is under"]),
        (Gate("systems.a.effective.n", 40), []),
        (Gate("calibration.j.bias", 0.0, OVER), []),
        (Gate("calibration.j.bias.high", 0.0, OVER), ["calibration.j.bias.high = 0.1 is over"]),
        (Gate("calibration.j.bias.low", -0.3, UNDER), ["calibration.j.bias.low = -0.4 is under"]),
        (Gate("calibration.j.kappa_quadratic", 0.0), ["calibration.j.kappa_quadratic has no"]),
        (Gate("calibration.j.kappa_quadratic", 1.0, OVER), ["calibration.j.kappa_quadratic has"]),
    ],
)
def test_gates(gate: Gate, failed: list[str]) -> None:
    messages = gates.failures(METRICS, [gate])
    assert len(messages) == len(failed)
    for message, start in zip(messages, failed):
        assert message.startswith(start), message


def test_a_gate_on_nothing_is_an_error_naming_the_closest_names() -> None:
    with pytest.raises(GateError, match="close names: systems.a.effective"):
        gates.failures(METRICS, [Gate("systems.a.efective", 0.5)])
    with pytest.raises(GateError, match="no metric named 'systems.\\*.human'"):
        gates.failures(METRICS, [Gate("systems.*.human", 0.5)])
    with pytest.raises(GateError, match="expected NAME=NUMBER"):
        gates.parse_gate("systems.a.effective", direction=OVER)


def test_fail_over_gates_a_lower_is_better_metric_from_the_command_line(store, capsys) -> None:
    from dashboard.cli import main

    builders.two_systems(store)
    args = ["--db", store.url, "metrics", "--dataset", "toy", "--json"]
    # calibration.panel.bias is 0.375 on the toy set (tests/report/test_metrics_cli.py)
    assert main([*args, "--fail-over", "calibration.panel.bias=0.4"]) == 0
    assert main([*args, "--fail-over", "calibration.panel.bias=0.3"]) == 1
    assert "calibration.panel.bias = 0.375 is over the threshold 0.3" in capsys.readouterr().err
    assert main([*args, "--fail-under", "systems.good.effective.low=0"]) == 0
