"""Reads and writes for `auto_scores`: the reference-based metrics computed by `scoring`."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from dashboard.store.connection import Connection

SCORE_COLUMNS = ("response_id", "metric", "value", "version")


# Every scored response has exactly one row of one of these metrics (see `autoscore`).
PRIMARY_METRICS = ("em", "mcqa_accuracy", "halluc_pred", "none")


def count_unscored(con: Connection, *, version: str, dataset: str | None) -> int:
    """How many responses have no automatic scores of this version yet.

    The usual answer, none, comes from two counts (milliseconds on a million responses);
    only when they differ does the anti-join find which dataset is behind.
    """
    scored, total = con.execute(
        """
        SELECT (SELECT count(*) FROM auto_scores
                WHERE version = $version AND list_contains($primary, metric)),
               (SELECT count(*) FROM responses)""",
        {"version": version, "primary": list(PRIMARY_METRICS)},
    ).fetchone()
    if scored == total:
        return 0
    return con.execute(
        """
        SELECT count(*) FROM responses r
        ANTI JOIN (SELECT DISTINCT response_id FROM auto_scores WHERE version = $version) a
            USING (response_id)
        WHERE $dataset IS NULL OR r.dataset = $dataset""",
        {"version": version, "dataset": dataset},
    ).fetchone()[0]


def unscored_batch(
    con: Connection, *, version: str, dataset: str | None, limit: int
) -> list[tuple]:
    """Up to `limit` responses without scores of this version, with what scoring needs:
    (response_id, task_type, answer, reference_answers, options, gold_letters)."""
    return con.execute(
        """
        SELECT r.response_id, i.task_type, r.answer, i.reference_answers, i.options,
               i.gold_letters
        FROM responses r JOIN items i USING (item_id)
        ANTI JOIN (SELECT DISTINCT response_id FROM auto_scores WHERE version = $version) a
            USING (response_id)
        WHERE $dataset IS NULL OR r.dataset = $dataset
        ORDER BY r.response_id LIMIT $limit""",
        {"version": version, "dataset": dataset, "limit": limit},
    ).fetchall()


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
