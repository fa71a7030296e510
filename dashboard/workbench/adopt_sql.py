"""The reads and write of adoptions (`adoptions`, migration 13)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class AdoptionRow:
    rubric: str
    dataset: str
    judge: str
    model: str
    rubric_version: str
    prompt_hash: str
    n_labels: int
    card: str  # JSON: metric name -> {value, low, high, n}
    adopted_by: str | None
    reason: str | None
    created_utc: datetime


_COLUMNS = (
    "rubric, dataset, judge, model, rubric_version, prompt_hash, n_labels, CAST(card AS VARCHAR) "
    "AS card, adopted_by, reason, created_utc"
)


def add_adoption(con: Connection, row: AdoptionRow) -> None:
    con.execute(
        "INSERT INTO adoptions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            row.rubric,
            row.dataset,
            row.judge,
            row.model,
            row.rubric_version,
            row.prompt_hash,
            row.n_labels,
            row.card,
            row.adopted_by,
            row.reason,
            row.created_utc,
        ],
    )


def latest_adoptions(con: Connection, *, rubric: str | None = None) -> list[AdoptionRow]:
    """The latest adoption of each (rubric, dataset): the version in force there."""
    cursor = con.execute(
        f"""
        SELECT {_COLUMNS} FROM adoptions
        WHERE (CAST($rubric AS VARCHAR) IS NULL OR rubric = $rubric)
        QUALIFY row_number() OVER (PARTITION BY rubric, dataset ORDER BY created_utc DESC) = 1
        ORDER BY rubric, dataset""",
        {"rubric": rubric},
    )
    return fetch(cursor, AdoptionRow)


def adoption_history(con: Connection, *, rubric: str, dataset: str) -> list[AdoptionRow]:
    cursor = con.execute(
        f"SELECT {_COLUMNS} FROM adoptions WHERE rubric = ? AND dataset = ? "
        "ORDER BY created_utc DESC",
        [rubric, dataset],
    )
    return fetch(cursor, AdoptionRow)
