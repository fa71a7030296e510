"""The report's pairwise section and its sections per slice, each a function of `ReportData`
returning safe HTML; every number is a cell of the metrics JSON, named as it names it.

The standings are per group of raters (the judges, people, each judge, and everyone pooled
when asked for); the charts are drawn for the rater kinds, a table for every group.
"""

from __future__ import annotations

from dashboard import charts
from dashboard.metrics import registry
from dashboard.metrics.output import SliceNumbers
from dashboard.metrics.overview import JUDGE_PREFIX, Standings
from dashboard.report.gather import ReportData
from dashboard.report.html import (
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
from dashboard.report.sections import Scope, agreement_table, header, summary_table, whole


def _standings_table(scope: Scope, group: Standings) -> str:
    def name(statistic: str, system: str) -> str:
        metrics = registry.SYSTEM_METRICS
        return scope.name(registry.rater_name(metrics, statistic, group.raters, system=system))

    rows = [
        [
            th_row(s.system),
            td(s.n_battles, class_="num"),
            metric_cell(scope.numbers, name("bradley_terry", s.system), "elo"),
            metric_cell(scope.numbers, name("win_rate", s.system), "score"),
        ]
        for s in group.bradley_terry
    ]
    return table(
        ["System", "Battles", "Bradley–Terry", "Win rate"],
        rows,
        caption=f"Standings from the verdicts of {group.label}",
    )


def _is_kind(group: Standings) -> bool:
    return not group.raters.startswith(JUDGE_PREFIX)


def _head_to_head_table(scope: Scope) -> str:
    groups = [g for g in scope.overview.pairwise.groups if _is_kind(g)]
    pairs = sorted({(h.system_a, h.system_b) for g in groups for h in g.head_to_head})
    verdicts = {
        (g.raters, h.system_a, h.system_b): h.win_rate.n for g in groups for h in g.head_to_head
    }
    rows = [
        [
            th_row(a),
            td(b),
            *(
                cell
                for g in groups
                for cell in (
                    metric_cell(
                        scope.numbers,
                        scope.name(
                            registry.rater_name(
                                registry.HEAD_TO_HEAD_METRICS,
                                "win_rate",
                                g.raters,
                                system=a,
                                opponent=b,
                            )
                        ),
                        "score",
                    ),
                    td(verdicts.get((g.raters, a, b), 0), class_="num"),
                )
            ),
        ]
        for a, b in pairs
    ]
    headers = [
        "System",
        "Opponent",
        *(h for g in groups for h in (f"Win rate ({g.raters})", f"Verdicts ({g.raters})")),
    ]
    return table(headers, rows, caption="Head to head")


def _notes(group: Standings) -> list[str]:
    notes = [f"{header(group.label)}: {group.note}"] if group.note else []
    return notes + [d.text for d in group.disagreements]


def _standings_parts(scope: Scope, *, figures: str | None) -> list[str]:
    """Each group's standings (with its figures when `figures` names them), the head to
    head of the rater kinds, and the notes."""
    parts = []
    for n, group in enumerate(scope.overview.pairwise.groups):
        if figures is not None and _is_kind(group):
            parts.append(
                tag(
                    "div",
                    figure(
                        charts.win_rate_matrix(group.head_to_head, raters=group.label),
                        f"{figures}-win-rates-{n}",
                    )
                    + figure(
                        charts.bradley_terry_ratings(group.bradley_terry, raters=group.label),
                        f"{figures}-bradley-terry-{n}",
                    ),
                    class_="figures two",
                )
            )
        parts.append(_standings_table(scope, group))
    parts.append(_head_to_head_table(scope))
    parts.extend(
        paragraph(note, class_="note") for g in scope.overview.pairwise.groups for note in _notes(g)
    )
    return parts


def pairwise(data: ReportData) -> str:
    if not data.overview.pairwise.groups:
        return section("pairwise", "Pairwise", paragraph("No pairwise verdicts on this selection."))
    intro = paragraph(
        "Per group of raters: the judges, people, and each judge alone (and everyone pooled "
        "when the report was asked to pool them). A win rate is each evaluator's share of "
        "wins (a tie counts half), averaged over the group's evaluators; Bradley–Terry is "
        "fitted to the group's battles."
    )
    body = intro + "".join(_standings_parts(whole(data), figures="fig"))
    return section("pairwise", "Pairwise win rates and Bradley–Terry ratings", body)


SLICES_ANCHOR = "slices"


def _slice_part(data: ReportData, piece: SliceNumbers) -> str:
    scope = Scope(piece.overview, piece.calibration, whole(data).numbers, piece.prefix)
    title = f"{piece.slice.field} = {piece.slice.text} ({piece.n_items} items)"
    parts = [tag("h3", esc(title))]
    if scope.overview.systems:
        parts.append(summary_table(scope))
    if scope.overview.pairwise.groups:
        parts.extend(_standings_parts(scope, figures=None))
    if scope.calibration.judges:
        parts.append(agreement_table(scope))
    return tag("div", "".join(parts), class_="slice")


def slices(data: ReportData) -> str:
    """A part per slice of the items (`judgeboard report --by FIELD`): its summary, its
    standings and its calibration, named in the metrics JSON under the slice's prefix."""
    if not data.slices:
        return ""
    field = data.slices[0].slice.field
    intro = paragraph(
        f"The numbers again for each value of the item field {field!r}; each cell's name in "
        f"the metrics JSON starts with by.{field}=VALUE."
    )
    body = intro + "".join(_slice_part(data, piece) for piece in data.slices)
    return section(SLICES_ANCHOR, f"By {field}", body)
