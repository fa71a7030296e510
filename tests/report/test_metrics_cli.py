"""`judgeboard metrics`: the same numbers as the Overview and Calibration, and a CI gate."""

from __future__ import annotations

import json
import math

import pytest

from dashboard.cli import main
from dashboard.metrics import calibration, estimates, overview, registry
from dashboard.metrics.output import metrics_json
from dashboard.metrics.selection import Selection
from tests import builders


def run_cli(store, *args, capsys):
    status = main(["--db", store.url, "metrics", *args])
    out, err = capsys.readouterr()
    return status, out, err


def _no_nan(text: str) -> dict:
    def refuse(constant: str) -> None:
        raise AssertionError(f"JSON holds {constant}")

    return json.loads(text, parse_constant=refuse)


def _same(entry: dict, estimate: estimates.Estimate) -> None:
    for key in ("value", "low", "high"):
        expected = getattr(estimate, key)
        assert entry[key] == (None if math.isnan(expected) else expected), key
    assert entry["n"] == estimate.n


def test_json_equals_the_overview_and_calibration(judged_store, capsys):
    status, out, _ = run_cli(judged_store, "--dataset", "eo-rag", "--json", capsys=capsys)
    assert status == 0
    data = _no_nan(out)
    found = data["metrics"]
    view = overview.overview(judged_store, Selection("eo-rag"))
    cal = calibration.calibration(judged_store, Selection("eo-rag"))
    assert data["selection"] == {
        "dataset": "eo-rag",
        "rubric": "likert-rag",
        "preference_rubric": None,  # the default rubric: every rubric's verdicts count
        "systems": None,
        "pool_raters": False,
        "panel": "offline",  # the default panel: the panel file whose judges rated most
        "panel_judges": ["baseline"],
        "panel_version": "1",
        "panel_versions": {"eo-rag": ["1"]},  # per dataset, the versions the numbers use
        "panel_is_default": True,
        "human_reference": "all_labels",  # calibration's reference for people
    }
    assert data["scale"] == [1.0, 5.0]
    assert data["systems"] == ["eo-rag-large", "eo-rag-small", "keyword-baseline"]
    for row in view.systems:
        prefix = f"systems.{row.system}"
        assert found[f"{prefix}.n_responses"]["value"] == row.n_responses == 40
        for name in ("panel", "human", "effective", "em", "f1"):
            _same(found[f"{prefix}.{name}"], row.score(name))
        _same(found[f"{prefix}.judge.baseline"], row.judges["baseline"])
        assert f"{prefix}.mcqa_accuracy" not in found  # no data: absent, not null
    # The sample's verdicts are the baseline judge's: the judges' standings and the judge's
    # own, never a pooled number (no --pool-raters).
    assert [g.raters for g in view.pairwise.groups] == ["judges", "judge.baseline"]
    for group in view.pairwise.groups:
        tail = f".{group.raters}"  # never pooled here (no --pool-raters)
        for row in view.systems[:2]:
            _same(found[f"systems.{row.system}.win_rate{tail}"], row.score(f"win_rate{tail}"))
        for standing in group.bradley_terry:
            entry = found[f"systems.{standing.system}.bradley_terry{tail}"]
            assert (entry["value"], entry["low"], entry["high"], entry["n"]) == (
                standing.rating,
                standing.low,
                standing.high,
                standing.n_battles,
            )
        for h in group.head_to_head:
            _same(found[f"pairwise.{h.system_a}.{h.system_b}.win_rate{tail}"], h.win_rate)
    assert not [n for n in found if n.endswith((".win_rate", ".bradley_terry"))]
    assert [j.judge for j in cal.judges] == ["baseline", "panel"] == data["judges"]
    for judge in cal.judges:
        for metric in registry.JUDGE_AGREEMENT_METRICS:
            _same(found[f"calibration.{judge.judge}.{metric.key}"], getattr(judge, metric.key))
    assert found["calibration.human_labels"]["value"] == cal.n_human_labels == 42
    assert found["calibration.all_raters.alpha_ordinal"]["value"] == cal.alpha_all_raters
    (people,) = cal.humans
    assert found["calibration.people.ana.ben.kappa_quadratic"]["value"] == people.kappa
    assert found["calibration.people.ana.ben.exact"]["n"] == people.n_units == 12


def test_hand_checked_numbers_on_the_toy_set(store):
    builders.two_systems(store)
    view, cal, data = metrics_json.compute(store, Selection("toy"))
    found = data["metrics"]
    # builders.two_systems: effective of good = (1 + .75 + 1 ... ana's 1, .75; panel .75) / 3
    assert found["systems.good.effective"]["value"] == pytest.approx(2.5 / 3)
    assert found["systems.bad.panel_skipped"]["value"] == 1
    assert found["calibration.j1.exact"]["value"] == pytest.approx(0.5)
    assert found["calibration.panel.bias"]["value"] == pytest.approx(0.375)
    assert found["calibration.human_labels"]["value"] == 4
    assert not [n for n in found if ".win_rate" in n]  # no preferences
    json.dumps(data, allow_nan=False)  # strict JSON: no NaN anywhere


def test_text_output_lists_every_metric(judged_store, capsys):
    status, out, _ = run_cli(judged_store, "--dataset", "eo-rag", capsys=capsys)
    assert status == 0
    assert out.startswith("dataset: eo-rag   rubric: likert-rag")
    assert "systems.eo-rag-large.effective" in out and "calibration.panel.kappa_quadratic" in out


def _value(store, name: str) -> float:
    _, _, data = metrics_json.compute(store, Selection("eo-rag"))
    return data["metrics"][name]["value"]


def test_fail_under_passes_at_the_threshold_and_fails_just_above(judged_store, capsys):
    name = "systems.eo-rag-large.effective"
    value = _value(judged_store, name)
    status, out, err = run_cli(
        judged_store,
        "--dataset",
        "eo-rag",
        "--json",
        "--fail-under",
        f"{name}={value!r}",
        capsys=capsys,
    )
    assert status == 0 and err == "" and _no_nan(out)["metrics"][name]["value"] == value
    above = value + 1e-6
    status, out, err = run_cli(
        judged_store,
        "--dataset",
        "eo-rag",
        "--json",
        "--fail-under",
        f"{name}={above!r}",
        capsys=capsys,
    )
    assert status == 1
    assert _no_nan(out)["metrics"][name]["value"] == value  # the JSON is still printed
    assert name in err and f"{value:.4g}" in err and f"{above:g}" in err


def test_fail_under_with_a_pattern_checks_every_match(judged_store, capsys):
    status, _, err = run_cli(
        judged_store,
        "--dataset",
        "eo-rag",
        "--fail-under",
        "systems.*.effective=0.5",
        capsys=capsys,
    )
    # eo-rag-large is 0.69; eo-rag-small (0.38) and keyword-baseline (0.40) fall short
    assert status == 1
    assert "systems.eo-rag-small.effective" in err and "systems.keyword-baseline.effective" in err
    assert "systems.eo-rag-large.effective" not in err
    status, _, err = run_cli(
        judged_store,
        "--dataset",
        "eo-rag",
        "--fail-under",
        "calibration.*.within_one=0.5",
        capsys=capsys,
    )
    assert status == 0 and err == ""


def test_unknown_metric_is_an_error_listing_close_names(judged_store, capsys):
    status, out, err = run_cli(
        judged_store,
        "--dataset",
        "eo-rag",
        "--json",
        "--fail-under",
        "systems.eo-rag-large.efective=0.5",
        capsys=capsys,
    )
    assert status == 2 and out == ""
    assert "no metric named 'systems.eo-rag-large.efective'" in err
    assert "close names: systems.eo-rag-large.effective" in err


def test_bad_threshold_and_unknown_dataset_are_errors(judged_store, capsys):
    status, _, err = run_cli(judged_store, "--fail-under", "systems.x.f1", capsys=capsys)
    assert status == 2 and "expected NAME=NUMBER" in err
    status, _, err = run_cli(judged_store, "--dataset", "eo-ragg", capsys=capsys)
    assert status == 2 and "no dataset named 'eo-ragg'" in err and "eo-rag" in err


def test_a_metric_without_a_value_fails_the_gate(store, capsys):
    # One person, one label: kappa of a single pair is undefined, so its value is null.
    it = builders.item("one", 1)
    resp = builders.response(it, "s", "paris")
    store.add_items([it], [resp])
    store.add_ratings(
        [builders.rating(resp, "j1", 4), builders.rating(resp, "ana", 4, kind="human")]
    )
    status, out, err = run_cli(
        store, "--json", "--fail-under", "calibration.j1.kappa_quadratic=0", capsys=capsys
    )
    assert _no_nan(out)["metrics"]["calibration.j1.kappa_quadratic"]["value"] is None
    assert status == 1 and "has no value" in err
