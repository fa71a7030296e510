"""The offline baseline judge: a deterministic HEURISTIC, not a model.

It reads the rendered prompt's sections (the reference answer, the reference or retrieved
context, the answer or the two answers) and scores an answer by
- its token-overlap F1 with the reference answer (`scoring.qa.token_f1`, best reference), and
- its support in the context: the share of the answer's content words found in the context,
blended as 0.8 × F1 + 0.2 × support when both are present (F1 alone, or support alone, when
only one is). The score in [0, 1] is mapped linearly onto the rubric's scale and rounded half
up. In a pairwise prompt the answer with the higher score wins; within 0.05 it is a tie.

It answers in the format the real judges are asked for ("Explanation: …" then
"Rating: [[N]]" or "[[A]]"), so the same parser reads it. With neither a reference answer nor
a context it gives no rating, and the output stays unscored. It runs as a LiteLLM custom
provider (`judgeboard/baseline`, registered in `llm.py`), through the same code path as a real
judge, so that the whole loop runs without a key. Use it as a floor to compare judges with,
never as a judge of quality: it rewards word overlap, not correctness.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scoring.qa import normalize_answer, token_f1

TIE_MARGIN = 0.05
F1_WEIGHT = 0.8
_SECTION = re.compile(
    r"\[The Start of (?:the )?(?P<name>[^\]\n]+?)\]\n(?P<body>.*?)\n?\[The End of (?:the )?(?P=name)\]",
    re.DOTALL)
_REFERENCE_ITEM = re.compile(r"^- ", re.MULTILINE)
# Function words carry no evidence of support; the list is short on purpose.
_STOPWORDS = frozenset(
    "is are was were be been of in on at to for with by and or but it its this that as from "
    "which who what when where how i you he she they we not no".split())


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


def sections(prompt: str) -> dict[str, str]:
    """The prompt's `[The Start of X] … [The End of X]` blocks; the last one of a name wins,
    because few-shot examples come before the case to judge."""
    found: dict[str, str] = {}
    for match in _SECTION.finditer(prompt):
        found[match.group("name").strip().lower()] = match.group("body").strip()
    return found


def _references(text: str | None) -> list[str]:
    if not text or text == "(none given)":
        return []
    if _REFERENCE_ITEM.match(text):  # several references render as a "- " list
        return [line[2:].strip() for line in text.splitlines() if line.startswith("- ")]
    return [text]


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


def _context(found: Mapping[str, str]) -> str | None:
    parts = [found.get(k) for k in ("reference context", "retrieved context")]
    text = "\n".join(p for p in parts if p and p != "(none given)")
    return text or None


def rate(prompt: str, *, low: float, high: float) -> str:
    """The baseline's reply to a rating prompt on the scale [low, high]."""
    found = sections(prompt)
    answer = found.get("assistant's answer")
    if answer is None:
        return "Explanation: heuristic baseline; the prompt has no assistant's answer section."
    result = evidence(answer, _references(found.get("reference answer")), _context(found))
    score = result.score
    if score is None:
        return ("Explanation: heuristic baseline; there is neither a reference answer nor a "
                "context to compare the answer with, so it gives no rating.")
    value = low + math.floor(score * (high - low) + 0.5)  # half up, not Python's half-even
    return (f"Explanation: heuristic baseline (word overlap, not a model): "
            f"{result.describe()}; score {score:.2f} of 1.\nRating: [[{value:g}]]")


def prefer(prompt: str) -> str:
    """The baseline's reply to a pairwise prompt: [[A]], [[B]] or [[C]] (tie)."""
    found = sections(prompt)
    first, second = found.get("assistant a's answer"), found.get("assistant b's answer")
    if first is None or second is None:
        return "Explanation: heuristic baseline; the prompt does not hold two answers."
    references = _references(found.get("reference answer"))
    context = _context(found)
    a, b = evidence(first, references, context), evidence(second, references, context)
    if a.score is None or b.score is None:
        return ("Explanation: heuristic baseline; there is neither a reference answer nor a "
                "context to compare the answers with, so it gives no verdict.")
    verdict = "C" if abs(a.score - b.score) <= TIE_MARGIN else "A" if a.score > b.score else "B"
    return (f"Explanation: heuristic baseline (word overlap, not a model): answer A scores "
            f"{a.score:.2f} ({a.describe()}), answer B scores {b.score:.2f} ({b.describe()}).\n"
            f"Verdict: [[{verdict}]]")


def reply(prompt: str, *, kind: str, low: float | None, high: float | None) -> str:
    """The baseline's reply for a rubric of `kind` ("rating" or "pairwise")."""
    if kind == "pairwise":
        return prefer(prompt)
    if low is None or high is None:
        raise ValueError("a rating rubric needs its scale")
    return rate(prompt, low=low, high=high)
