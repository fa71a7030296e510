"""Display rows of the Judge QA numbers (bias, drift, rubric versions, self-consistency),
shared by the page and the report."""

from __future__ import annotations

from typing import Any

from dashboard.metrics import registry
from dashboard.metrics.estimates import Estimate
from dashboard.metrics.judge_qa.consistency import JudgeConsistency
from dashboard.metrics.judge_qa.judge_bias import Bias
from dashboard.metrics.judge_qa.judge_drift import Drift
from dashboard.metrics.judge_qa.versions import RubricVersions
from dashboard.metrics.tables import EMPTY, estimate_text

Row = dict[str, Any]


def _n(estimate: Estimate | None) -> int | str:
    return estimate.n if estimate is not None else EMPTY


def bias_rows(found: Bias) -> list[Row]:
    """One row per judge: each bias measure as 'estimate [95% interval]' and its n."""
    rows = []
    for judge in found.judges:
        row: Row = {"judge": judge.judge, "family": judge.family or EMPTY}
        for metric in registry.BIAS_METRICS:
            value = getattr(judge, metric.key)
            row[metric.label] = estimate_text(value, metric.style)
            row[f"n ({metric.label})"] = _n(value)
        row["length measured"] = (
            "beyond people's" if judge.length_beyond_people else "raw (confounded)"
        )
        rows.append(row)
    return rows


def drift_rows(found: Drift) -> list[Row]:
    """One row per judge and system: the versions compared, the judge's shift on the anchors,
    the system's change, and the share of that change the judge's shift accounts for."""
    rows = []
    for judge in found.judges:
        shift = estimate_text(judge.anchor_shift, registry.SIGNED)
        for system in judge.systems:
            share = system.judge_share
            rows.append(
                {
                    "judge": judge.judge,
                    "from": judge.old_version,
                    "to": judge.new_version,
                    "shift on anchors": shift,
                    "anchors": _n(judge.anchor_shift),
                    "system": system.system,
                    "system's change": estimate_text(system.change, registry.SIGNED),
                    "the judge's share": EMPTY if share is None else f"{share:.0%}",
                }
            )
    return rows


def version_rows(found: RubricVersions) -> list[Row]:
    """One row per judge and rubric version: each measure as 'estimate [95% interval]'."""
    rows = []
    for v in found.versions:
        row: Row = {"judge": v.judge, "rubric version": v.version, "responses": v.n_responses}
        for metric in registry.VERSION_METRICS:
            row[metric.label] = estimate_text(getattr(v, metric.key), metric.style, digits=3)
        row["n (pairs)"] = v.agreement.n
        rows.append(row)
    return rows


# The command that makes a repeated run, for a page or the report with none to show.
EPOCHS_COMMAND = "judgeboard judge --epochs 3 --temperature 0.7"


def consistency_rows(found: tuple[JudgeConsistency, ...]) -> list[Row]:
    """One row per judge run with epochs: its rubric version, the epochs, and each
    self-consistency number of the registry (`judges.<judge>.self_consistency.*`) as
    'estimate [95% interval]', with `n` the answers it is over."""
    rows = []
    for judge in found:
        c = judge.consistency
        row: Row = {
            "judge": judge.judge,
            "rubric version": judge.rubric_version or EMPTY,
            "epochs": c.n_epochs,
        }
        for metric in registry.SELF_CONSISTENCY_METRICS:
            ci = getattr(c, f"{metric.key}_ci")
            value = Estimate(getattr(c, metric.key), ci.low, ci.high, c.n_answers)
            row[metric.label] = estimate_text(value, metric.style, digits=3)
        row["n (answers)"] = c.n_answers
        rows.append(row)
    return rows


def consistency_convention() -> str:
    """How to read `consistency_rows`: each number's definition and direction, from the
    registry, then what the intervals and `n` are."""
    asked = "a judge asked N times per answer: "  # every description's start: said once
    parts = [
        f"{m.label}: {m.description.removeprefix(asked)} ({m.better} is better)"
        for m in registry.SELF_CONSISTENCY_METRICS
    ]
    return (
        "Each judge asked N times per answer (its epochs). "
        + "; ".join(parts)
        + ". Each at the judge's latest rubric version run with epochs, over "
        "the answers with at least two scored epochs (n); 95% percentile bootstrap intervals "
        "resampling answers."
    )


def disagreement_rows(found: RubricVersions) -> list[Row]:
    """One row per judge and response where a version disagrees with people: people's
    ratings, then each version's (a dash where it did not rate the response)."""
    return [
        {
            "judge": d.judge,
            "response": d.response_id,
            "system": d.system,
            "question": d.question,
            "people": ", ".join(f"{p:g}" for p in d.people),
            **{
                f"v{version}": f"{d.ratings[version]:g}" if version in d.ratings else EMPTY
                for version in found.versions_of(d.judge)
            },
        }
        for d in found.disagreements
    ]
