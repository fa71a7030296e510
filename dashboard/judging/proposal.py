"""Which rubric fits the data: the Run judges page proposes it before anyone picks.

A rating rubric fits when it is written for the data's task types; among those, one that
shows the judge the kind of context the data has (the items' reference context, else the
answers' retrieved passages) and no context the data lacks, then a 1–5 Likert scale, then
the finer scale, then the name. RAG data with reference contexts thus gets the Likert rubric
conditioned on the reference context (`likert-rag` among the bundled rubrics).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dashboard.judging.rubrics import Rubric
from dashboard.store import Store
from dashboard.store.rows import fetch_one

# A stand-in for every variable, to ask a rubric which ones its prompt shows.
_ALL_SHOWN = dict.fromkeys(("reference_context", "retrieved_context"), "x")


@dataclass(frozen=True)
class DataProfile:
    """What a dataset (None: every dataset) holds that a rubric may need."""

    task_types: tuple[str, ...]
    n_items: int
    n_reference_context: int  # items with a reference context
    n_retrieved: int  # responses with retrieved passages

    @property
    def has_reference_context(self) -> bool:
        return self.n_reference_context > 0

    @property
    def has_retrieved(self) -> bool:
        return self.n_retrieved > 0


@dataclass(frozen=True)
class Proposal:
    rubric: str
    reason: str


def data_profile(store: Store, dataset: str | None) -> DataProfile:
    with store.connection() as con:
        found = fetch_one(
            con.execute(
                """
                SELECT coalesce(list_sort(list_distinct(list(i.task_type))), [])
                           AS task_types,
                       count(*) AS n_items,
                       count(*) FILTER (WHERE nullif(trim(i.reference_context), '') IS NOT NULL)
                           AS n_reference_context,
                       coalesce(sum(r.n_retrieved), 0)::INTEGER AS n_retrieved
                FROM items i
                LEFT JOIN (SELECT item_id, dataset, count(*) AS n_retrieved FROM responses
                           WHERE len(coalesce(contexts, [])) > 0 GROUP BY ALL) r
                       ON r.item_id = i.item_id AND r.dataset = i.dataset
                WHERE $dataset IS NULL OR i.dataset = $dataset""",
                {"dataset": dataset},
            ),
            DataProfile,
            convert={"task_types": tuple},
        )
    return found or DataProfile((), 0, 0, 0)


def _misfit(rubric: Rubric, profile: DataProfile) -> tuple[bool, bool, bool, float, str]:
    """Smaller is a better fit: each part False where the rubric fits, then the name."""
    shown = rubric.shown(_ALL_SHOWN)
    uses_reference = "reference_context" in shown
    uses_retrieved = "retrieved_context" in shown
    retrieved_only = profile.has_retrieved and not profile.has_reference_context
    low, high = rubric.scale_low or 0.0, rubric.scale_high or 0.0
    return (
        uses_reference != profile.has_reference_context,
        not (uses_retrieved == retrieved_only or (uses_retrieved and profile.has_retrieved)),
        (low, high) != (1.0, 5.0),
        low - high,
        rubric.name,
    )


def _reason(rubric: Rubric, profile: DataProfile) -> str:
    if profile.has_reference_context and "reference_context" in rubric.shown(_ALL_SHOWN):
        return (
            f"{profile.n_reference_context:,} of {profile.n_items:,} items have a reference "
            "context, which this rubric shows the judge"
        )
    if profile.has_retrieved and "retrieved_context" in rubric.shown(_ALL_SHOWN):
        return "the answers carry retrieved passages, which this rubric shows the judge"
    return "it is written for these task types and needs no context the data lacks"


def propose_rubric(rubrics: Sequence[Rubric], profile: DataProfile) -> Proposal | None:
    """The rating rubric that fits the data best, with why; None when none is written for
    its task types (or there is no data)."""
    fitting = [
        r
        for r in rubrics
        if not r.is_pairwise and (not r.task_types or set(r.task_types) & set(profile.task_types))
    ]
    if not fitting or not profile.n_items:
        return None
    best = min(fitting, key=lambda r: _misfit(r, profile))
    return Proposal(best.name, _reason(best, profile))
