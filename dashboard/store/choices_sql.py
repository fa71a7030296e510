"""Small reads behind the pages' pickers: dataset names, systems, and the size of a judge run
before it is planned. (The rated rubrics are `metrics_sql.rubric_scales`.)

They avoid `reads.list_datasets`, whose counts of ratings and preferences join millions of
rows, when a page only needs names.
"""

from __future__ import annotations

from collections.abc import Sequence

from dashboard.store.connection import Connection


def dataset_names(con: Connection) -> list[str]:
    return [row[0] for row in con.execute("SELECT name FROM datasets ORDER BY name").fetchall()]


def dataset_systems(con: Connection, *, dataset: str | None) -> list[str]:
    """The systems that answered in the dataset (None: in any dataset), by name."""
    rows = con.execute("""
        SELECT DISTINCT system FROM responses WHERE ($dataset IS NULL OR dataset = $dataset)
        ORDER BY system""", {"dataset": dataset}).fetchall()
    return [row[0] for row in rows]


def count_rating_targets(con: Connection, *, dataset: str | None,
                         systems: Sequence[str] | None, task_types: Sequence[str]) -> int:
    """How many responses a rating rubric would judge (as `judging.select_rating_targets`)."""
    return con.execute("""
        SELECT count(*) FROM responses r
        JOIN items i ON i.item_id = r.item_id AND i.dataset = r.dataset
        WHERE ($dataset IS NULL OR r.dataset = $dataset)
          AND ($systems IS NULL OR list_contains($systems, r.system))
          AND (len($task_types) = 0 OR list_contains($task_types, i.task_type))""",
        {"dataset": dataset, "systems": list(systems) if systems else None,
         "task_types": list(task_types)}).fetchone()[0]


def count_pair_targets(con: Connection, *, dataset: str | None, system_a: str,
                       system_b: str) -> int:
    """How many items both systems answered (each judged in both orders)."""
    return con.execute("""
        SELECT count(*) FROM responses a
        JOIN responses b ON b.item_id = a.item_id AND b.dataset = a.dataset
        WHERE a.system = $a AND b.system = $b AND a.response_id <> b.response_id
          AND ($dataset IS NULL OR a.dataset = $dataset)""",
        {"dataset": dataset, "a": system_a, "b": system_b}).fetchone()[0]
