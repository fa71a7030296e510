"""What the pages offer to choose from: the rubrics rated on a selection, a dataset's systems.

Pages call these through `ui.cached`, so each runs once per state of the database.
"""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.store import Store
from dashboard.store import choices_sql, metrics_sql


@dataclass(frozen=True)
class RatedRubric:
    name: str
    scale_low: float
    scale_high: float
    n_ratings: int

    @property
    def label(self) -> str:
        return (f"{self.name} (scale {self.scale_low:g}–{self.scale_high:g}, "
                f"{self.n_ratings:,} ratings)")


def rated_rubrics(store: Store, *, dataset: str | None = None) -> list[RatedRubric]:
    """The rubrics with current ratings on the dataset, most used first: the first one is
    `metrics.default_rubric`."""
    with store.connection() as con:
        rows = metrics_sql.rubric_scales(con, metrics_sql.Selection(dataset))
    return [RatedRubric(name, low, high, n) for name, low, high, n in rows]


def dataset_names(store: Store) -> list[str]:
    with store.connection() as con:
        return choices_sql.dataset_names(con)


def dataset_systems(store: Store, *, dataset: str | None = None) -> list[str]:
    """The systems that answered in the dataset (or in any dataset), by name."""
    with store.connection() as con:
        return choices_sql.dataset_systems(con, dataset=dataset)
