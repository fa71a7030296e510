"""The report's Judge bias section: each judge's bias measures, read from the metrics JSON by
their `bias.<judge>.` names, with the warnings of `notes.bias`."""

from __future__ import annotations

from typing import Any

from dashboard.metrics import registry
from dashboard.report.gather import ReportData
from dashboard.report.html import esc, metric_cell, paragraph, section, table, tag, th_row

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


CARDS_ANCHOR = "judge-cards"


def _model(card: dict[str, Any]) -> str:
    """The model a card is bound to, with the version the provider reported (if any)."""
    version = card.get("model_version")
    return f"{card['model']} ({version})" if version and version != card["model"] else card["model"]


def cards(data: ReportData) -> str:
    """The judge cards (`judge_cards.<judge>.<rubric>.` names, `notes.judge_cards`): each
    adopted version's agreement with people on the test split, what it is bound to, and
    whether it is stale. Nothing when no version was adopted."""
    notes = data.metrics.get("notes", {}).get("judge_cards", {})
    if not notes:
        return ""
    numbers = data.metrics["metrics"]
    rows = []
    for _, card in sorted(notes.items()):
        judge, rubric = card["judge"], card["rubric"]
        state = "stale: " + "; ".join(card["stale"]) if card["stale"] else "fresh"
        rows.append(
            [
                th_row(f"{judge} · {rubric} {card['rubric_version']}"),
                *(
                    metric_cell(numbers, registry.fill(m.name, judge=judge, rubric=rubric), m.style)
                    for m in registry.JUDGE_CARD_METRICS
                    if m.key != "fresh"
                ),
                tag("td", esc(f"{_model(card)} · prompt {card['prompt_hash']} · {state}")),
            ]
        )
    headers = [
        "Judge · rubric version",
        *(m.label for m in registry.JUDGE_CARD_METRICS if m.key != "fresh"),
        "Bound to",
    ]
    body = table(
        headers, rows, caption="The adopted version on the test split: estimate [95% interval]"
    )
    return section(CARDS_ANCHOR, "Judge cards", body)
