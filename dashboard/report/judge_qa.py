"""The report's judge sections: each judge's bias measures, read from the metrics JSON by
their `bias.<judge>.` names, with the warnings of `notes.bias`; the judge cards; and each
judge's self-consistency from repeated judging (`judges.<judge>.self_consistency.`)."""

from __future__ import annotations

from typing import Any

from dashboard.metrics import registry
from dashboard.metrics.judge_qa import EPOCHS_COMMAND, consistency_convention
from dashboard.report.gather import ReportData
from dashboard.report.html import (
    EMPTY,
    esc,
    metric_cell,
    paragraph,
    section,
    table,
    tag,
    td,
    th_row,
)

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


CONSISTENCY_ANCHOR = "self-consistency"
CONSISTENCY_TITLE = "Self-consistency (repeated judging)"


def consistency(data: ReportData) -> str:
    """Each judge run with `judge --epochs N`: its self-consistency numbers as the metrics
    JSON holds them (`judges.<judge>.self_consistency.*`, the Judge QA page's numbers), with
    the epochs, the answers they are over (n) and how to read them; without a repeated run,
    the command that makes one."""
    if not data.consistencies:
        body = paragraph(
            "No judge has been asked more than once per answer in this selection, so there is "
            f"no self-consistency to show. Run one with epochs: {EPOCHS_COMMAND} (with your "
            "panel, rubric and dataset), or Epochs and Temperature on the Run judges page."
        )
        return section(CONSISTENCY_ANCHOR, CONSISTENCY_TITLE, body)
    numbers = data.metrics["metrics"]
    rows = [
        [
            th_row(found.judge),
            td(found.rubric_version or EMPTY),
            td(found.consistency.n_epochs, class_="num"),
            *(
                metric_cell(numbers, registry.fill(m.name, judge=found.judge), m.style)
                for m in registry.SELF_CONSISTENCY_METRICS
            ),
            td(found.consistency.n_answers, class_="num"),
        ]
        for found in data.consistencies
    ]
    headers = [
        "Judge",
        "Rubric version",
        "Epochs",
        *(m.label[:1].upper() + m.label[1:] for m in registry.SELF_CONSISTENCY_METRICS),
        "n (answers)",
    ]
    caption = "Each judge asked N times per answer: estimate [95% interval]"
    body = paragraph(consistency_convention(), class_="note") + table(
        headers, rows, caption=caption
    )
    return section(CONSISTENCY_ANCHOR, CONSISTENCY_TITLE, body)
