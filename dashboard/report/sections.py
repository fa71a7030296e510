"""The report's sections, each a function of `ReportData` returning safe HTML.

Every number in a table is read from the metrics JSON (`data.metrics["metrics"]`) by its
flat name, the one `judgeboard metrics --json` prints, so the report and the command agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from dashboard import charts
from dashboard.metrics import registry
from dashboard.metrics.calibration import Calibration
from dashboard.metrics.overview import Overview
from dashboard.report.gather import RatingNote, ReportData, WorstAnswer
from dashboard.report.html import (
    EMPTY,
    esc,
    figure,
    metric_cell,
    paragraph,
    section,
    split_table,
    table,
    tag,
    td,
    th_row,
)
from dashboard.types import RATER_KIND_NOUNS

# Columns of the calibration tables, in the registry's order.
_AGREEMENT = registry.JUDGE_AGREEMENT_METRICS
_PREFERENCE_AGREEMENT = registry.PREFERENCE_AGREEMENT_METRICS


def header(label: str) -> str:
    """A registry label as a report column heading: its first letter in capitals."""
    return label[:1].upper() + label[1:]


def _numbers(data: ReportData) -> dict:
    return data.metrics["metrics"]


@dataclass(frozen=True)
class Scope:
    """What a table shows: the whole selection's numbers, or a slice's (their names in the
    metrics JSON carry the slice's `prefix`)."""

    overview: Overview
    calibration: Calibration
    numbers: dict
    prefix: str = ""

    def name(self, name: str) -> str:
        return self.prefix + name


def whole(data: ReportData) -> Scope:
    return Scope(data.overview, data.calibration, _numbers(data))


def _summary_columns(view: Overview, numbers: dict, prefix: str = "") -> list[tuple[str, str, str]]:
    judges = sorted({j for row in view.systems for j in row.judges})
    scorers = sorted({r for row in view.systems for r in row.references})
    columns = []
    for metric in registry.SYSTEM_METRICS:
        if not metric.summary:
            continue
        suffix = registry.row_key(metric)
        # A judge's (or a reference scorer's) mean: a column each.
        holder = "judge" if "<judge>" in suffix else "scorer" if "<scorer>" in suffix else None
        names = {"judge": judges, "scorer": scorers}.get(holder or "", [None])
        for one in names:
            filled = registry.fill(suffix, **{holder: one}) if holder and one else suffix
            shown = registry.fill(metric.label, **{holder: one}) if holder and one else metric.label
            columns.append((header(shown), filled, metric.style))
    return [
        c
        for c in columns
        if any(f"{prefix}systems.{s.system}.{c[1]}" in numbers for s in view.systems)
    ]


def summary_columns(data: ReportData) -> list[tuple[str, str, str]]:
    """(header, name after "systems.<system>.", number style) of every system metric of the
    registry's summary, each judge's in a column of its own, that holds a number for some
    system."""
    return _summary_columns(data.overview, _numbers(data))


def summary_table(scope: Scope) -> str:
    columns = _summary_columns(scope.overview, scope.numbers, scope.prefix)
    rows = [
        [
            th_row(row.system),
            *(
                metric_cell(scope.numbers, scope.name(f"systems.{row.system}.{name}"), style)
                for _, name, style in columns
            ),
        ]
        for row in scope.overview.systems
    ]
    return split_table(["System", *(c[0] for c in columns)], rows, class_="grid wide")


def summary(data: ReportData) -> str:
    if not data.overview.systems:
        return section("summary", "Summary", paragraph("No responses in this selection."))
    intro = paragraph(
        "Each cell: mean [95% bootstrap interval]. Judge, panel, people and effective scores "
        "are normalized to 0–1; the effective score is people's rating where there is one, "
        "the panel's otherwise. Win rates (a tie counts half a win, then the mean over the "
        "evaluators) and Bradley–Terry ratings (Elo scale, mean 1000) are per rater kind: "
        "the judges' verdicts and people's are never pooled unless the report was asked to "
        "pool them (then the columns marked pooled)."
    )
    return section("summary", "Summary", intro + summary_table(whole(data)))


def histograms(data: ReportData) -> str:
    view = data.overview
    if not view.histograms:
        body = paragraph("No ratings of this rubric on this selection.")
    else:
        body = figure(charts.rating_histograms(view.histograms, scale=view.scale), "fig-histograms")
    return section("histograms", "Rating histograms", body)


def agreement_table(scope: Scope) -> str:
    rows = [
        [
            th_row(j.judge),
            td(j.n_pairs, class_="num"),
            td(j.n_responses, class_="num"),
            *(
                metric_cell(
                    scope.numbers, scope.name(registry.fill(m.name, judge=j.judge)), m.style
                )
                for m in _AGREEMENT
            ),
        ]
        for j in scope.calibration.judges
    ]
    headers = ["Judge", "Pairs", "Responses", *(header(m.label) for m in _AGREEMENT)]
    return table(headers, rows, caption="Each judge (and the panel) against people")


def _levels_table(data: ReportData) -> str:
    """Each judge against the mean of people, item and system level, and TPR and TNR."""
    numbers = _numbers(data)
    rows = [
        [
            th_row(lv.judge),
            td(lv.item_pearson.n, class_="num"),
            td(lv.system_pearson.n, class_="num"),
            *(
                metric_cell(numbers, registry.fill(m.name, judge=lv.judge), m.style)
                for m in registry.JUDGE_LEVEL_METRICS
            ),
        ]
        for lv in data.calibration.levels
    ]
    headers = [
        "Judge",
        "Responses",
        "Systems",
        *(header(m.label) for m in registry.JUDGE_LEVEL_METRICS),
    ]
    intro = paragraph(
        "Each judge against the mean of people's ratings of a response, as the summarization "
        "and G-Eval literature reports it: Pearson, Spearman and Kendall's tau-b over the "
        "responses (item level) and over the systems' means (system level, three systems or "
        "more), and as a pass/fail judge (0.5 normalized passes) its true positive and true "
        "negative rates. Intervals: 95% bootstrap over the responses (within each system)."
    )
    return intro + table(headers, rows, caption="Each judge against the mean of people")


def _people_table(data: ReportData) -> str:
    numbers = _numbers(data)
    rows = [
        [
            th_row(f"{p.rater_a} and {p.rater_b}"),
            td(p.n_units, class_="num"),
            metric_cell(numbers, f"calibration.people.{p.rater_a}.{p.rater_b}.exact", "score"),
            metric_cell(
                numbers, f"calibration.people.{p.rater_a}.{p.rater_b}.kappa_quadratic", "score"
            ),
        ]
        for p in data.calibration.humans
    ]
    return table(
        ["People", "Shared responses", "Exact", "Kappa (quadratic)"],
        rows,
        caption="People against each other",
    )


def _preference_table(data: ReportData) -> str:
    numbers = _numbers(data)
    rows = [
        [
            th_row(p.judge),
            td(p.n_pairs, class_="num"),
            td(p.consistency.n, class_="num"),
            *(
                metric_cell(numbers, registry.fill(m.name, judge=p.judge), m.style)
                for m in _PREFERENCE_AGREEMENT
            ),
        ]
        for p in data.calibration.preferences
    ]
    headers = [
        "Judge",
        "Labelled pairs",
        "Pairs in both orders",
        *(header(m.label) for m in _PREFERENCE_AGREEMENT),
    ]
    intro = paragraph(
        "Every published convention, against people's majority (or gold): per-order accuracy "
        "(LLMBar's Acc), both-orders accuracy (LLMBar, Auto-J), agreement with ties (FastChat; "
        "an inconsistent pair counts as a tie, which rewards inconsistency where people said "
        "tie), the orders' vote (JudgeBench), Cohen's kappa, and agreement without ties with "
        "the share of pairs it covers. Consistency, flip rate and position bias need no label "
        "and use every pair judged in both orders. A pair with a verdict that did not parse is "
        "unscored under every convention and only counted."
    )
    caption = "Pairwise verdicts against people's majority"
    return intro + split_table(headers, rows, caption=caption)


def _calibration_counts(data: ReportData) -> str:
    numbers = _numbers(data)
    facts = [
        ("Human labels", "calibration.human_labels", "count"),
        ("Human pairwise verdicts", "calibration.human_preferences", "count"),
        ("Alpha (ordinal), all raters", "calibration.all_raters.alpha_ordinal", "score"),
        *(
            (f"{header(m.label)}, among people alone", m.name, m.style)
            for m in registry.PEOPLE_ALPHA_METRICS
        ),
    ]
    return tag(
        "dl",
        "".join(
            tag("dt", esc(label)) + tag("dd", metric_cell(numbers, name, style, element="span"))
            for label, name, style in facts
            if name in numbers
        ),
        class_="facts",
    )


def calibration(data: ReportData) -> str:
    cal = data.calibration
    parts = [_calibration_counts(data)]
    if cal.judges:
        parts.append(
            paragraph(
                "Agreement, kappa and the confusion tables use the judge's rating rounded to the "
                "scale; Spearman and the bias (judge minus person, in scale points) use it as is. "
                "Intervals: 95% bootstrap over the compared (judge, person) pairs."
            )
        )
        parts.append(agreement_table(whole(data)))
        heatmaps = "".join(
            figure(charts.confusion_heatmap(j.confusion, judge=j.judge), f"fig-confusion-{n}")
            for n, j in enumerate(cal.judges)
        )
        parts.append(tag("div", heatmaps, class_="figures"))
        if cal.levels:
            parts.append(_levels_table(data))
    else:
        parts.append(
            paragraph(
                "No response has both a judge's rating and a person's, so "
                "there is nothing to calibrate yet."
            )
        )
    if cal.humans:
        parts.append(_people_table(data))
    if cal.preferences:
        parts.append(_preference_table(data))
    return section("calibration", "Calibration", "".join(parts))


def _rating_line(note: RatingNote) -> str:
    rater = f"{note.rater} ({RATER_KIND_NOUNS.get(note.rater_kind, note.rater_kind)})"
    value = (
        f"{note.value:g} on {note.scale_low:g}–{note.scale_high:g}"
        if note.value is not None
        else f"unscored: {note.unscored_reason or 'no reason'}"
    )
    said = [
        tag("div", esc(text), class_="text") for text in (note.explanation, note.comment) if text
    ]
    return tag("li", tag("strong", esc(rater)) + " " + esc(value) + "".join(said))


def _worst_card(rank: int, w: WorstAnswer) -> str:
    head = tag(
        "h3",
        esc(f"{rank}. {w.system}")
        + tag(
            "span", esc(f" effective score {w.effective_score:.3f} · {w.dataset}"), class_="meta"
        ),
    )
    blocks = [
        tag("div", tag("div", esc(label), class_="label") + tag("div", esc(text), class_="text"))
        for label, text in (
            ("Question", w.question),
            ("Reference", "\n\n".join(w.reference_answers) or EMPTY),
            ("Answer", w.answer),
        )
    ]
    ratings = tag("ul", "".join(_rating_line(n) for n in w.ratings), class_="ratings")
    return tag("article", head + "".join(blocks) + ratings, class_="answer")


def worst(data: ReportData) -> str:
    if not data.worst:
        body = paragraph("No rated answers on this selection.")
    else:
        body = paragraph(
            f"The {len(data.worst)} answers with the lowest effective score (0–1) under "
            f"{data.selection.rubric}, with what each rater said. All text is shown as "
            "written, as plain text."
        ) + "".join(_worst_card(n, w) for n, w in enumerate(data.worst, start=1))
    return section("worst", "Worst-rated answers", body)
