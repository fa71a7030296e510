"""The methods section: who rated (the panel, people), with which rubric versions, how many
judge calls it took and what they cost, when, and how the numbers were computed."""

from __future__ import annotations

from datetime import datetime

from dashboard.metrics import estimates, reference
from dashboard.report.gather import JudgeUse, RaterUse, ReportData, cost_text
from dashboard.report.html import EMPTY, esc, paragraph, section, table, tag, td, th_row
from dashboard.types import RATER_KIND_NOUNS

_STATISTICS = (
    "Scores are means of ratings normalized to 0–1 ((value − low) / (high − low)). "
    "The panel's score of a response is the mean of its judges' scored ratings; a rating "
    "that did not parse is skipped and counted, never read as a grade. The effective score "
    "of a response is the mean of people's ratings where someone rated it, else the panel's.",
    f"Intervals are 95% percentile bootstraps with {estimates.N_RESAMPLES} resamples "
    f"(seed {estimates.SEED}): over responses for means, over the compared (judge, "
    "person) pairs for agreement, and over evaluators for win rates. Kappa is Cohen's kappa "
    "with quadratic weights; alpha is Krippendorff's alpha at the ordinal level; a pairwise "
    "verdict asked in both orders is reconciled, and an inconsistent pair counts as a tie.",
)


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else EMPTY


def _tokens(use: JudgeUse) -> str:
    if use.prompt_tokens is None and use.completion_tokens is None:
        return "unknown"
    return f"{use.prompt_tokens or 0:,} in / {use.completion_tokens or 0:,} out"


def _cost(use: JudgeUse) -> str:
    if use.ok_calls and use.cost_unknown_calls == use.ok_calls:
        return "unknown"
    known = f"${use.cost_usd or 0.0:.4f}"
    return f"{known} + {use.cost_unknown_calls} unknown" if use.cost_unknown_calls else known


def _panel_table(calls: tuple[JudgeUse, ...], raters: tuple[RaterUse, ...]) -> str:
    rows = [
        [
            th_row(c.judge),
            td(c.model),
            td(c.rubric),
            td(c.rubric_version),
            td(c.calls, class_="num"),
            td(c.failed_calls, class_="num"),
            td(_tokens(c)),
            td(_cost(c)),
        ]
        for c in calls
    ]
    called = {(c.judge, c.rubric, c.rubric_version) for c in calls}
    imported = sorted(
        {
            (r.rater, r.rubric, r.rubric_version)
            for r in raters
            if r.rater_kind == "llm" and (r.rater, r.rubric, r.rubric_version) not in called
        }
    )
    rows += [
        [
            th_row(name),
            td("not recorded (imported ratings)"),
            td(rubric),
            td(version),
            td(0, class_="num"),
            td(0, class_="num"),
            td("unknown"),
            td("unknown"),
        ]
        for name, rubric, version in imported
    ]
    if not rows:
        return paragraph("No judge rated this selection.")
    return table(
        ["Judge", "Model", "Rubric", "Version", "Calls", "Failed", "Tokens", "Cost"],
        rows,
        caption="The judge panel",
    )


def _raters_table(raters: tuple[RaterUse, ...]) -> str:
    rows = [
        [
            th_row(r.kind),
            td(r.rubric),
            td(r.rubric_version),
            td(f"{r.rater} ({RATER_KIND_NOUNS.get(r.rater_kind, r.rater_kind)})"),
            td(r.current, class_="num"),
            td(r.total, class_="num"),
            td(f"{_when(r.first_utc)} – {_when(r.last_utc)}"),
        ]
        for r in raters
    ]
    if not rows:
        return paragraph("No ratings or preferences on this selection.")
    return table(
        ["Kind", "Rubric", "Version", "Rater", "Current", "All rows", "Given"],
        rows,
        caption="Rubric versions and raters (superseded rows are kept, not counted as current)",
    )


def _facts(data: ReportData) -> str:
    calls = data.calls
    scale = data.overview.scale
    rubric = data.selection.rubric
    labels = data.metrics["metrics"].get("calibration.human_labels", {}).get("value") or 0
    facts = [
        ("Date", _when(data.generated_utc)),
        ("Dataset", data.selection.dataset or "all datasets"),
        (
            "Rubric of the scores",
            f"{rubric} ({scale[0]:g}–{scale[1]:g})" if rubric and scale else "none (no ratings)",
        ),
        (
            "Rubric versions",
            ", ".join(sorted({f"{r.rubric} v{r.rubric_version}" for r in data.raters})) or EMPTY,
        ),
        (
            "Judge calls",
            f"{sum(c.calls for c in calls):,} ({sum(c.failed_calls for c in calls):,} failed)",
        ),
        ("Cost", cost_text(calls)),
        ("Human labels", f"{int(labels):,}"),
    ]
    return tag(
        "dl",
        "".join(tag("dt", esc(k)) + tag("dd", esc(v)) for k, v in facts),
        class_="facts",
        id="methods-facts",
    )


def _reference_rules(data: ReportData) -> str:
    rules = data.overview.reference_rules
    return paragraph(reference.describe(rules)) if rules else ""


def methods(data: ReportData) -> str:
    body = (
        _facts(data)
        + _panel_table(data.calls, data.raters)
        + _raters_table(data.raters)
        + "".join(paragraph(text) for text in _STATISTICS)
        + _reference_rules(data)
    )
    return section("methods", "Methods", body)
