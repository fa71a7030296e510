"""A metric's entry in the JSON (`{"value", "low", "high", "n"}`, null for what JSON cannot
hold), and the entries of the whole selection's own estimates: each judge's bias, the
judge-corrected estimates and the paired comparisons (`metrics_json.py` assembles them)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from dashboard.metrics import corrected as corrected_module, judge_qa, registry
from dashboard.metrics.corrected import Comparisons, Corrected
from dashboard.metrics.estimates import Estimate

Entry = dict[str, float | int | None]
_KINDS = ("judge_only", "human_only", "corrected")


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


def bias_metrics(found: judge_qa.Bias) -> dict[str, Entry]:
    """Each judge's bias measures that have data (`judge_qa/judge_bias.py`)."""
    metrics: dict[str, Entry] = {}
    for judge in found.judges:
        for metric in registry.BIAS_METRICS:
            value = getattr(judge, metric.key)
            if value is not None:
                metrics[registry.fill(metric.name, judge=judge.judge)] = estimate_entry(value)
    return metrics


def consistency_metrics(found: tuple[judge_qa.JudgeConsistency, ...]) -> dict[str, Entry]:
    """`judges.<judge>.self_consistency.<mean_sd|share_all_agree|alpha>` with the 95%
    bootstrap interval over answers, `n` its answers."""
    metrics: dict[str, Entry] = {}
    for judge in found:
        for metric in registry.SELF_CONSISTENCY_METRICS:
            value = getattr(judge.consistency, metric.key)
            ci = getattr(judge.consistency, f"{metric.key}_ci")
            name = registry.fill(metric.name, judge=judge.judge)
            metrics[name] = entry(value, low=ci.low, high=ci.high, n=judge.consistency.n_answers)
    return metrics


def version_metrics(found: judge_qa.RubricVersions) -> dict[str, Entry]:
    """`versions.<judge>.<version>.<agreement|kappa|alpha|bias>` of `metrics --json`."""
    metrics: dict[str, Entry] = {}
    for v in found.versions:
        for metric in registry.VERSION_METRICS:
            name = registry.fill(metric.name, judge=v.judge, version=v.version)
            metrics[name] = estimate_entry(getattr(v, metric.key))
    return metrics


def _triple_entries(name: str, triple: corrected_module.Triple) -> dict[str, Entry]:
    """`name.judge_only`, `name.human_only`, `name.corrected` of one quantity (name is
    "systems.x" for the score, "systems.x.pass_rate" ...), for the estimates there are."""
    found = {}
    for kind in _KINDS:
        if (estimate := getattr(triple, kind)) is not None:
            found[f"{name}.{kind}"] = estimate_entry(estimate)
    return found


def corrected_metrics(found: Corrected) -> dict[str, Entry]:
    """The judge-corrected estimates under their registry names."""
    entries: dict[str, Entry] = {}
    for s in found.systems:
        base = registry.fill("systems.<system>", system=s.system)
        entries.update(_triple_entries(base, s.score))
        entries.update(_triple_entries(f"{base}.pass_rate", s.pass_rate))
        if s.pass_rate_rogan_gladen is not None:
            entries[f"{base}.pass_rate.rogan_gladen"] = estimate_entry(s.pass_rate_rogan_gladen)
        if s.n_valid_labels:  # without a valid label there is nothing to say it from
            entries[f"{base}.labels_needed"] = entry(s.labels_needed, n=s.n_valid_labels)
    for h in found.head_to_head:
        for kind in _KINDS:
            if (estimate := getattr(h.win_rate, kind)) is not None:
                name = registry.declared_name(
                    registry.CORRECTED_METRICS,
                    f"win_rate.{kind}",
                    system=h.system_a,
                    opponent=h.system_b,
                )
                entries[name] = estimate_entry(estimate)
    return entries


def compare_metrics(found: Comparisons) -> dict[str, Entry]:
    """`compare.<a>.<b>.<kind>`: the difference b - a with `p_value` and `p_holm` added."""
    entries: dict[str, Entry] = {}
    for d in found.differences:
        name = f"compare.{d.system_a}.{d.system_b}.{d.kind}"
        entries[name] = {
            **estimate_entry(d.estimate),
            "p_value": _number(d.p_value),
            "p_holm": _number(d.p_holm),
        }
    return entries


def compare_notes(found: Comparisons) -> dict[str, Any]:
    """The paired comparisons' conventions and, with more than two systems, which
    differences survive Holm's correction at level `compare.ALPHA`."""
    survive = [
        f"compare.{d.system_a}.{d.system_b}.{d.kind}" for d in found.differences if d.survives
    ]
    return {
        "cluster": found.cluster or "item (the conversation for conversational QA)",
        "holm": found.holm,
        "alpha": corrected_module.ALPHA,
        "survive_holm": survive if found.holm else None,
    }


def card_metrics(cards: Sequence[Any]) -> dict[str, Entry]:
    """`judge_cards.<judge>.<rubric>.<metric>` of the adopted versions' judge cards
    (`dashboard/workbench/cards.py`); `fresh` is 1 while a card holds, 0 once stale."""
    metrics: dict[str, Entry] = {}
    for card in cards:
        for metric in registry.JUDGE_CARD_METRICS:
            name = registry.fill(metric.name, judge=card.judge, rubric=card.rubric)
            if metric.key == "fresh":
                metrics[name] = entry(0 if card.stale else 1, n=card.n_labels)
            elif (number := card.numbers.get(metric.key)) is not None:
                metrics[name] = entry(
                    number["value"], low=number["low"], high=number["high"], n=number["n"]
                )
    return metrics


def card_notes(cards: Sequence[Any]) -> dict[str, Any]:
    """What each judge card is bound to, and why it is stale (when it is)."""
    return {
        f"{card.judge}.{card.rubric}": {
            "judge": card.judge,
            "rubric": card.rubric,
            "dataset": card.dataset,
            "model": card.model,
            "model_version": card.model_version,
            "rubric_version": card.version,
            "prompt_hash": card.prompt_hash,
            "n_labels": card.n_labels,
            "adopted_by": card.adopted_by,
            "reason": card.reason,
            "adopted_utc": card.adopted_utc.isoformat(),
            "stale": list(card.stale_reasons),
        }
        for card in cards
    }


def tag_metrics(shares: Sequence[Any]) -> dict[str, Entry]:
    """`tags.<campaign>.<tag>.<system>.share` of `metrics --json` (`campaigns.tags.TagShare`
    rows), `n` the tag labels."""
    (metric,) = registry.TAG_METRICS
    return {
        registry.fill(metric.name, campaign=s.campaign, tag=s.tag, system=s.system): entry(
            s.share, low=s.low, high=s.high, n=s.n
        )
        for s in shares
    }


def tag_list(shares: Sequence[Any]) -> list[dict[str, Any]]:
    """The JSON's "tags": each campaign's tag with the systems it has a share for."""
    found: dict[tuple[str, str], list[str]] = {}
    for s in shares:
        found.setdefault((s.campaign, s.tag), []).append(s.system)
    return [{"campaign": c, "tag": t, "systems": systems} for (c, t), systems in found.items()]


def selection_entry(selection: Any, pool_raters: bool, human_reference: str) -> dict[str, Any]:
    """The JSON's "selection": what the numbers are of (a `Selection`), and calibration's
    reference for people (`human_reference`)."""
    return {
        "dataset": selection.dataset,
        "rubric": selection.rubric,
        "preference_rubric": selection.preference_rubric,
        "systems": list(selection.systems) if selection.systems else None,
        "pool_raters": pool_raters,
        "panel": selection.panel,
        "panel_judges": list(selection.panel_judges) if selection.panel_judges else None,
        "panel_version": selection.panel_version,
        "panel_versions": {d: list(v) for d, v in selection.panel_versions_by_dataset},
        "panel_is_default": selection.panel_is_default,
        "human_reference": human_reference,
    }
