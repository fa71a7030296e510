"""The Overview's and the Calibration page's numbers as one flat, JSON-ready dict.

`judgeboard metrics --json` prints it, its gates (`--fail-under`, `--fail-over`) read its
names, and the HTML report renders its tables from it, so the three cannot disagree. Every
metric is `{"value", "low", "high", "n"}`: low and high are the 95% bootstrap interval (null
for a count, or when the interval is undefined), n the observations behind it, and a value
that cannot be computed (kappa on one label) is null, never NaN. A metric with no data behind
it at all (no human label on a system) is absent.

The names are the patterns declared in `registry.py` with their placeholders filled; they
are listed in docs/metrics.md. `<judge>` is a judge's name or `panel`. Names are looked up
whole, so a system name that holds a dot is fine.
"""

from __future__ import annotations

import math
from typing import Any

from dashboard.metrics import calibration as calibration_module
from dashboard.metrics import overview, reference_rules, registry
from dashboard.metrics.calibration import Calibration, RaterPair
from dashboard.metrics.estimates import N_RESAMPLES, SEED, Estimate
from dashboard.metrics.overview import Overview, SystemRow
from dashboard.metrics.registry import COUNT, Metric
from dashboard.metrics.selection import Selection
from dashboard.store import Store

SCHEMA_VERSION = 1
Entry = dict[str, float | int | None]
INTERVALS = {
    "method": "percentile bootstrap",
    "confidence": 0.95,
    "resamples": N_RESAMPLES,
    "seed": SEED,
}


def _number(value: float | int | None) -> float | int | None:
    """JSON has no NaN: an undefined number is null. Counts stay whole numbers."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return int(value) if isinstance(value, int) else float(value)


def entry(
    value: float | int | None,
    *,
    low: float | None = None,
    high: float | None = None,
    n: int | None = None,
) -> Entry:
    return {
        "value": _number(value),
        "low": _number(low),
        "high": _number(high),
        "n": None if n is None else int(n),
    }


def estimate_entry(e: Estimate) -> Entry:
    return entry(e.value, low=e.low, high=e.high, n=e.n)


def count_entry(n: int) -> Entry:
    return entry(int(n), n=n)


def _system_metrics(row: SystemRow) -> dict[str, Entry]:
    found: dict[str, Entry] = {}
    for metric in registry.SYSTEM_METRICS:
        if "<judge>" in metric.name:
            for judge, mean in sorted(row.judges.items()):
                name = registry.fill(metric.name, system=row.system, judge=judge)
                found[name] = estimate_entry(mean)
            continue
        name = registry.fill(metric.name, system=row.system)
        if metric.style == COUNT:
            if metric.key in row.counts:
                found[name] = count_entry(row.counts[metric.key])
        elif (estimate := row.score(metric.key)) is not None:
            found[name] = estimate_entry(estimate)
    return found


def _overview_metrics(view: Overview) -> dict[str, Entry]:
    found: dict[str, Entry] = {}
    for row in view.systems:
        found.update(_system_metrics(row))
    (head_to_head,) = registry.HEAD_TO_HEAD_METRICS
    for h in view.pairwise.head_to_head:
        name = registry.fill(head_to_head.name, system=h.system_a, opponent=h.system_b)
        found[name] = estimate_entry(h.win_rate)
    return found


def _per(metrics: tuple[Metric, ...], record: Any, **names: str) -> dict[str, Entry]:
    """Every metric of a family for one record (a judge's agreement, say), read from the
    record's attribute of the metric's key."""
    found = {}
    for metric in metrics:
        value = getattr(record, metric.key)
        name = registry.fill(metric.name, **names)
        found[name] = estimate_entry(value) if isinstance(value, Estimate) else entry(value)
    return found


def _people(metrics: tuple[Metric, ...], pairs: tuple[RaterPair, ...]) -> dict[str, Entry]:
    found = {}
    for p in pairs:
        for metric in metrics:
            value = p.exact if metric.key == "exact" else p.kappa
            name = registry.fill(metric.name, a=p.rater_a, b=p.rater_b)
            found[name] = entry(value, n=p.n_units)
    return found


def _calibration_metrics(cal: Calibration) -> dict[str, Entry]:
    found: dict[str, Entry] = {}
    for judge in cal.judges:
        found.update(_per(registry.JUDGE_AGREEMENT_METRICS, judge, judge=judge.judge))
    alpha, labels, verdicts = registry.CALIBRATION_TOTALS
    if cal.judges:
        found[alpha.name] = entry(cal.alpha_all_raters)
    found[labels.name] = count_entry(cal.n_human_labels)
    found[verdicts.name] = count_entry(cal.n_human_preferences)
    found.update(_people(registry.PEOPLE_METRICS, cal.humans))
    for p in cal.preferences:
        found.update(_preference_metrics(p))
    found.update(_people(registry.PEOPLE_PREFERENCE_METRICS, cal.human_preferences))
    return found


def _preference_metrics(p: calibration_module.PreferenceAgreement) -> dict[str, Entry]:
    values: dict[str, Entry] = {
        "agreement": estimate_entry(p.with_ties),
        "agreement_without_ties": estimate_entry(p.without_ties),
        "flip_rate": entry(p.flip_rate, n=p.n_swapped),
        "unscored": count_entry(p.n_unscored),
    }
    return {
        registry.fill(m.name, judge=p.judge): values[m.key]
        for m in registry.PREFERENCE_AGREEMENT_METRICS
    }


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
        "notes": {
            "pairwise": view.pairwise.note,
            "reference_rules": reference_rules.notes(view.reference_rules),
            "unscored_references": view.unscored_references,
        },
        "intervals": INTERVALS,
        "metrics": {**_overview_metrics(view), **_calibration_metrics(cal)},
    }


def compute(store: Store, selection: Selection) -> tuple[Overview, Calibration, dict[str, Any]]:
    """Overview, calibration and their JSON for one selection (the CLI's and report's path)."""
    view = overview.overview(store, selection)
    # The overview resolved the default rubric; calibration must use the same one.
    cal = calibration_module.calibration(store, view.selection)
    return view, cal, metrics_json(view, cal)
