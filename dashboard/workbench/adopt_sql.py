"""The reads and write of adoptions (`adoptions`, migration 13; `model_version`, 20).

An adoption is one judge's: the version in force for a judge on a dataset is that judge's
latest adoption there (as `store/shelved.py` and `metrics.panels_sql` read it)."""

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
    model_version: str | None = None  # what the provider reported (None: nothing reported)


_COLUMNS = (
    "rubric, dataset, judge, model, rubric_version, prompt_hash, n_labels, CAST(card AS VARCHAR) "
    "AS card, adopted_by, reason, created_utc, model_version"
)


_NAMES = _COLUMNS.replace("CAST(card AS VARCHAR) AS card", "card")


def add_adoption(con: Connection, row: AdoptionRow) -> None:
    con.execute(
        f"INSERT INTO adoptions ({_NAMES}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
            row.model_version,
        ],
    )


def latest_adoptions(con: Connection, *, rubric: str | None = None) -> list[AdoptionRow]:
    """The latest adoption of each (rubric, dataset, judge): the judge's version in force."""
    cursor = con.execute(
        f"""
        SELECT {_COLUMNS} FROM adoptions
        WHERE (CAST($rubric AS VARCHAR) IS NULL OR rubric = $rubric)
        QUALIFY row_number() OVER (
            PARTITION BY rubric, dataset, judge ORDER BY created_utc DESC) = 1
        ORDER BY rubric, dataset, judge""",
        {"rubric": rubric},
    )
    return fetch(cursor, AdoptionRow)


def adoption_history(
    con: Connection, *, rubric: str, dataset: str, judge: str | None = None
) -> list[AdoptionRow]:
    cursor = con.execute(
        f"SELECT {_COLUMNS} FROM adoptions WHERE rubric = $rubric AND dataset = $dataset "
        "AND (CAST($judge AS VARCHAR) IS NULL OR judge = $judge) ORDER BY created_utc DESC",
        {"rubric": rubric, "dataset": dataset, "judge": judge},
    )
    return fetch(cursor, AdoptionRow)
