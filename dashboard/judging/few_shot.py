"""Few-shot rubric versions from people's labels (docs/judge-qa.md, "Few-shot").

`judgeboard judge --few-shot N --few-shot-seed S` (and the Run judges page) draws N of the
people's labels of the rubric, on the run's dataset and systems, with a seeded shuffle: those
N are the training split, put into every prompt as examples (the answer and the person's
rating); every other labelled response is held out. The rubric version becomes
"<version>+fewshot-N-seedS-<digest of the labels drawn>", so each draw is a version of its own,
beside the plain one on the Judge QA page; the labels drawn are recorded in
`few_shot_examples` before the first call, and the version's agreement with people (Judge QA,
Calibration) leaves those responses out.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence

import numpy as np

from dashboard.auth.roles import require_admin
from dashboard.auth.users import User
from dashboard.ids import utc_now
from dashboard.judging import few_shot_sql as sql
from dashboard.judging.plan import PlanError
from dashboard.judging.rubrics import FewShotExample, Rubric
from dashboard.store import Store, transaction

MAX_EXAMPLES = 20


def draw(labels: Sequence[FewShotExample], *, n: int, seed: int) -> tuple[FewShotExample, ...]:
    """The training split: n labels of a seeded shuffle of `labels` (taken in their order)."""
    order = np.random.default_rng(seed).permutation(len(labels))
    return tuple(labels[int(i)] for i in order[:n])


def version_of(rubric: Rubric, examples: Sequence[FewShotExample], *, seed: int) -> str:
    digest = hashlib.sha256("\x1f".join(e.rating_id for e in examples).encode()).hexdigest()
    return f"{rubric.version}+fewshot-{len(examples)}-seed{seed}-{digest[:8]}"


def few_shot_rubric(
    store: Store,
    rubric: Rubric,
    *,
    n: int,
    seed: int = 0,
    dataset: str | None = None,
    systems: Sequence[str] | None = None,
) -> Rubric:
    """The rubric with n of people's labels as examples, under its few-shot version. At
    least one label must stay held out."""
    if rubric.is_pairwise:
        raise PlanError("--few-shot takes people's ratings as examples: use a rating rubric")
    if not 1 <= n <= MAX_EXAMPLES:
        raise PlanError(f"--few-shot takes 1 to {MAX_EXAMPLES} examples, got {n}")
    with store.connection() as con:
        labels = sql.human_labels(con, rubric=rubric.name, dataset=dataset, systems=systems)
    if len(labels) <= n:
        raise PlanError(
            f"--few-shot {n}: people rated {len(labels)} responses with {rubric.name} here; "
            "label more on the Annotate page, or ask for fewer examples (one must stay held out)"
        )
    examples = draw(labels, n=n, seed=seed)
    version = version_of(rubric, examples, seed=seed)
    return dataclasses.replace(rubric, version=version, examples=examples)


def seed_of(rubric: Rubric) -> int:
    return int(rubric.version.rsplit("-seed", 1)[1].split("-", 1)[0])


def record_examples(store: Store, rubric: Rubric, *, actor: User | None = None) -> int:
    """Record which labels a few-shot rubric version uses (nothing for a plain rubric), before
    its run: a killed run's ratings are held out the same way. An admin's (`actor`)."""
    require_admin(actor, "record a few-shot rubric version")
    if not rubric.examples:
        return 0
    with store.write_lock, store.connection() as con, transaction(con):
        return sql.add_examples(
            con,
            rubric=rubric.name,
            version=rubric.version,
            examples=rubric.examples,
            seed=seed_of(rubric),
            at=utc_now(),
        )
