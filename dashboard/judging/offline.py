"""The offline baseline judge: a deterministic HEURISTIC, not a model.

It scores an answer by
- its token-overlap F1 with the reference answer (`scoring.qa.token_f1`, best reference), and
- its support in the context: the share of the answer's content words found in the context,
blended as 0.8 × F1 + 0.2 × support when both are present (F1 alone, or support alone, when
only one is). The score in [0, 1] is mapped linearly onto the rubric's scale and rounded half
up. In a pairwise prompt the answer with the higher score wins; within 0.05 it is a tie.

It reads what it compares from a `Case`, passed as structured data in the call's LiteLLM
`metadata`, never from the prompt's text: an answer that writes "[The End of the Assistant's
Answer] [The Start of the Reference Answer] …" is just words of the answer. The case holds
only what the rubric's prompt shows (`case_for`), so the baseline sees what a model would see
and its output stays a function of the prompt, which is what the cache key hashes.

It answers in the format the real judges are asked for ("Explanation: …" then
"Rating: [[N]]" or "[[A]]"), so the same parser reads it. With neither a reference answer nor
a context it gives no rating, and the output stays unscored. It runs as a LiteLLM custom
provider (`judgeboard/baseline`, registered in `llm.py`), through the same code path as a real
judge, so that the whole loop runs without a key. Use it as a floor to compare judges with,
never as a judge of quality: it rewards word overlap, not correctness.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dashboard.judging.rubrics import Rubric
from scoring.qa import normalize_answer, token_f1

TIE_MARGIN = 0.05
F1_WEIGHT = 0.8
CONTEXT_VARIABLES = ("reference_context", "retrieved_context")
# Function words carry no evidence of support; the list is short on purpose.
_STOPWORDS = frozenset(
    "is are was were be been of in on at to for with by and or but it its this that as from "
    "which who what when where how i you he she they we not no".split()
)


@dataclass(frozen=True)
class Case:
    """What the baseline compares: the answer (two answers, in the order shown, for a pair),
    the reference answers, and the context, each only as far as the prompt shows it."""

    answers: tuple[str, ...]
    references: tuple[str, ...] = ()
    context: str | None = None

    def as_metadata(self) -> dict[str, Any]:
        return {
            "answers": list(self.answers),
            "references": list(self.references),
            "context": self.context,
        }

    @classmethod
    def from_metadata(cls, data: Mapping[str, Any]) -> Case:
        return cls(
            tuple(str(a) for a in data.get("answers") or ()),
            tuple(str(r) for r in data.get("references") or ()),
            str(data["context"]) if data.get("context") else None,
        )


def case_for(rubric: Rubric, values: Mapping[str, str], references: Sequence[str]) -> Case:
    """The case of one target: `values` are its template values, `references` its reference
    answers (the list that `values["reference_answer"]` shows)."""
    shown = rubric.shown(values)
    names = ("answer_a", "answer_b") if rubric.is_pairwise else ("answer",)
    context = "\n".join(values[n] for n in CONTEXT_VARIABLES if n in shown)
    return Case(
        tuple(values.get(n, "") for n in names),
        tuple(references) if "reference_answer" in shown else (),
        context or None,
    )


@dataclass(frozen=True)
class Evidence:
    """How one answer compares with the reference and the context; None = not available."""

    f1: float | None
    support: float | None

    @property
    def score(self) -> float | None:
        if self.f1 is not None and self.support is not None:
            return F1_WEIGHT * self.f1 + (1 - F1_WEIGHT) * self.support
        return self.f1 if self.f1 is not None else self.support

    def describe(self) -> str:
        parts = []
        if self.f1 is not None:
            parts.append(f"token F1 with the reference answer {self.f1:.2f}")
        if self.support is not None:
            parts.append(f"{self.support:.0%} of its content words appear in the context")
        return "; ".join(parts) or "nothing to compare with"


def _content_words(text: str) -> list[str]:
    return [w for w in normalize_answer(text).split() if w not in _STOPWORDS]


def evidence(answer: str, references: Sequence[str], context: str | None) -> Evidence:
    f1 = max((token_f1(answer, ref) for ref in references), default=None)
    support = None
    if context:
        words = _content_words(answer)
        known = set(_content_words(context))
        support = sum(w in known for w in words) / len(words) if words else 0.0
    return Evidence(f1, support)


def rate(case: Case, *, low: float, high: float) -> str:
    """The baseline's reply to a rating prompt on the scale [low, high]."""
    if len(case.answers) != 1:
        return "Explanation: heuristic baseline; the case has no single answer to rate."
    result = evidence(case.answers[0], case.references, case.context)
    score = result.score
    if score is None:
        return (
            "Explanation: heuristic baseline; there is neither a reference answer nor a "
            "context to compare the answer with, so it gives no rating."
        )
    value = low + math.floor(score * (high - low) + 0.5)  # half up, not Python's half-even
    return (
        f"Explanation: heuristic baseline (word overlap, not a model): "
        f"{result.describe()}; score {score:.2f} of 1.\nRating: [[{value:g}]]"
    )


def prefer(case: Case) -> str:
    """The baseline's reply to a pairwise prompt: [[A]], [[B]] or [[C]] (tie)."""
    if len(case.answers) != 2:
        return "Explanation: heuristic baseline; the case does not hold two answers."
    first, second = case.answers
    a = evidence(first, case.references, case.context)
    b = evidence(second, case.references, case.context)
    if a.score is None or b.score is None:
        return (
            "Explanation: heuristic baseline; there is neither a reference answer nor a "
            "context to compare the answers with, so it gives no verdict."
        )
    verdict = "C" if abs(a.score - b.score) <= TIE_MARGIN else "A" if a.score > b.score else "B"
    return (
        f"Explanation: heuristic baseline (word overlap, not a model): answer A scores "
        f"{a.score:.2f} ({a.describe()}), answer B scores {b.score:.2f} ({b.describe()}).\n"
        f"Verdict: [[{verdict}]]"
    )


def reply(case: Case | None, *, kind: str, low: float | None, high: float | None) -> str:
    """The baseline's reply for a rubric of `kind` ("rating" or "pairwise"). Without a case
    (a call that did not come from the runner) it gives no rating rather than guess."""
    if case is None:
        return (
            "Explanation: heuristic baseline; the call carries no case (metadata "
            "judgeboard.case), so there is nothing to compare and it gives no rating."
        )
    if kind == "pairwise":
        return prefer(case)
    if low is None or high is None:
        raise ValueError("a rating rubric needs its scale")
    return rate(case, low=low, high=high)
