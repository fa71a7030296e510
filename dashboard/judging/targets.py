"""What a judge call is about (a response, or a pair shown in one order) and its prompt values."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dashboard.judging.targets_sql import PairTargetRow, RatingTargetRow, TargetItem

SWAPPED = {"A": "B", "B": "A", "tie": "tie", None: None}


@dataclass(frozen=True)
class Target:
    """A rating of `response_id`, or a preference between `response_a` and `response_b` with
    `shown_first` saying which of them the prompt presents as "Assistant A"."""

    kind: str  # "rating" or "preference"
    item_id: str
    response_id: str | None = None
    response_a: str | None = None
    response_b: str | None = None
    shown_first: str | None = None

    @property
    def pair(self) -> tuple[str, str, str]:
        return (self.item_id, self.response_a or "", self.response_b or "")


def format_history(history: Any) -> str:
    """Earlier turns as "User: …" / "Assistant: …" lines; strings alternate user/assistant."""
    if isinstance(history, str):
        history = json.loads(history) if history.strip() else []
    lines = []
    for index, turn in enumerate(history or []):
        if isinstance(turn, Mapping):
            role = str(turn.get("role", "user")).capitalize()
            content = str(turn.get("content", ""))
        else:
            role, content = ("User" if index % 2 == 0 else "Assistant"), str(turn)
        lines.append(f"{role}: {content}")
    return "\n".join(lines)


def reference_list(references: Sequence[str] | None) -> tuple[str, ...]:
    """The reference answers a prompt shows: the non-blank ones."""
    return tuple(r for r in references or [] if r and r.strip())


def format_references(references: Sequence[str] | None) -> str:
    """One reference as itself; several as a "- " list."""
    refs = reference_list(references)
    if len(refs) <= 1:
        return refs[0] if refs else ""
    return "\n".join(f"- {r}" for r in refs)


def format_contexts(contexts: Sequence[str] | None) -> str:
    passages = [c for c in contexts or [] if c and c.strip()]
    if len(passages) <= 1:
        return passages[0] if passages else ""
    return "\n\n".join(f"[{i}] {c}" for i, c in enumerate(passages, start=1))


def _item_values(row: TargetItem) -> dict[str, str]:
    return {
        "question": row.question or "",
        "reference_answer": format_references(row.reference_answers),
        "reference_context": row.reference_context or "",
        "history": format_history(row.history),
    }


def rating_target(row: RatingTargetRow) -> tuple[Target, dict[str, str]]:
    """A response row of `select_rating_targets` as a target and its template values."""
    values = {
        **_item_values(row),
        "answer": row.answer or "",
        "retrieved_context": format_contexts(row.contexts),
    }
    return Target("rating", row.item_id, response_id=row.response_id), values


def pair_targets(row: PairTargetRow) -> list[tuple[Target, dict[str, str]]]:
    """A pair row of `select_pair_targets`, in both presentation orders."""
    base = _item_values(row)
    out = []
    for shown_first in ("A", "B"):
        first, second = (
            (row.a_answer, row.b_answer) if shown_first == "A" else (row.b_answer, row.a_answer)
        )
        values = {**base, "answer_a": first or "", "answer_b": second or ""}
        out.append(
            (
                Target(
                    "preference",
                    row.item_id,
                    response_a=row.a_response_id,
                    response_b=row.b_response_id,
                    shown_first=shown_first,
                ),
                values,
            )
        )
    return out
