"""Each judge mapped onto people's scale: an increasing (isotonic) map from the judge's
ratings to people's, fitted on one half of the labelled answers and checked on the other,
then applied to the answers the judge rated, as a "calibrated" column beside the raw one (every
labelled answer, and the first UNLABELLED_SHOWN others by response id: the map applies to any
rating, `JudgeMap.fitted.apply`).

The halves: the answers of `fit_ids` (the workbench's dev split, when the caller has one)
fit the map and the other labelled answers check it; without `fit_ids`, a seeded half of the
labelled answers (sorted ids, `numpy.random.default_rng(seed)`, the larger half fits). A
labelled answer's people score is the mean of its people's ratings. The check compares the
mean absolute error to people of the raw and of the calibrated ratings on the check half.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from dashboard.metrics.calibration import calibration_sql as sql
from dashboard.metrics.choices import with_default_rubric
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from scoring.stats import CI, bootstrap_ci
from scoring.workbench import IsotonicMap, isotonic_map

FIT, CHECK, UNLABELLED = "fit", "check", "unlabelled"
SEED = 0
# The unlabelled answers shown per judge (the first by response id): the map is fitted on the
# labelled ones, and a page of a million answers needs only a sample of the column.
UNLABELLED_SHOWN = 1000


@dataclass(frozen=True)
class CalibratedRating:
    """A judge's rating of an answer, raw and mapped onto people's scale; `people` is the
    mean of people's ratings (None: unlabelled) and `half` FIT, CHECK or UNLABELLED."""

    judge: str
    response_id: str
    raw: float
    calibrated: float
    people: float | None
    half: str


@dataclass(frozen=True)
class JudgeMap:
    """One judge's fitted map, with its check on the answers it was not fitted on."""

    judge: str
    fitted: IsotonicMap
    n_fit: int
    n_check: int
    mae_raw: float  # mean |raw - people| on the check half (nan: no check answer)
    mae_calibrated: float
    ratings: tuple[CalibratedRating, ...]
    # Each error with its 95% percentile bootstrap interval over the checked answers
    # (`scoring.stats.bootstrap_ci`, seed 0); n is `n_check`.
    mae_raw_ci: CI = CI(math.nan, math.nan, math.nan)
    mae_calibrated_ci: CI = CI(math.nan, math.nan, math.nan)


def _halves(labelled: list[str], fit_ids: Collection[str] | None, seed: int) -> set[str]:
    if fit_ids is not None:
        return set(labelled) & set(fit_ids)
    order = np.random.default_rng(seed).permutation(len(labelled))
    return {labelled[i] for i in order[: math.ceil(len(labelled) / 2)]}


def _mae(pairs: list[tuple[float, float]]) -> float:
    return float(np.mean([abs(a - b) for a, b in pairs])) if pairs else math.nan


def _judge_map(
    judge: str, given: dict[str, float], people: dict[str, float], fit: set[str]
) -> JudgeMap:
    fit_x = [given[r] for r in sorted(given) if r in fit]
    fitted = isotonic_map(fit_x, [people[r] for r in sorted(given) if r in fit])
    mapped = dict(zip(sorted(given), fitted.apply([given[r] for r in sorted(given)]), strict=True))
    ratings = tuple(
        CalibratedRating(
            judge,
            r,
            given[r],
            float(mapped[r]),
            people.get(r),
            FIT if r in fit else CHECK if r in people else UNLABELLED,
        )
        for r in sorted(given)
    )
    check = [c for c in ratings if c.half == CHECK and c.people is not None]
    raw = [abs(c.raw - c.people) for c in check if c.people is not None]
    calibrated = [abs(c.calibrated - c.people) for c in check if c.people is not None]
    return JudgeMap(
        judge,
        fitted,
        len(fit_x),
        len(check),
        _mae([(c.raw, c.people) for c in check if c.people is not None]),
        _mae([(c.calibrated, c.people) for c in check if c.people is not None]),
        ratings,
        bootstrap_ci(raw, seed=SEED),
        bootstrap_ci(calibrated, seed=SEED),
    )


def isotonic_calibration(
    store: Store,
    selection: Selection,
    *,
    fit_ids: Collection[str] | None = None,
    seed: int = SEED,
) -> tuple[JudgeMap, ...]:
    """Every judge's isotonic map onto people's scale on the selection (see the module);
    a judge with no labelled answer in the fitting half is left out."""
    selection = with_default_rubric(store, selection)
    if selection.rubric is None:
        return ()
    with store.connection() as con:
        rows = sql.scored_ratings(con, selection, unlabelled=UNLABELLED_SHOWN)
    people_values: dict[str, list[float]] = defaultdict(list)
    judged: dict[str, dict[str, float]] = defaultdict(dict)
    for row in rows:
        if row.rater_kind == "human":
            people_values[row.response_id].append(row.value)
        else:
            judged[row.rater][row.response_id] = row.value
    people = {r: float(np.mean(v)) for r, v in people_values.items()}
    fit = _halves(sorted(people), fit_ids, seed)
    maps = (_judge_map(j, given, people, fit) for j, given in sorted(judged.items()))
    return tuple(m for m in maps if m.n_fit)
