"""Judge drift on anchor items: when a judge's version changes (its rubric version, or the
model version its provider reports), its shift on the anchors with its interval, and how much
of each system's change between the two versions is the judge's own shift.

Conventions: a judge's version is "rubric v<rubric_version> · <model version>" (the model
string when the provider reported none); the two compared are its two latest versions by
first use. The anchor shift is the mean, over anchors rated under both, of (new − old), in
scale points, with the paired bootstrap interval. A system's change is the same over its
responses rated under both; `judge_share` is anchor shift / system change (None when the
change is 0): the part of the system's change that the judge's own shift accounts for.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from dashboard.auth.roles import require_admin
from dashboard.auth.users import User
from dashboard.ids import content_id, utc_now
from dashboard.metrics.estimates import N_RESAMPLES, SEED, Estimate
from dashboard.metrics.judge_qa import drift_sql as sql
from dashboard.store import Store
from dashboard.store.journal import Batch
from dashboard.store.writes import record_row
from dashboard.types import Anchor
from scoring import bias as scoring_bias

DEFAULT_ANCHORS = 30


@dataclass(frozen=True)
class SystemChange:
    system: str
    change: Estimate | None
    judge_share: float | None


@dataclass(frozen=True)
class JudgeDrift:
    judge: str
    old_version: str
    new_version: str
    anchor_shift: Estimate | None
    systems: tuple[SystemChange, ...]


@dataclass(frozen=True)
class Drift:
    rubric: str | None
    n_anchors: int
    judges: tuple[JudgeDrift, ...]


def _paired(old: dict[str, float], new: dict[str, float], keys: Sequence[str]) -> Estimate | None:
    both = [k for k in keys if k in old and k in new]
    if not both:
        return None
    ci = scoring_bias.shift(
        [old[k] for k in both], [new[k] for k in both], n_resamples=N_RESAMPLES, seed=SEED
    )
    return Estimate.of(ci, len(both))


def _judge_drift(judge: str, rows: Sequence[sql.VersionedRating]) -> JudgeDrift | None:
    firsts = sorted({(str(r.first_utc), r.version) for r in rows})
    if len(firsts) < 2:
        return None
    old_v, new_v = firsts[-2][1], firsts[-1][1]
    values: dict[str, dict[str, float]] = {old_v: {}, new_v: {}}
    systems: dict[str, set[str]] = defaultdict(set)
    anchors = {r.response_id for r in rows if r.anchor}
    for r in rows:
        if r.version in values:
            values[r.version][r.response_id] = r.value
            systems[r.system].add(r.response_id)
    shift = _paired(values[old_v], values[new_v], sorted(anchors))
    changes = []
    for system in sorted(systems):
        change = _paired(values[old_v], values[new_v], sorted(systems[system]))
        share = (
            shift.value / change.value
            if shift is not None and change is not None and change.value != 0
            else None
        )
        changes.append(SystemChange(system, change, share))
    return JudgeDrift(judge, old_v, new_v, shift, tuple(changes))


def drift(store: Store, *, rubric: str | None, dataset: str | None = None) -> Drift:
    """Each judge's shift between its two latest versions, on the anchors and per system."""
    with store.connection() as con:
        n_anchors = sql.anchor_count(con, dataset=dataset)
        rows = sql.versioned_ratings(con, rubric=rubric, dataset=dataset) if rubric else []
    per_judge: dict[str, list[sql.VersionedRating]] = defaultdict(list)
    for r in rows:
        per_judge[r.rater].append(r)
    found = [_judge_drift(j, per_judge[j]) for j in sorted(per_judge)]
    return Drift(rubric, n_anchors, tuple(d for d in found if d is not None))


def anchor_ids(store: Store, *, dataset: str | None) -> list[str]:
    """The anchors' response ids (of the dataset, or of all)."""
    with store.connection() as con:
        rows = con.execute(
            "SELECT DISTINCT a.response_id FROM anchors a JOIN responses r USING (response_id) "
            "WHERE $dataset IS NULL OR r.dataset = $dataset ORDER BY 1",
            {"dataset": dataset},
        ).fetchall()
    return [str(r[0]) for r in rows]


def add_anchors(
    store: Store,
    *,
    dataset: str | None,
    picked: Sequence[str] = (),
    sample_size: int = 0,
    seed: int = 0,
    actor: User | None = None,
) -> int:
    """Make responses anchors: those `picked` by a person, and a seeded sample of
    `sample_size` of the dataset's responses; return how many rows were written. An admin's
    (`actor`)."""
    require_admin(actor, "add anchors")
    with store.connection() as con:
        every = sql.sample_responses(con, dataset=dataset)
    drawn = random.Random(seed).sample(list(every), min(sample_size, len(every)))
    chosen = [(r, "picked") for r in picked] + [(r, "sample") for r in sorted(drawn)]
    rows = tuple(
        record_row(Anchor(content_id("anchor", r, how), r, how, utc_now())) for r, how in chosen
    )
    store.write([Batch("anchors", rows)])
    return len(rows)
