"""The Overview's and the Calibration page's numbers as one flat, JSON-ready dict.

`judgeboard metrics --json` prints it, its gates (`--fail-under`, `--fail-over`) read its
names, and the HTML report renders its tables from it, so the three cannot disagree. Every
metric is `{"value", "low", "high", "n"}`: low and high are the 95% bootstrap interval (null
for a count, or when the interval is undefined), n the observations behind it, and a value
that cannot be computed (kappa on one label) is null, never NaN. A metric with no data behind
it at all (no human label on a system) is absent.

The names are the patterns declared in `registry.py` with their placeholders filled; they
are listed in docs/metrics.md. `<judge>` is a judge's name or `panel`. Names are looked up
whole, so a system name that holds a dot is fine. Win rates and Bradley–Terry ratings are
per group of raters (`standings.py`); the pooled ones appear only with `pool_raters`. With
`by` (an item field), every metric appears again for each slice of the items by that field,
under the slice's prefix: `by.category=coding.systems.x.effective`.

The judge-corrected estimates (`corrected/`: `systems.<system>.corrected`, its judge-only
and human-only twins, the pass rates, `labels_needed`, the corrected win rates) and the paired
comparisons (`compare.py`: `compare.<a>.<b>.panel|human|corrected`, whose entries add
`p_value` and Holm's `p_holm`) are for the whole selection, not per slice. `selection.panel`
names the panel every panel number is computed for; `notes.corrected` says why an estimate
is missing, `notes.compare` which differences survive Holm's correction. A judge run with
`judge --epochs N` adds its self-consistency on the whole selection
(`judges.<judge>.self_consistency.mean_sd|share_all_agree|alpha`, `n` its answers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dashboard.campaigns import tags
from dashboard.campaigns.tags import TagShare
from dashboard.metrics import (
    calibration as calibration_module,
    corrected as corrected_module,
    judge_qa,
    overview,
    panels,
    reference,
    registry,
    slices as slicing,
)
from dashboard.metrics.calibration import Calibration, RaterPair
from dashboard.metrics.corrected import Comparisons, Corrected
from dashboard.metrics.estimates import N_RESAMPLES, SEED, Estimate
from dashboard.metrics.output.entries import (
    Entry,
    bias_metrics,
    card_metrics,
    card_notes,
    compare_metrics,
    compare_notes,
    consistency_metrics,
    corrected_metrics,
    count_entry,
    entry,
    estimate_entry,
    selection_entry,
    tag_list,
    tag_metrics,
    version_metrics,
)
from dashboard.metrics.output.request import MetricsRequest
from dashboard.metrics.overview import Overview, SystemRow
from dashboard.metrics.registry import COUNT, Metric
from dashboard.metrics.selection import Selection, Slice
from dashboard.review import gold
from dashboard.store import Store


def _cards(store: Store, rubric: str | None, dataset: str | None) -> list[Any]:
    from dashboard.workbench.cards import latest_cards  # the workbench reads metrics itself

    return latest_cards(store, rubric=rubric, dataset=dataset)


SCHEMA_VERSION = 1
INTERVALS = {
    "method": "percentile bootstrap",
    "confidence": 0.95,
    "resamples": N_RESAMPLES,
    "seed": SEED,
}


def _system_metrics(row: SystemRow) -> dict[str, Entry]:
    found: dict[str, Entry] = {}
    for metric in registry.SYSTEM_METRICS:
        key = registry.row_key(metric)
        if key == "judge.<judge>":
            for judge, mean in sorted(row.judges.items()):
                name = registry.fill(metric.name, system=row.system, judge=judge)
                found[name] = estimate_entry(mean)
        elif key == "reference_score.<scorer>":
            for scorer, mean in sorted(row.references.items()):
                name = registry.fill(metric.name, system=row.system, scorer=scorer)
                found[name] = estimate_entry(mean)
        elif "<judge>" in key:
            head = key.split("<judge>")[0]
            for filled, per_judge in row.scores.items():
                if filled.startswith(head):
                    judge = filled.removeprefix(head)
                    found[registry.fill(metric.name, system=row.system, judge=judge)] = (
                        estimate_entry(per_judge)
                    )
        elif metric.style == COUNT:
            if key in row.counts:
                found[registry.fill(metric.name, system=row.system)] = count_entry(row.counts[key])
        elif (estimate := row.score(key)) is not None:
            found[registry.fill(metric.name, system=row.system)] = estimate_entry(estimate)
    return found


def _overview_metrics(view: Overview) -> dict[str, Entry]:
    found: dict[str, Entry] = {}
    for row in view.systems:
        found.update(_system_metrics(row))
    for group in view.pairwise.groups:
        for h in group.head_to_head:
            name = registry.rater_name(
                registry.HEAD_TO_HEAD_METRICS,
                "win_rate",
                group.raters,
                system=h.system_a,
                opponent=h.system_b,
            )
            found[name] = estimate_entry(h.win_rate)
    return found


def pairwise_notes(view: Overview) -> dict[str, Any]:
    """Why a group's Bradley–Terry ratings are undefined, and where the win rate and
    Bradley–Terry rank two systems differently (naming them, and why)."""
    return {
        "pairwise": {g.raters: g.note for g in view.pairwise.groups if g.note},
        "rank_disagreements": [
            {
                "raters": d.raters,
                "win_rate_above": d.win_rate_above,
                "bradley_terry_above": d.bradley_terry_above,
                "note": d.text,
            }
            for d in view.pairwise.disagreements
        ],
    }


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
    for levels in cal.levels:
        found.update(_per(registry.JUDGE_LEVEL_METRICS, levels, judge=levels.judge))
    if cal.people_alpha is not None:
        found.update(_per(registry.PEOPLE_ALPHA_METRICS, cal.people_alpha))
    found.update(_people(registry.PEOPLE_METRICS, cal.humans))
    for p in cal.preferences:
        found.update(_preference_metrics(p))
    found.update(_people(registry.PEOPLE_PREFERENCE_METRICS, cal.human_preferences))
    return found


def _preference_metrics(p: calibration_module.PreferenceAgreement) -> dict[str, Entry]:
    """Every pairwise convention of one judge; a convention with no pair behind it (no human
    label, or no pair judged in both orders) is absent, the unscored counts always there."""
    found: dict[str, Entry] = {}
    for metric in registry.PREFERENCE_AGREEMENT_METRICS:
        value = getattr(p, metric.key)
        name = registry.fill(metric.name, judge=p.judge)
        if isinstance(value, Estimate):
            if value.n:
                found[name] = estimate_entry(value)
        else:
            found[name] = count_entry(value)
    return found


# What each pairwise convention means and where it comes from, as the JSON's notes name it.
PAIRWISE_CONVENTIONS = {m.name: m.description for m in registry.PREFERENCE_AGREEMENT_METRICS}


@dataclass(frozen=True)
class SliceNumbers:
    """The Overview's and the Calibration's numbers on one slice of the items."""

    slice: Slice
    n_items: int
    overview: Overview
    calibration: Calibration

    @property
    def prefix(self) -> str:
        return self.slice.prefix


@dataclass(frozen=True)
class Numbers:
    """Everything `judgeboard metrics` prints: the whole selection's numbers, each slice's
    (with `--by`), and the JSON of them all."""

    overview: Overview
    calibration: Calibration
    slices: tuple[SliceNumbers, ...]
    json: dict[str, Any]
    bias: judge_qa.Bias | None = None
    corrected: Corrected | None = None
    comparisons: Comparisons | None = None
    consistencies: tuple[judge_qa.JudgeConsistency, ...] = ()  # `judge --epochs N` runs


def _metrics(view: Overview, cal: Calibration) -> dict[str, Entry]:
    return {**_overview_metrics(view), **_calibration_metrics(cal)}


def _slice_entry(s: SliceNumbers) -> dict[str, Any]:
    return {
        "value": s.slice.value,
        "prefix": s.prefix,
        "items": s.n_items,
        "systems": [row.system for row in s.overview.systems],
        "notes": pairwise_notes(s.overview),
    }


def metrics_json(
    view: Overview,
    cal: Calibration,
    *,
    slices: Sequence[SliceNumbers] = (),
    pool_raters: bool = False,
    bias: judge_qa.Bias | None = None,
    corrected: Corrected | None = None,
    comparisons: Comparisons | None = None,
    versions: judge_qa.RubricVersions | None = None,
    consistencies: tuple[judge_qa.JudgeConsistency, ...] = (),
    cards: Sequence[Any] = (),
    corrected_references: int = 0,
    tag_shares: Sequence[TagShare] = (),
) -> dict[str, Any]:
    """The selection (with calibration's `human_reference`), the items whose references
    people corrected (`references`), the scale and every metric under its stable flat name;
    with `slices`, every metric of each slice again under its prefix, and the slices under
    "by"."""
    found = _metrics(view, cal)
    notes: dict[str, Any] = {
        **pairwise_notes(view),
        "conventions": {"calibration.pairwise": PAIRWISE_CONVENTIONS},
        "reference_rules": reference.notes(view.reference_rules),
        "unscored_references": view.unscored_references,
    }
    if bias is not None:  # the whole selection's only, never per slice
        found.update(bias_metrics(bias))
        notes["bias"] = dict(bias.warnings)
    if corrected is not None:
        found.update(corrected_metrics(corrected))
    if comparisons is not None:
        found.update(compare_metrics(comparisons))
    if versions is not None:  # `versions.<judge>.<version>.`: the whole selection's only
        found.update(version_metrics(versions))
    found.update(consistency_metrics(consistencies))  # the whole selection's only
    found.update(card_metrics(cards))  # the adopted versions' judge cards (the workbench's)
    found.update(tag_metrics(tag_shares))  # the whole selection's only
    for s in slices:
        found.update(
            {s.prefix + name: e for name, e in _metrics(s.overview, s.calibration).items()}
        )
    data: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "selection": selection_entry(view.selection, pool_raters, cal.human_reference),
        "references": {
            "source": "corrected" if corrected_references else "imported",
            "corrected_items": corrected_references,
        },
        "scale": list(view.scale) if view.scale else None,
        "systems": [row.system for row in view.systems],
        "judges": [j.judge for j in cal.judges],
        "notes": notes,
        "intervals": INTERVALS,
        "metrics": found,
    }
    if corrected is not None:
        data["notes"]["corrected"] = list(corrected.notes)
        data["corrected"] = {
            **corrected_module.METHOD,
            "target_half_width": corrected.target_half_width,
        }
    if cards:
        data["notes"]["judge_cards"] = card_notes(cards)
    if tag_shares:
        data["tags"] = tag_list(tag_shares)
    if comparisons is not None:
        data["notes"]["compare"] = compare_notes(comparisons)
    if slices:
        data["by"] = {"field": slices[0].slice.field, "slices": [_slice_entry(s) for s in slices]}
    return data


def compute_all(
    store: Store,
    selection: Selection,
    *,
    pool_raters: bool = False,
    by: str | None = None,
    families: judge_qa.Families | None = None,
    cluster: str | None = None,
    target_half_width: float = corrected_module.TARGET_HALF_WIDTH,
    human_reference: str = calibration_module.ALL_LABELS,
) -> Numbers:
    """The numbers of one selection and, with `by` (an item field), of each of its slices
    by that field; the paired comparisons' bootstrap resamples `cluster` (an item field).
    An unknown field raises `choices.UnknownChoice`. `families` (default: every panel
    file's) are the model families self-preference compares."""
    resolved = panels.with_panel(store, selection)
    # The overview, calibration, the corrected estimates, the bias and the slices use the
    # same (default) rubric and panel.
    view = overview.overview(store, resolved, pool_raters=pool_raters)
    cal = calibration_module.calibration(store, resolved, human_reference=human_reference)
    fixed, compared = corrected_module.corrected_and_compared(
        store, resolved, cluster=cluster, target_half_width=target_half_width
    )
    found = []
    if by is not None:
        views = slicing.overview_by(store, resolved, by, pool_raters=pool_raters)
        cals = slicing.calibration_by(store, resolved, by)
        found = [
            SliceNumbers(v.slice, v.n_items, v.overview, c.calibration) for v, c in zip(views, cals)
        ]
    judged = judge_qa.bias(store, resolved, families=families)
    repeated = judge_qa.consistencies(store, resolved)
    data = metrics_json(
        view,
        cal,
        slices=found,
        pool_raters=pool_raters,
        bias=judged,
        corrected=fixed,
        comparisons=compared,
        versions=judge_qa.rubric_versions(store, resolved),
        consistencies=repeated,
        cards=_cards(store, resolved.rubric, resolved.dataset),
        corrected_references=gold.corrected_items(store, resolved.dataset),
        tag_shares=tags.tag_shares(store, dataset=resolved.dataset, systems=resolved.systems),
    )
    return Numbers(view, cal, tuple(found), data, judged, fixed, compared, consistencies=repeated)


def numbers(
    store: Store, request: MetricsRequest, *, families: judge_qa.Families | None = None
) -> Numbers:
    """The numbers `judgeboard metrics` prints and the report shows, as `request` asks."""
    return compute_all(
        store,
        request.selection,
        pool_raters=request.pool_raters,
        by=request.by,
        cluster=request.cluster,
        target_half_width=request.target_half_width,
        families=families,
        human_reference=request.human_reference,
    )


def compute(
    store: Store, selection: Selection, **options: Any
) -> tuple[Overview, Calibration, dict[str, Any]]:
    """Overview, calibration and their JSON for one selection (the CLI's and report's path);
    `options` are `compute_all`'s."""
    numbers = compute_all(store, selection, **options)
    return numbers.overview, numbers.calibration, numbers.json
