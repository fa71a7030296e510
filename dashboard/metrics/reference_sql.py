"""Reads and writes for `auto_scores`: the reference-based metrics computed by `scoring`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

from dashboard.store.connection import Connection
from dashboard.store.rows import fetch, scalar

SCORE_COLUMNS = ("response_id", "metric", "value", "version")


@dataclass(frozen=True)
class UnscoredResponse:
    """A response without reference scores of the current version, with what they need."""

    response_id: str
    task_type: str
    answer: str
    reference_answers: list[str] | None
    options: list[str] | None
    gold_letters: list[str] | None


def count_unscored(
    con: Connection, *, version: str, dataset: str | None, primary: Sequence[str]
) -> int:
    """How many responses have no automatic scores of this version yet.

    The usual answer, none, comes from two counts (milliseconds on a million responses);
    only when they differ does the anti-join find which dataset is behind.
    `primary` are the metrics of which every scored response has exactly one row.
    """
    unscored = scalar(
        con.execute(
            """
        SELECT (SELECT count(*) FROM responses) - (SELECT count(*) FROM auto_scores
                WHERE version = $version AND list_contains($primary, metric))""",
            {"version": version, "primary": list(primary)},
        )
    )
    if unscored == 0:
        return 0
    return scalar(
        con.execute(
            """
        SELECT count(*) FROM responses r
        ANTI JOIN (SELECT DISTINCT response_id FROM auto_scores WHERE version = $version) a
            USING (response_id)
        WHERE $dataset IS NULL OR r.dataset = $dataset""",
            {"version": version, "dataset": dataset},
        )
    )


def unscored_batch(
    con: Connection, *, version: str, dataset: str | None, limit: int
) -> list[UnscoredResponse]:
    """Up to `limit` responses without scores of this version, with what scoring needs."""
    cursor = con.execute(
        """
        SELECT r.response_id, i.task_type, r.answer, i.reference_answers, i.options,
               i.gold_letters
        FROM responses r JOIN items i USING (item_id)
        ANTI JOIN (SELECT DISTINCT response_id FROM auto_scores WHERE version = $version) a
            USING (response_id)
        WHERE $dataset IS NULL OR r.dataset = $dataset
        ORDER BY r.response_id LIMIT $limit""",
        {"version": version, "dataset": dataset, "limit": limit},
    )
    return fetch(cursor, UnscoredResponse)


def add_auto_scores(con: Connection, rows: Sequence[tuple[str, str, float | None, str]]) -> None:
    """Append scores; the caller holds the transaction."""
    if not rows:
        return
    columns = list(zip(*rows))
    con.register("_scores", pa.table(dict(zip(SCORE_COLUMNS, map(list, columns)))))
    try:
        # Two sessions may score the same batch; a score already stored is not added again.
        con.execute(f"""
            INSERT INTO auto_scores SELECT {", ".join(f"s.{c}" for c in SCORE_COLUMNS)}
            FROM _scores s ANTI JOIN auto_scores a USING (response_id, metric, version)""")
    finally:
        con.unregister("_scores")
