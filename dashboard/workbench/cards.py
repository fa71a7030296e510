"""Adoption and the judge card (docs/judge-qa.md, "The judge card").

Adopting a version of a judge for a rubric on a dataset records who, when and why, and the
panel's numbers count that version for that judge there from then on (an adoption is one
judge's: `metrics.panels_sql`, `store/shelved.py`). The adoption scores the version on the
test split once (a recorded look) and keeps that as the judge card: its test-split
agreement, bound to the judge's model, the model version the provider reported for its
latest call, the rubric version and its prompt hash, and the number of labelled responses it
saw. A card is stale when the model or the model version of the judge's latest call under
that version, or the version's prompt hash, differs from the card's, or when people labelled
more responses since; `metrics --json` carries it under `judge_cards.<judge>.<rubric>.<metric>`
and `--fail-under` can gate on it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from dashboard.ids import utc_now
from dashboard.judging.rubrics import RubricError
from dashboard.store import Store, shelved, transaction
from dashboard.workbench import adopt_sql as sql, agreement_sql, split_sql
from dashboard.workbench.versions import get_version

# The card's numbers: the keys of `judge_cards.<judge>.<rubric>` in `metrics --json`.
CARD_METRICS = (
    "exact",
    "within_one",
    "kappa_quadratic",
    "alpha_ordinal",
    "spearman",
    "tpr",
    "tnr",
)


@dataclass(frozen=True)
class JudgeCard:
    rubric: str
    dataset: str
    judge: str
    model: str
    version: str
    prompt_hash: str
    n_labels: int  # labelled responses (both sides) when adopted
    numbers: Mapping[str, Mapping[str, float]]  # metric -> value, low, high, n
    adopted_by: str | None
    reason: str | None
    adopted_utc: datetime
    stale_reasons: tuple[str, ...]
    model_version: str | None = None  # as the provider reported it; None: none reported

    @property
    def stale(self) -> bool:
        return bool(self.stale_reasons)


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def card_numbers(score: object) -> dict[str, dict[str, float | None]]:
    """A `VersionScore`'s numbers as the card keeps them."""
    found = {}
    for name in CARD_METRICS:
        e = getattr(score, name)
        found[name] = {
            "value": _finite(e.value),
            "low": _finite(e.low),
            "high": _finite(e.high),
            "n": e.n,
        }
    return found


def save_adoption(
    store: Store,
    *,
    rubric: str,
    dataset: str,
    judge: str,
    version: str,
    numbers: Mapping[str, Mapping[str, float | None]],
    by: str | None,
    reason: str | None,
) -> JudgeCard:
    """Record the adoption with its card; the judge must have rated under the version."""
    chosen = get_version(store, rubric, version)
    with store.connection() as con:
        called = agreement_sql.judge_model_version(con, judge=judge, rubric=rubric, version=version)
        n_labels = len(split_sql.labelled_responses(con, rubric=rubric, dataset=dataset))
    if called is None:
        raise RubricError(f"judge {judge!r} never ran {rubric} version {version}: run it first")
    row = sql.AdoptionRow(
        rubric,
        dataset,
        judge,
        called.model,
        version,
        chosen.prompt_hash,
        n_labels,
        json.dumps(numbers),
        by,
        reason,
        utc_now(),
        called.model_version,
    )
    with store.write_lock, store.connection() as con, transaction(con):
        sql.add_adoption(con, row)
        shelved.refresh(con, rubric=row.rubric)  # the adopted version's ratings are current
    return _card(store, row)


def _card(store: Store, row: sql.AdoptionRow) -> JudgeCard:
    reasons = []
    try:
        now_hash = get_version(store, row.rubric, row.rubric_version).prompt_hash
    except RubricError:
        now_hash = None
    if now_hash != row.prompt_hash:
        reasons.append("the rubric version's prompt changed")
    with store.connection() as con:
        called = agreement_sql.judge_model_version(
            con, judge=row.judge, rubric=row.rubric, version=row.rubric_version
        )
        n_labels = len(split_sql.labelled_responses(con, rubric=row.rubric, dataset=row.dataset))
    model = called.model if called else None
    if model != row.model:
        reasons.append(f"the judge's model is now {model}, the card measured {row.model}")
    elif called is not None and called.model_version != row.model_version:
        reasons.append(
            f"the provider now reports model version {called.model_version or 'none'}, the "
            f"card measured {row.model_version or 'none'}"
        )
    if n_labels > row.n_labels:
        reasons.append(f"people labelled {n_labels - row.n_labels} more responses since")
    return JudgeCard(
        row.rubric,
        row.dataset,
        row.judge,
        row.model,
        row.rubric_version,
        row.prompt_hash,
        row.n_labels,
        json.loads(row.card),
        row.adopted_by,
        row.reason,
        row.created_utc,
        tuple(reasons),
        row.model_version,
    )


def judge_cards(store: Store, *, rubric: str | None = None) -> list[JudgeCard]:
    """The card of the adoption in force for each judge on each (rubric, dataset)."""
    with store.connection() as con:
        rows = sql.latest_adoptions(con, rubric=rubric)
    return [_card(store, row) for row in rows]


def adopted(store: Store, *, rubric: str, dataset: str, judge: str) -> JudgeCard | None:
    """The card of the judge's adoption in force on the dataset (None: never adopted)."""
    found = dataset_cards(store, rubric=rubric, dataset=dataset)
    return next((c for c in found if c.judge == judge), None)


def dataset_cards(store: Store, *, rubric: str, dataset: str) -> tuple[JudgeCard, ...]:
    """The card of each judge with an adoption in force on the dataset, by judge name."""
    return tuple(c for c in judge_cards(store, rubric=rubric) if c.dataset == dataset)


def history(
    store: Store, *, rubric: str, dataset: str, judge: str | None = None
) -> list[JudgeCard]:
    with store.connection() as con:
        rows = sql.adoption_history(con, rubric=rubric, dataset=dataset, judge=judge)
    return [_card(store, row) for row in rows]


def latest_cards(store: Store, *, rubric: str | None, dataset: str | None) -> list[JudgeCard]:
    """The judge cards of a selection's rubric (none without one): its dataset's, or with no
    dataset chosen, each judge's latest adoption's."""
    found = judge_cards(store, rubric=rubric) if rubric else []
    chosen = [c for c in found if dataset in (None, c.dataset)]
    latest = {(c.judge, c.rubric): c for c in sorted(chosen, key=lambda c: c.adopted_utc)}
    return list(latest.values())
