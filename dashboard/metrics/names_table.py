"""The names table of docs/metrics.md, printed from the registry's declarations by
`python -m dashboard.metrics.registry` (kept here so that the registry holds declarations)."""

from __future__ import annotations

from collections.abc import Iterable

from dashboard.metrics.registry import ALL_METRICS, Metric


def docs_table(metrics: Iterable[Metric] = ALL_METRICS) -> str:
    """The names table of docs/metrics.md, as Markdown."""
    lines = ["| name | what it is | better |", "|---|---|---|"]
    for m in metrics:
        better = m.better or "—"
        lines.append(f"| `{m.name}` | {m.description} | {better} |")
    return "\n".join(lines) + "\n"
