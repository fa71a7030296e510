"""The report's Judge bias section: each judge's bias measures, read from the metrics JSON by
their `bias.<judge>.` names, with the warnings of `notes.bias`."""

from __future__ import annotations

from dashboard.metrics import registry
from dashboard.report.gather import ReportData
from dashboard.report.html import metric_cell, paragraph, section, table, th_row

ANCHOR = "bias"


def _judges(numbers: dict) -> list[str]:
    """The judges with a bias measure, from the names (a judge's name may hold dots)."""
    found = set()
    for name in numbers:
        for metric in registry.BIAS_METRICS:
            tail = "." + metric.key
            if name.startswith("bias.") and name.endswith(tail):
                found.add(name[len("bias.") : -len(tail)])
    return sorted(found)


def bias(data: ReportData) -> str:
    numbers = data.metrics["metrics"]
    judges = _judges(numbers)
    if not judges:
        body = paragraph("No judge has rated or compared answers in this selection.")
        return section(ANCHOR, "Judge bias", body)
    rows = [
        [
            th_row(judge),
            *(
                metric_cell(numbers, registry.fill(m.name, judge=judge), m.style)
                for m in registry.BIAS_METRICS
            ),
        ]
        for judge in judges
    ]
    headers = ["Judge", *(m.label[:1].upper() + m.label[1:] for m in registry.BIAS_METRICS)]
    notes = data.metrics.get("notes", {}).get("bias", {})
    body = table(headers, rows, caption="Each judge's bias: estimate [95% interval]") + "".join(
        paragraph(f"{name}: {text}", class_="note") for name, text in sorted(notes.items())
    )
    return section(ANCHOR, "Judge bias", body)
