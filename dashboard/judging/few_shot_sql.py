"""The reads and the write of few-shot rubric versions: people's labels to draw examples from,
and the examples a version used (`few_shot_examples`, migration 9)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from dashboard.judging.rubrics import FewShotExample
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


def human_labels(
    con: Connection, *, rubric: str, dataset: str | None, systems: Sequence[str] | None
) -> list[FewShotExample]:
    """One current scored human rating of the rubric per response (the latest), with the
    response's question and answer, in the order of the response ids."""
    cursor = con.execute(
        """
        SELECT g.response_id, g.rating_id, g.rater, i.question, r.answer, g.value
        FROM current_ratings g
        JOIN responses r ON r.response_id = g.response_id
        JOIN items i ON i.item_id = r.item_id AND i.dataset = r.dataset
        WHERE g.rubric = $rubric AND g.rater_kind = 'human' AND g.value IS NOT NULL
          AND ($dataset IS NULL OR r.dataset = $dataset)
          AND ($systems IS NULL OR list_contains($systems, r.system))
        QUALIFY row_number() OVER (
            PARTITION BY g.response_id ORDER BY g.created_utc DESC, g.rating_id) = 1
        ORDER BY g.response_id""",
        {"rubric": rubric, "dataset": dataset, "systems": list(systems) if systems else None},
    )
    return fetch(cursor, FewShotExample)


def add_examples(
    con: Connection,
    *,
    rubric: str,
    version: str,
    examples: Sequence[FewShotExample],
    seed: int,
    at: datetime,
) -> int:
    """Record a version's examples unless it has some already; returns how many were new."""
    present = con.execute(
        "SELECT count(*) FROM few_shot_examples WHERE rubric = ? AND rubric_version = ?",
        [rubric, version],
    ).fetchone()
    if present and present[0]:
        return 0
    con.executemany(
        "INSERT INTO few_shot_examples VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            [rubric, version, n, e.response_id, e.rating_id, e.rater, e.value, seed, at]
            for n, e in enumerate(examples, start=1)
        ],
    )
    return len(examples)
