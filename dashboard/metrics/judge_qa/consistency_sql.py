"""The read of repeated judging (`judge --epochs N`): each epoch's rating of the selected
responses under the selection's rubric, per judge at the rubric version it used last."""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.metrics.selection import Selection
from dashboard.metrics.selection_sql import SELECTED, SELECTED_PARAMS
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class EpochValue:
    """One epoch's rating of a response by a judge; value None: that epoch did not parse."""

    judge: str
    rubric_version: str
    response_id: str
    epoch: int
    value: float | None


def epoch_values(con: Connection, sel: Selection) -> list[EpochValue]:
    """The latest rating per judge, response and epoch, at each judge's latest rubric
    version with epochs (two versions' epochs never mix)."""
    cursor = con.execute(
        f"""
        WITH chosen AS ({SELECTED}),
        per_epoch AS (
            SELECT e.judge, e.rubric_version, e.response_id, e.epoch,
                   arg_max(e.value, e.created_utc) AS value, max(e.created_utc) AS last_utc
            FROM epoch_ratings e
            WHERE ($rubric IS NULL OR e.rubric = $rubric)
              AND e.response_id IN (SELECT response_id FROM chosen)
            GROUP BY ALL),
        latest AS (
            SELECT judge, arg_max(rubric_version, last_utc) AS rubric_version
            FROM per_epoch GROUP BY judge)
        SELECT judge, rubric_version, response_id, epoch, value
        FROM per_epoch JOIN latest USING (judge, rubric_version)
        ORDER BY ALL""",
        sel.params(*SELECTED_PARAMS, "rubric"),
    )
    return fetch(cursor, EpochValue)
