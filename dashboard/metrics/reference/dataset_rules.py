"""The rule each dataset's EM and F1 follow over several references, named and chosen.

Open QA with a list of gold answers (NQ-open, SQuAD, RAG) takes the maximum over the
references; conversational QA with several human answers the CoQA/TopiOCQA leave-one-out
mean (`qa_rules.REFERENCE_RULES`, `qa_rules.DEFAULT_RULES`). A person may choose either for
a dataset: `judgeboard import --reference-rule`, `judgeboard datasets --reference-rule
DATASET=RULE`, the Data page (`set_reference_rule`). The choice is kept in `reference_rules`,
and choosing rescores the dataset's EM and F1 at once: an explicit write, never a read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dashboard.auth.roles import require_admin
from dashboard.auth.users import User
from dashboard.metrics import qa_rules, registry
from dashboard.metrics.reference import auto_scores as reference, reference_sql as sql
from dashboard.store import Store, transaction
from dashboard.store.connection import Connection

DEFAULT = "default"  # what a person passes to go back to the task's default rule


class RuleError(ValueError):
    """An unknown rule or dataset; the message says which are known."""


@dataclass(frozen=True)
class DatasetRule:
    """The rule a dataset's EM and F1 follow. `rule` is one of `qa_rules.REFERENCE_RULES`, or
    "mixed" when, without a choice, its tasks' defaults differ (`by_task` has each); `chosen`
    says whether a person set it."""

    dataset: str
    rule: str
    chosen: bool
    by_task: tuple[tuple[str, str], ...]

    @property
    def label(self) -> str:
        if self.rule in qa_rules.REFERENCE_RULES:
            return qa_rules.REFERENCE_RULES[self.rule].label
        return "; ".join(f"{qa_rules.REFERENCE_RULES[r].label} ({t})" for t, r in self.by_task)

    @property
    def source(self) -> str:
        rules = sorted({r for _, r in self.by_task})
        return "; ".join(qa_rules.REFERENCE_RULES[r].source for r in rules)

    def note(self) -> dict[str, Any]:
        """The dataset's entry in the JSON's `notes.reference_rules`."""
        return {
            "rule": self.rule,
            "label": self.label,
            "source": self.source,
            "set_by": "user" if self.chosen else "default",
            "by_task": dict(self.by_task),
        }


def _dataset_rule(use: sql.RuleUse) -> DatasetRule:
    by_task = tuple(
        (task, use.chosen or qa_rules.DEFAULT_RULES.get(task, qa_rules.MAX_RULE.name))
        for task in use.tasks
    )
    rules = {rule for _, rule in by_task}
    return DatasetRule(
        use.dataset, rules.pop() if len(rules) == 1 else "mixed", bool(use.chosen), by_task
    )


def rules_of(con: Connection, *, dataset: str | None = None) -> tuple[DatasetRule, ...]:
    """The rule of every dataset (or the one) that has QA items with references."""
    uses = sql.rule_uses(con, dataset=dataset, tasks=sorted(registry.QA_TASKS))
    return tuple(_dataset_rule(use) for use in uses)


def reference_rules(store: Store, dataset: str | None = None) -> tuple[DatasetRule, ...]:
    """The rule of every dataset (or the one) whose EM and F1 have references to combine, as
    the Data page and `judgeboard datasets` show it (a read)."""
    with store.connection() as con:
        return rules_of(con, dataset=dataset)


def notes(rules: Sequence[DatasetRule]) -> dict[str, dict[str, Any]]:
    """`notes.reference_rules` of the metrics JSON: each dataset's rule, named."""
    return {r.dataset: r.note() for r in rules}


def describe(rules: Sequence[DatasetRule]) -> str:
    """One sentence naming each dataset's rule and its source, for the Overview and the
    report's methods."""
    parts = [f"{r.dataset}: {r.label} ({r.source}{', chosen' if r.chosen else ''})" for r in rules]
    return "EM and F1 over several references: " + "; ".join(parts) + "."


def check_rule(rule: str) -> str | None:
    """The rule to store for what a person asked (None: the default); RuleError if unknown."""
    if rule == DEFAULT:
        return None
    if rule not in qa_rules.REFERENCE_RULES:
        known = ", ".join([*qa_rules.REFERENCE_RULES, DEFAULT])
        raise RuleError(f"unknown reference rule {rule!r} (known: {known})")
    return rule


def record_rule(con: Connection, dataset: str, rule: str) -> int:
    """Record a dataset's rule (`check_rule` names) and drop its EM and F1 that the change
    makes stale, for scoring to compute again; return how many responses need it. The
    caller holds the transaction (an import records the rule with its data)."""
    stored = check_rule(rule)
    stale = sql.delete_rescored(
        con,
        dataset,
        rule=stored,
        metrics=reference.QA_METRICS,
        tasks=sorted(registry.QA_TASKS),
        defaults=qa_rules.DEFAULT_RULES,
    )
    sql.add_rule(con, dataset, stored)
    return stale


def set_reference_rule(store: Store, dataset: str, rule: str, *, actor: User | None = None) -> int:
    """Make `rule` ("max", "leave-one-out", or "default") the dataset's and rescore its EM and
    F1 where the change alters them; return how many responses were rescored. An admin's
    (`actor`): everyone's EM and F1 change."""
    require_admin(actor, "change a dataset's reference rule")
    check_rule(rule)
    known = store.dataset_names()
    if dataset not in known:
        raise RuleError(f"no dataset named {dataset!r} (datasets: {', '.join(known) or 'none'})")
    with store.write_lock, store.connection() as con, transaction(con):
        record_rule(con, dataset, rule)
    return reference.refresh_auto_scores(store, dataset=dataset)
