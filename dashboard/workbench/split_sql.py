"""The reads and writes of the split of people's labels (`label_splits`, `split_assignments`,
`test_looks`; migration 13)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class LabelledResponse:
    """A response people rated with the rubric, and its stratum: the mean of their current
    scored ratings, rounded to the nearest scale point's integer (half up)."""

    response_id: str
    stratum: float


def labelled_responses(con: Connection, *, rubric: str, dataset: str) -> list[LabelledResponse]:
    cursor = con.execute(
        """
        SELECT g.response_id, floor(avg(g.value) + 0.5) AS stratum
        FROM current_ratings g JOIN responses r USING (response_id)
        WHERE g.rubric = $rubric AND g.rater_kind = 'human' AND g.value IS NOT NULL
          AND r.dataset = $dataset
        GROUP BY g.response_id ORDER BY g.response_id""",
        {"rubric": rubric, "dataset": dataset},
    )
    return fetch(cursor, LabelledResponse)


@dataclass(frozen=True)
class SplitRow:
    rubric: str
    dataset: str
    seed: int
    test_fraction: float
    created_by: str | None
    created_utc: datetime


def latest_split(con: Connection, *, rubric: str, dataset: str) -> SplitRow | None:
    cursor = con.execute(
        """
        SELECT rubric, dataset, seed, test_fraction, created_by, created_utc FROM label_splits
        WHERE rubric = ? AND dataset = ? ORDER BY created_utc DESC LIMIT 1""",
        [rubric, dataset],
    )
    found = fetch(cursor, SplitRow)
    return found[0] if found else None


def add_split(con: Connection, split: SplitRow) -> None:
    con.execute(
        "INSERT INTO label_splits VALUES (?, ?, ?, ?, ?, ?)",
        [
            split.rubric,
            split.dataset,
            split.seed,
            split.test_fraction,
            split.created_by,
            split.created_utc,
        ],
    )


@dataclass(frozen=True)
class Assignment:
    response_id: str
    side: str
    stratum: float


def assignments(con: Connection, *, rubric: str, dataset: str, seed: int) -> list[Assignment]:
    cursor = con.execute(
        """
        SELECT response_id, side, stratum FROM split_assignments
        WHERE rubric = ? AND dataset = ? AND seed = ? ORDER BY response_id""",
        [rubric, dataset, seed],
    )
    return fetch(cursor, Assignment)


def add_assignments(
    con: Connection,
    *,
    rubric: str,
    dataset: str,
    seed: int,
    rows: Sequence[Assignment],
    at: datetime,
) -> None:
    if rows:
        con.executemany(
            "INSERT INTO split_assignments VALUES (?, ?, ?, ?, ?, ?, ?)",
            [[rubric, dataset, seed, a.response_id, a.side, a.stratum, at] for a in rows],
        )


def add_look(
    con: Connection,
    *,
    rubric: str,
    dataset: str,
    judge: str,
    version: str,
    purpose: str,
    by: str | None,
    at: datetime,
) -> None:
    con.execute(
        "INSERT INTO test_looks VALUES (?, ?, ?, ?, ?, ?, ?)",
        [rubric, dataset, judge, version, purpose, by, at],
    )


def looks_since(
    con: Connection,
    *,
    rubric: str,
    dataset: str,
    since: datetime | None,
    judge: str | None = None,
) -> int:
    """How many times the test split of (rubric, dataset) was scored after `since` (for
    `judge` only, when given)."""
    row = con.execute(
        """
        SELECT count(*) FROM test_looks WHERE rubric = $rubric AND dataset = $dataset
          AND (CAST($judge AS VARCHAR) IS NULL OR judge = $judge)
          AND (CAST($since AS TIMESTAMP) IS NULL OR created_utc > $since)""",
        {"rubric": rubric, "dataset": dataset, "judge": judge, "since": since},
    ).fetchone()
    return int(row[0]) if row else 0


@dataclass(frozen=True)
class JudgeLooks:
    """One judge's looks at the test split since its own latest adoption (or ever)."""

    judge: str
    looks: int


def looks_by_judge(con: Connection, *, rubric: str, dataset: str) -> list[JudgeLooks]:
    """Each judge's looks at the test split of (rubric, dataset) since that judge's latest
    adoption there: another judge's look or adoption leaves its count alone. Judges that
    never looked are absent (zero)."""
    cursor = con.execute(
        """
        WITH adopted AS (
            SELECT judge, max(created_utc) AS adopted_utc FROM adoptions
            WHERE rubric = $rubric AND dataset = $dataset GROUP BY judge)
        SELECT l.judge, count(*) AS looks
        FROM test_looks l LEFT JOIN adopted a USING (judge)
        WHERE l.rubric = $rubric AND l.dataset = $dataset
          AND (a.adopted_utc IS NULL OR l.created_utc > a.adopted_utc)
        GROUP BY l.judge ORDER BY l.judge""",
        {"rubric": rubric, "dataset": dataset},
    )
    return fetch(cursor, JudgeLooks)
