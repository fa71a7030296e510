"""The rules by which EM and F1 combine a response's scores against several references.

Declared once here; `registry` scores by them, `reference_rules` stores a dataset's choice,
and the JSON, the Overview, the report and docs/metrics.md name them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from scoring import qa

Combine = Callable[[str, Sequence[str], Callable[[str, str], float]], float]


@dataclass(frozen=True)
class ReferenceRule:
    """How EM and F1 combine a response's scores against several references (one reference:
    its score, under either rule). `source` names the evaluation that defines it."""

    name: str
    label: str
    source: str
    description: str


MAX_RULE = ReferenceRule(
    "max",
    "maximum over the references",
    "SQuAD v1.1 and NQ-open official evaluation",
    "the best score against any one reference (SQuAD's metric_max_over_ground_truths)",
)
LEAVE_ONE_OUT_RULE = ReferenceRule(
    "leave-one-out",
    "leave-one-out mean",
    "CoQA and TopiOCQA official evaluation",
    "the mean over the n sets of n-1 references of the best score in each set, as those "
    "datasets score people against the other people's answers",
)
REFERENCE_RULES: dict[str, ReferenceRule] = {r.name: r for r in (MAX_RULE, LEAVE_ONE_OUT_RULE)}
# The field's rule for each task, used unless a dataset's rule was chosen: open QA with a list
# of gold answers (NQ-open, SQuAD, RAG) takes the max; conversational QA with several human
# answers the leave-one-out mean.
DEFAULT_RULES: dict[str, str] = {
    "open_qa": MAX_RULE.name,
    "open_qa_context": MAX_RULE.name,
    "conversational_qa": LEAVE_ONE_OUT_RULE.name,
}


class Scored(Protocol):
    """What EM and F1 read of a response (`registry.Case`)."""

    @property
    def task_type(self) -> str: ...
    @property
    def answer(self) -> str: ...
    @property
    def references(self) -> tuple[str, ...]: ...
    @property
    def rule(self) -> str | None: ...


def combiner(task_type: str, chosen: str | None) -> Combine:
    """How a response's scores against several references combine: by the dataset's `chosen`
    rule, else by its task's default (`scoring.qa`'s max or leave-one-out mean)."""
    rule = chosen or DEFAULT_RULES.get(task_type, MAX_RULE.name)
    return qa.multi_reference if rule == LEAVE_ONE_OUT_RULE.name else qa.max_over_references


def em(case: Scored) -> float:
    """Exact match over the response's references, by its rule."""
    return combiner(case.task_type, case.rule)(case.answer, case.references, qa.exact_match)


def f1(case: Scored) -> float:
    """Token F1 over the response's references, by its rule."""
    return combiner(case.task_type, case.rule)(case.answer, case.references, qa.token_f1)
