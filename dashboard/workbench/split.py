"""A seeded, stratified dev/test split of people's labels per rubric and dataset
(docs/judge-qa.md, "The split").

The unit is a labelled response. Dev labels are for looking, few-shot examples and edits;
test labels only give a number, and every scoring on test is recorded as a look
(`record_look`). A response's side is written once, when the response is first seen
labelled, so the split is stable as labels grow: a new response goes, in the order of
sha256(seed:response id), to the side its stratum (the people's mean rating, rounded) is short
of: test when `n_test + u < fraction × (n + 1)`, u the hash as a number in [0, 1). Reads
compute the sides of responses not yet recorded the same way, without writing them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from dashboard.ids import utc_now
from dashboard.metrics.calibration import JudgeMap, isotonic_calibration
from dashboard.metrics.choices import with_default_rubric
from dashboard.metrics.selection import Selection
from dashboard.store import Store, transaction
from dashboard.workbench import split_sql as sql
from dashboard.workbench.split_sql import Assignment

DEV, TEST = "dev", "test"
DEFAULT_SEED, DEFAULT_TEST_FRACTION = 0, 0.5


@dataclass(frozen=True)
class Split:
    """The sides of the labelled responses of (rubric, dataset) under one seed."""

    rubric: str
    dataset: str
    seed: int
    test_fraction: float
    recorded: bool  # False: no split made yet; the default one is shown
    created_utc: datetime | None
    sides: Mapping[str, str]  # response id -> DEV or TEST
    n_new: int  # labelled responses not yet recorded (assigned as a write would)

    def ids(self, side: str) -> tuple[str, ...]:
        return tuple(sorted(r for r, s in self.sides.items() if s == side))

    @property
    def counts(self) -> str:
        return f"{len(self.ids(DEV))} dev, {len(self.ids(TEST))} test"


def _unit(seed: int, response_id: str) -> float:
    digest = hashlib.sha256(f"{seed}:{response_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def assign(
    existing: Mapping[str, Assignment],
    strata: Mapping[str, float],
    *,
    seed: int,
    test_fraction: float,
) -> list[Assignment]:
    """The assignments of the responses of `strata` not in `existing`, stratum by stratum."""
    n_side: dict[tuple[float, str], int] = {}
    for a in existing.values():
        n_side[(a.stratum, a.side)] = n_side.get((a.stratum, a.side), 0) + 1
    new = sorted((r for r in strata if r not in existing), key=lambda r: (_unit(seed, r), r))
    found = []
    for response_id in new:
        stratum, u = strata[response_id], _unit(seed, response_id)
        n_test = n_side.get((stratum, TEST), 0)
        n = n_test + n_side.get((stratum, DEV), 0)
        side = TEST if n_test + u < test_fraction * (n + 1) else DEV
        n_side[(stratum, side)] = n_side.get((stratum, side), 0) + 1
        found.append(Assignment(response_id, side, stratum))
    return found


def _read(store: Store, rubric: str, dataset: str) -> tuple[Split, list[Assignment]]:
    with store.connection() as con:
        made = sql.latest_split(con, rubric=rubric, dataset=dataset)
        seed = made.seed if made else DEFAULT_SEED
        fraction = made.test_fraction if made else DEFAULT_TEST_FRACTION
        existing = {
            a.response_id: a
            for a in sql.assignments(con, rubric=rubric, dataset=dataset, seed=seed)
        }
        labelled = sql.labelled_responses(con, rubric=rubric, dataset=dataset)
    strata = {r.response_id: r.stratum for r in labelled}
    new = assign(existing, strata, seed=seed, test_fraction=fraction)
    sides = {r: a.side for r, a in existing.items() if r in strata}
    sides.update({a.response_id: a.side for a in new})
    split = Split(
        rubric,
        dataset,
        seed,
        fraction,
        made is not None,
        made.created_utc if made else None,
        sides,
        len(new),
    )
    return split, new


def read_split(store: Store, *, rubric: str, dataset: str) -> Split:
    """The split in force (the default one when none was made), new labels assigned as a
    write would assign them; writes nothing."""
    return _read(store, rubric, dataset)[0]


def make_split(
    store: Store,
    *,
    rubric: str,
    dataset: str,
    seed: int = DEFAULT_SEED,
    test_fraction: float = DEFAULT_TEST_FRACTION,
    by: str | None = None,
) -> Split:
    """Record a split (a new seed or fraction makes a new one; the latest is in force) and
    the sides of every labelled response."""
    if not 0 < test_fraction < 1:
        raise ValueError(f"the test fraction must be between 0 and 1, got {test_fraction}")
    with store.write_lock, store.connection() as con, transaction(con):
        sql.add_split(con, sql.SplitRow(rubric, dataset, seed, test_fraction, by, utc_now()))
    return record_split(store, rubric=rubric, dataset=dataset)


def record_split(store: Store, *, rubric: str, dataset: str) -> Split:
    """Write the sides of labelled responses not yet recorded (making the default split when
    none was made), and return the split."""
    split, new = _read(store, rubric, dataset)
    with store.write_lock, store.connection() as con, transaction(con):
        if not split.recorded:
            row = sql.SplitRow(rubric, dataset, split.seed, split.test_fraction, None, utc_now())
            sql.add_split(con, row)
        sql.add_assignments(
            con, rubric=rubric, dataset=dataset, seed=split.seed, rows=new, at=utc_now()
        )
    return read_split(store, rubric=rubric, dataset=dataset)


def record_look(
    store: Store,
    *,
    rubric: str,
    dataset: str,
    judge: str,
    version: str,
    purpose: str,
    by: str | None,
) -> None:
    """Record one scoring of a version on the test split."""
    with store.write_lock, store.connection() as con, transaction(con):
        sql.add_look(
            con,
            rubric=rubric,
            dataset=dataset,
            judge=judge,
            version=version,
            purpose=purpose,
            by=by,
            at=utc_now(),
        )


def looks_since(
    store: Store,
    *,
    rubric: str,
    dataset: str,
    since: datetime | None,
    judge: str | None = None,
) -> int:
    """Looks at the test split after `since` (every judge's, or `judge`'s only)."""
    with store.connection() as con:
        return sql.looks_since(con, rubric=rubric, dataset=dataset, since=since, judge=judge)


def looks_by_judge(store: Store, *, rubric: str, dataset: str) -> dict[str, int]:
    """Each judge's looks at the test split since its own latest adoption on the dataset
    (judges absent have spent none): a look at one judge's test agreement, or one judge's
    adoption, leaves every other judge's count as it was."""
    with store.connection() as con:
        found = sql.looks_by_judge(con, rubric=rubric, dataset=dataset)
    return {row.judge: row.looks for row in found}


@dataclass(frozen=True)
class IsotonicOnSplit:
    """Calibration's isotonic maps, and whether the workbench's split chose the halves."""

    maps: tuple[JudgeMap, ...]
    on_split: bool  # True: fitted on the dev side, checked on the test side


def isotonic_on_split(store: Store, selection: Selection) -> IsotonicOnSplit:
    """Each judge's isotonic map onto people's scale (`calibration.isotonic_calibration`),
    fitted on the dev side of the selection's dataset's split and checked on its test side
    (the split in force, read as a write would assign new labels; nothing is written).
    Without a dataset there is no split: a seeded half of the labelled answers fits."""
    selection = with_default_rubric(store, selection)
    if selection.dataset is None or selection.rubric is None:
        return IsotonicOnSplit(isotonic_calibration(store, selection), False)
    dev = read_split(store, rubric=selection.rubric, dataset=selection.dataset).ids(DEV)
    return IsotonicOnSplit(isotonic_calibration(store, selection, fit_ids=dev), True)
