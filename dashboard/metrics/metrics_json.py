"""The Overview's and the Calibration page's numbers as one flat, JSON-ready dict.

`judgeboard metrics --json` prints it, `--fail-under NAME=VALUE` gates on its names, and the
HTML report renders its tables from it, so the three cannot disagree. Every metric is
`{"value", "low", "high", "n"}`: low and high are the 95% bootstrap interval (null for a
count, or when the interval is undefined), n the observations behind it, and a value that
cannot be computed (kappa on one label) is null, never NaN. A metric with no data behind it
at all (no human label on a system) is absent. The names are listed in docs/metrics.md:

    systems.<system>.n_responses            count of responses
    systems.<system>.judge.<judge>          a judge's mean rating, normalized to 0-1
    systems.<system>.panel                  the panel's mean (per response: mean of judges)
    systems.<system>.panel_skipped          judge ratings that did not parse (count)
    systems.<system>.human                  people's mean rating, normalized to 0-1
    systems.<system>.effective              human where there is one, else panel
    systems.<system>.win_rate               pairwise win rate, a tie counts half
    systems.<system>.bradley_terry          Bradley-Terry rating, Elo scale (mean 1000)
    systems.<system>.em | f1 | mcqa_accuracy | mcqa_iou | hallucination_f1
    pairwise.<system>.<opponent>.win_rate   head to head
    calibration.<judge>.exact | within_one | kappa_quadratic | alpha_ordinal | spearman | bias
    calibration.all_raters.alpha_ordinal
    calibration.human_labels | human_preferences    counts
    calibration.people.<a>.<b>.exact | kappa_quadratic      two people on the same responses
    calibration.pairwise.<judge>.agreement | agreement_without_ties | flip_rate | unscored
    calibration.people_pairwise.<a>.<b>.exact | kappa

`<judge>` is a judge's name or `panel`. Names are looked up whole, so a system name that
holds a dot is fine.
"""

from __future__ import annotations

import math
from typing import Any

from dashboard.metrics import calibration as calibration_module
from dashboard.metrics import overview
from dashboard.metrics.calibration import (
    Calibration,
    JudgeAgreement,
    PreferenceAgreement,
    RaterPair,
)
from dashboard.metrics.estimates import Estimate
from dashboard.metrics.overview import Overview, SystemRow
from dashboard.metrics.selection import Selection
from dashboard.metrics.standings import Standing
from dashboard.store import Store

SCHEMA_VERSION = 1
Metric = dict[str, float | int | None]

# (name suffix, SystemRow attribute) of the estimates every system row may carry.
SYSTEM_ESTIMATES = (
    ("panel", "panel"),
    ("human", "human"),
    ("effective", "effective"),
    ("win_rate", "win_rate"),
    ("em", "em"),
    ("f1", "f1"),
    ("mcqa_accuracy", "mcqa_accuracy"),
    ("mcqa_iou", "mcqa_iou"),
    ("hallucination_f1", "hallucination_f1"),
)
JUDGE_ESTIMATES = ("exact", "within_one", "kappa_quadratic", "alpha_ordinal", "spearman", "bias")


def _number(value: float | int | None) -> float | int | None:
    """JSON has no NaN: an undefined number is null. Counts stay whole numbers."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return int(value) if isinstance(value, int) else float(value)


def metric(
    value: float | int | None,
    *,
    low: float | None = None,
    high: float | None = None,
    n: int | None = None,
) -> Metric:
    return {
        "value": _number(value),
        "low": _number(low),
        "high": _number(high),
        "n": None if n is None else int(n),
    }


def _estimate(e: Estimate) -> Metric:
    return metric(e.value, low=e.low, high=e.high, n=e.n)


def count(n: int) -> Metric:
    return metric(int(n), n=n)


def _system_metrics(row: SystemRow, standing: Standing | None) -> dict[str, Metric]:
    prefix = f"systems.{row.system}"
    found = {f"{prefix}.n_responses": count(row.n_responses)}
    for judge, estimate in sorted(row.judges.items()):
        found[f"{prefix}.judge.{judge}"] = _estimate(estimate)
    for suffix, attribute in SYSTEM_ESTIMATES:
        estimate = getattr(row, attribute)
        if estimate is not None:
            found[f"{prefix}.{suffix}"] = _estimate(estimate)
        if suffix == "panel" and estimate is not None:
            found[f"{prefix}.panel_skipped"] = count(row.panel_skipped)
        if suffix == "win_rate" and standing is not None:
            found[f"{prefix}.bradley_terry"] = metric(
                standing.rating, low=standing.low, high=standing.high, n=standing.n_battles
            )
    return found


def _overview_metrics(view: Overview) -> dict[str, Metric]:
    standings = {s.system: s for s in view.pairwise.bradley_terry}
    found: dict[str, Metric] = {}
    for row in view.systems:
        found.update(_system_metrics(row, standings.get(row.system)))
    for h in view.pairwise.head_to_head:
        found[f"pairwise.{h.system_a}.{h.system_b}.win_rate"] = _estimate(h.win_rate)
    return found


def _judge_metrics(j: JudgeAgreement) -> dict[str, Metric]:
    return {
        f"calibration.{j.judge}.{name}": _estimate(getattr(j, name)) for name in JUDGE_ESTIMATES
    }


def _people_metrics(prefix: str, pairs: tuple[RaterPair, ...], kappa: str) -> dict[str, Metric]:
    found = {}
    for p in pairs:
        name = f"{prefix}.{p.rater_a}.{p.rater_b}"
        found[f"{name}.exact"] = metric(p.exact, n=p.n_units)
        found[f"{name}.{kappa}"] = metric(p.kappa, n=p.n_units)
    return found


def _preference_metrics(p: PreferenceAgreement) -> dict[str, Metric]:
    prefix = f"calibration.pairwise.{p.judge}"
    return {
        f"{prefix}.agreement": _estimate(p.with_ties),
        f"{prefix}.agreement_without_ties": _estimate(p.without_ties),
        f"{prefix}.flip_rate": metric(p.flip_rate, n=p.n_swapped),
        f"{prefix}.unscored": count(p.n_unscored),
    }


def _calibration_metrics(cal: Calibration) -> dict[str, Metric]:
    found: dict[str, Metric] = {}
    for judge in cal.judges:
        found.update(_judge_metrics(judge))
    if cal.judges:
        found["calibration.all_raters.alpha_ordinal"] = metric(cal.alpha_all_raters)
    found["calibration.human_labels"] = count(cal.n_human_labels)
    found["calibration.human_preferences"] = count(cal.n_human_preferences)
    found.update(_people_metrics("calibration.people", cal.humans, "kappa_quadratic"))
    for p in cal.preferences:
        found.update(_preference_metrics(p))
    found.update(_people_metrics("calibration.people_pairwise", cal.human_preferences, "kappa"))
    return found


def metrics_json(view: Overview, cal: Calibration) -> dict[str, Any]:
    """The selection, the scale and every metric under its stable flat name."""
    selection = view.selection
    return {
        "schema": SCHEMA_VERSION,
        "selection": {
            "dataset": selection.dataset,
            "rubric": selection.rubric,
            "systems": list(selection.systems) if selection.systems else None,
        },
        "scale": list(view.scale) if view.scale else None,
        "systems": [row.system for row in view.systems],
        "judges": [j.judge for j in cal.judges],
        "notes": {"pairwise": view.pairwise.note},
        "metrics": {**_overview_metrics(view), **_calibration_metrics(cal)},
    }


def compute(store: Store, selection: Selection) -> tuple[Overview, Calibration, dict[str, Any]]:
    """Overview, calibration and their JSON for one selection (the CLI's and report's path)."""
    view = overview.overview(store, selection)
    # The overview resolved the default rubric; calibration must use the same one.
    cal = calibration_module.calibration(store, view.selection)
    return view, cal, metrics_json(view, cal)
