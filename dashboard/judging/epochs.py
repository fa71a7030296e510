"""Repeated judging (`judge --epochs N`): each judge asked N times per answer, one rating kept.

Each epoch is a call of its own, with its own cache key (`plan.epoch_key`), so a re-run pays
for none of them again, and a judge with a seed sends seed + epoch. While a run goes, every
epoch's parsed rating is gathered here, cached or new; at its end the rating stored in
`ratings` is the reducer of the N (`scoring.workbench.reduce_epochs`: mean, median or mode,
over the epochs that parsed), written only for answers whose N calls all succeeded, and
each epoch's rating is kept in `epoch_ratings` for the judge's self-consistency.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from dashboard.ids import content_id
from dashboard.judging.plan import RunPlan
from dashboard.judging.records import Parsed, result_row
from dashboard.judging.targets import Target
from dashboard.store.writes import record_row
from dashboard.types import EpochRating
from scoring.workbench import SelfConsistency, reduce_epochs, self_consistency


@dataclass(frozen=True)
class _Epoch:
    parsed: Parsed
    call_id: str
    raw_output: str | None


def _value(found: _Epoch | None) -> float:
    if found is None or found.parsed.value is None:
        return math.nan
    return found.parsed.value


class EpochResults:
    """Every epoch's parsed rating of a run, per judge and response (owned by the loop)."""

    def __init__(self, plan: RunPlan) -> None:
        self.plan = plan
        self.found: dict[tuple[str, str], dict[int, _Epoch]] = {}
        self.targets: dict[tuple[str, str], Target] = {}

    def add(
        self,
        judge: str,
        target: Target,
        parsed: Parsed,
        *,
        call_id: str,
        raw: str | None,
        epoch: int,
    ) -> None:
        key = (judge, target.response_id or "")
        self.targets[key] = target
        self.found.setdefault(key, {})[epoch] = _Epoch(parsed, call_id, raw)

    def _reduced(self, judge: str, target: Target, epochs: dict[int, _Epoch]) -> dict[str, Any]:
        ordered = [epochs[e] for e in range(self.plan.epochs)]
        values = [e.parsed.value for e in ordered if e.parsed.scored]
        how = self.plan.reduce
        if values:
            parsed = Parsed(value=reduce_epochs(values, how))
        else:
            first = ordered[0].parsed.reason
            parsed = Parsed(reason=f"no epoch of {self.plan.epochs} parsed: {first}")
        calls = ",".join(e.call_id for e in ordered)
        return result_row(
            target,
            parsed,
            rubric=self.plan.rubric,
            rater=judge,
            call_id=ordered[0].call_id,
            raw_output=ordered[0].raw_output,
            # The value too: a re-run after a parser change writes the new reduction.
            suffix=f"epochs {self.plan.epochs} {how} {calls} {parsed.value}",
        )

    def _epoch_row(self, judge: str, response_id: str, epoch: int, found: _Epoch) -> dict[str, Any]:
        rubric = self.plan.rubric
        return record_row(
            EpochRating(
                epoch_rating_id=content_id("epoch", found.call_id, response_id),
                call_id=found.call_id,
                judge=judge,
                rubric=rubric.name,
                rubric_version=rubric.version,
                response_id=response_id,
                epoch=epoch,
                epochs=self.plan.epochs,
                value=found.parsed.value,
                unscored_reason=found.parsed.reason,
            )
        )

    def rows(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """(the reduced ratings of the answers with all N epochs, every epoch's row)."""
        reduced: list[dict[str, Any]] = []
        each: list[dict[str, Any]] = []
        for (judge, response_id), epochs in sorted(self.found.items()):
            each.extend(self._epoch_row(judge, response_id, e, f) for e, f in epochs.items())
            if len(epochs) == self.plan.epochs:
                reduced.append(self._reduced(judge, self.targets[(judge, response_id)], epochs))
        return reduced, each

    def consistency(self, judge: str) -> SelfConsistency:
        """The judge's self-consistency over this run's answers (unscored epochs missing)."""
        ratings = [
            [_value(epochs.get(e)) for e in range(self.plan.epochs)]
            for (name, _), epochs in sorted(self.found.items())
            if name == judge
        ]
        return self_consistency(ratings)
