"""The report's sections, each a function of `ReportData` returning safe HTML.

Every number in a table is read from the metrics JSON (`data.metrics["metrics"]`) by its
flat name, the one `judgeboard metrics --json` prints, so the report and the command agree.
"""

from __future__ import annotations

from dashboard import charts
from dashboard.metrics import registry
from dashboard.report.gather import RatingNote, ReportData, WorstAnswer
from dashboard.report.html import (
    EMPTY,
    esc,
    figure,
    metric_cell,
    paragraph,
    section,
    table,
    tag,
    td,
    th_row,
)

# Columns of the calibration tables, in the registry's order.
_AGREEMENT = registry.JUDGE_AGREEMENT_METRICS
_PREFERENCE_AGREEMENT = registry.PREFERENCE_AGREEMENT_METRICS


def header(label: str) -> str:
    """A registry label as a report column heading: its first letter in capitals."""
    return label[:1].upper() + label[1:]


def _numbers(data: ReportData) -> dict:
    return data.metrics["metrics"]


def summary_columns(data: ReportData) -> list[tuple[str, str, str]]:
    """(header, name after "systems.<system>.", number style) of every system metric of the
    registry, each judge's in a column of its own, that holds a number for some system."""
    judges = sorted({j for row in data.overview.systems for j in row.judges})
    columns = []
    for metric in registry.SYSTEM_METRICS:
        suffix = metric.name.removeprefix("systems.<system>.")
        for judge in judges if "<judge>" in suffix else [None]:
            filled = registry.fill(suffix, judge=judge) if judge else suffix
            label = registry.fill(metric.label, judge=judge) if judge else metric.label
            columns.append((header(label), filled, metric.style))
    numbers = _numbers(data)
    return [
        c
        for c in columns
        if any(f"systems.{s.system}.{c[1]}" in numbers for s in data.overview.systems)
    ]


def summary(data: ReportData) -> str:
    columns = summary_columns(data)
    numbers = _numbers(data)
    rows = [
        [
            th_row(row.system),
            *(
                metric_cell(numbers, f"systems.{row.system}.{name}", style)
                for _, name, style in columns
            ),
        ]
        for row in data.overview.systems
    ]
    if not rows:
        return section("summary", "Summary", paragraph("No responses in this selection."))
    intro = paragraph(
        "Each cell: mean [95% bootstrap interval]. Judge, panel, people and effective scores "
        "are normalized to 0–1; the effective score is people's rating where there is one, "
        "the panel's otherwise. Win rate counts a tie as half a win; Bradley–Terry ratings "
        "are on the Elo scale (mean 1000)."
    )
    return section(
        "summary",
        "Summary",
        intro + table(["System", *(c[0] for c in columns)], rows, class_="grid wide"),
    )


def histograms(data: ReportData) -> str:
    view = data.overview
    if not view.histograms:
        body = paragraph("No ratings of this rubric on this selection.")
    else:
        body = figure(charts.rating_histograms(view.histograms, scale=view.scale), "fig-histograms")
    return section("histograms", "Rating histograms", body)


def _agreement_table(data: ReportData) -> str:
    numbers = _numbers(data)
    rows = [
        [
            th_row(j.judge),
            td(j.n_pairs, class_="num"),
            td(j.n_responses, class_="num"),
            *(
                metric_cell(numbers, registry.fill(m.name, judge=j.judge), m.style)
                for m in _AGREEMENT
            ),
        ]
        for j in data.calibration.judges
    ]
    headers = ["Judge", "Pairs", "Responses", *(header(m.label) for m in _AGREEMENT)]
    return table(headers, rows, caption="Each judge (and the panel) against people")


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
    return intro + table(headers, rows, caption="Pairwise verdicts against people's majority")


def _calibration_counts(data: ReportData) -> str:
    numbers = _numbers(data)
    facts = [
        ("Human labels", "calibration.human_labels", "count"),
        ("Human pairwise verdicts", "calibration.human_preferences", "count"),
        ("Alpha (ordinal), all raters", "calibration.all_raters.alpha_ordinal", "score"),
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
        parts.append(_agreement_table(data))
        heatmaps = "".join(
            figure(charts.confusion_heatmap(j.confusion, judge=j.judge), f"fig-confusion-{n}")
            for n, j in enumerate(cal.judges)
        )
        parts.append(tag("div", heatmaps, class_="figures"))
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


def _standings_table(data: ReportData) -> str:
    numbers = _numbers(data)
    rows = [
        [
            th_row(s.system),
            td(s.n_battles, class_="num"),
            metric_cell(numbers, f"systems.{s.system}.bradley_terry", "elo"),
            metric_cell(numbers, f"systems.{s.system}.win_rate", "score"),
        ]
        for s in data.overview.pairwise.bradley_terry
    ]
    return table(["System", "Battles", "Bradley–Terry", "Win rate"], rows, caption="Standings")


def _head_to_head_table(data: ReportData) -> str:
    numbers = _numbers(data)
    rows = [
        [
            th_row(h.system_a),
            td(h.system_b),
            metric_cell(numbers, f"pairwise.{h.system_a}.{h.system_b}.win_rate", "score"),
            td(h.win_rate.n, class_="num"),
        ]
        for h in data.overview.pairwise.head_to_head
    ]
    return table(["System", "Opponent", "Win rate", "Verdicts"], rows, caption="Head to head")


def pairwise(data: ReportData) -> str:
    found = data.overview.pairwise
    if not found.head_to_head:
        return section("pairwise", "Pairwise", paragraph("No pairwise verdicts on this selection."))
    parts = [
        tag(
            "div",
            figure(charts.win_rate_matrix(found.head_to_head), "fig-win-rates")
            + figure(charts.bradley_terry_ratings(found.bradley_terry), "fig-bradley-terry"),
            class_="figures two",
        ),
        _standings_table(data),
        _head_to_head_table(data),
    ]
    if found.note:
        parts.append(paragraph(found.note, class_="note"))
    return section("pairwise", "Pairwise win rates and Bradley–Terry ratings", "".join(parts))


def _rating_line(note: RatingNote) -> str:
    rater = f"{note.rater} ({'person' if note.rater_kind == 'human' else 'judge'})"
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
