"""The report's Tags section: each campaign tag's share per system, with its 95% interval and
n, read from the metrics JSON (`tags.<campaign>.<tag>.<system>.share`)."""

from __future__ import annotations

from dashboard.metrics import registry
from dashboard.report.gather import ReportData
from dashboard.report.html import metric_cell, paragraph, section, table, td, th_row

ANCHOR = "tags"


def tags(data: ReportData) -> str:
    """The section; empty when no person has tagged an answer of the selection."""
    listed = data.metrics.get("tags") or []
    if not listed:
        return ""
    (metric,) = registry.TAG_METRICS
    numbers = data.metrics["metrics"]
    rows = []
    for t in listed:
        for system in t["systems"]:
            name = registry.fill(metric.name, campaign=t["campaign"], tag=t["tag"], system=system)
            rows.append(
                [
                    th_row(t["campaign"]),
                    td(t["tag"]),
                    td(system),
                    metric_cell(numbers, name, metric.style),
                    td(numbers[name]["n"], class_="num"),
                ]
            )
    body = paragraph(
        "Each campaign tag's share of people's tag labels of the system's answers (a person "
        "saving an answer in a campaign labels each of its tags, ticked or not): share "
        "[95% percentile bootstrap interval], n = tag labels."
    ) + table(["Campaign", "Tag", "System", "Share [95%]", "n"], rows, caption="Tags")
    return section(ANCHOR, "Tags", body)
