"""The report's judge-corrected section: judge-only, human-only and corrected estimates side
by side, the labels still needed, and the paired comparisons with Holm's correction. Every
number is read from the metrics JSON by its flat name (`metrics/corrected/systems.py`,
`metrics/corrected/compare.py`)."""

from __future__ import annotations

from dashboard.metrics import registry
from dashboard.metrics.panels import panel_text
from dashboard.report.gather import ReportData
from dashboard.report.html import metric_cell, paragraph, section, table, td, th_row

_THREE = ("judge_only", "human_only", "corrected")
_HEADERS = ("Judge-only", "Human-only", "Corrected")


def _system_table(data: ReportData, numbers: dict) -> str:
    rows = []
    for system in data.metrics["systems"]:
        base = registry.fill("systems.<system>", system=system)
        needed = numbers.get(f"{base}.labels_needed", {})
        rows.append(
            [
                th_row(system),
                *(metric_cell(numbers, f"{base}.{k}", registry.SCORE) for k in _THREE),
                *(metric_cell(numbers, f"{base}.pass_rate.{k}", registry.SCORE) for k in _THREE),
                metric_cell(numbers, f"{base}.pass_rate.rogan_gladen", registry.SCORE),
                td(needed.get("n") if needed else 0),
                metric_cell(numbers, f"{base}.labels_needed", registry.COUNT),
            ]
        )
    headers = [
        "System",
        *(f"Score: {h}" for h in _HEADERS),
        *(f"Pass rate: {h}" for h in _HEADERS),
        "Pass rate: Rogan–Gladen",
        "Valid labels",
        "Labels needed",
    ]
    return table(headers, rows, class_="grid wide")


def _compare_table(numbers: dict, survive: list[str] | None) -> str:
    rows = []
    for name in sorted(n for n in numbers if n.startswith("compare.")):
        entry = numbers[name]
        holm = "—" if survive is None else ("yes" if name in survive else "no")
        rows.append(
            [
                th_row(name),
                metric_cell(numbers, name, registry.SIGNED),
                td(f"{entry['p_value']:.3g}" if entry.get("p_value") is not None else "—"),
                td(f"{entry['p_holm']:.3g}" if entry.get("p_holm") is not None else "—"),
                td(holm),
            ]
        )
    headers = ["Difference (b − a)", "Mean [95% interval]", "p", "p (Holm)", "Survives Holm"]
    return table(headers, rows, class_="grid wide")


def corrected(data: ReportData) -> str:
    numbers = data.metrics["metrics"]
    notes = data.metrics["notes"]
    compare = notes.get("compare") or {}
    intro = paragraph(
        f"Panel: {panel_text(data.selection)}. Each score is shown three ways: the panel's "
        "mean alone (judge-only), the mean of the valid human labels alone (human-only: "
        "random labels weighted by their inverse inclusion probability, and census labels; "
        "targeted and unknown labels never count), and judge-corrected by PPI++ (the panel "
        "on every response plus the valid labels). Normal 95% intervals. A response passes "
        "with a normalized score of at least 0.5. Labels needed: more random labels that "
        f"bring the corrected half-width to {data.metrics['corrected']['target_half_width']:g}. "
        "Pass rate Rogan–Gladen: the panel's pass rate p corrected by its true positive and "
        "true negative rates against the valid labels, (p + TNR − 1) / (TPR + TNR − 1) "
        "clipped to [0, 1], with a 95% bootstrap interval over the labelled and the "
        "unlabelled responses apart. The effective score of the summary is descriptive, not "
        "an estimate."
    )
    body = intro + "".join(paragraph(n, class_="note") for n in notes.get("corrected", []))
    body += _system_table(data, numbers)
    body += paragraph(
        "Paired comparisons: system b's mean minus system a's on the items both answered, "
        "for the panel, people (valid labels) and corrected, with a paired bootstrap 95% "
        f"interval resampling {compare.get('cluster', 'items')} and a bootstrap p-value"
        + (
            "; with more than two systems, Holm's correction over the pairs of each kind "
            f"(level {compare.get('alpha', 0.05):g})."
            if compare.get("holm")
            else "."
        )
    )
    body += _compare_table(numbers, compare.get("survive_holm"))
    return section("corrected", "Judge-corrected estimates and paired comparisons", body)
