"""Reads of the database core that every feature shares: the datasets, their names and systems,
and the fingerprint that cached reads are keyed on. Feature queries live with their feature."""

from __future__ import annotations

from dashboard.store.connection import Connection
from dashboard.types import DatasetSummary


def list_datasets(con: Connection) -> list[DatasetSummary]:
    """Every dataset with its counts of items, responses, ratings and preferences."""
    rows = con.execute("""
        WITH item_counts AS (
            SELECT dataset, count(*) AS n, list(DISTINCT task_type ORDER BY task_type) AS tasks
            FROM items GROUP BY dataset),
        response_counts AS (
            SELECT dataset, count(*) AS n, list(DISTINCT system ORDER BY system) AS systems
            FROM responses GROUP BY dataset),
        rating_counts AS (
            SELECT r.dataset, count(*) AS n
            FROM current_ratings g JOIN responses r USING (response_id) GROUP BY r.dataset),
        preference_counts AS (
            SELECT i.dataset, count(*) AS n
            FROM current_preferences p JOIN items i USING (item_id) GROUP BY i.dataset)
        SELECT d.name, coalesce(i.n, 0), coalesce(r.n, 0), coalesce(g.n, 0), coalesce(p.n, 0),
               coalesce(i.tasks, []), coalesce(r.systems, [])
        FROM datasets d
        LEFT JOIN item_counts i ON i.dataset = d.name
        LEFT JOIN response_counts r ON r.dataset = d.name
        LEFT JOIN rating_counts g ON g.dataset = d.name
        LEFT JOIN preference_counts p ON p.dataset = d.name
        ORDER BY d.name""").fetchall()
    return [
        DatasetSummary(
            name, n_items, n_responses, n_ratings, n_preferences, tuple(tasks), tuple(systems)
        )
        for name, n_items, n_responses, n_ratings, n_preferences, tasks, systems in rows
    ]


def dataset_names(con: Connection) -> list[str]:
    return [row[0] for row in con.execute("SELECT name FROM datasets ORDER BY name").fetchall()]


def dataset_systems(con: Connection, *, dataset: str | None) -> list[str]:
    """The systems that answered in the dataset (None: in any dataset), by name."""
    rows = con.execute(
        """
        SELECT DISTINCT system FROM responses WHERE ($dataset IS NULL OR dataset = $dataset)
        ORDER BY system""",
        {"dataset": dataset},
    ).fetchall()
    return [row[0] for row in rows]


def fingerprint(con: Connection) -> tuple:
    """Row counts and newest timestamps of every table: they change whenever anything is
    written or deleted (a delete followed by an import of the same size still moves the
    newest `created_utc`), so a cached read keyed on them is never stale."""
    return con.execute("""
        SELECT (SELECT count(*) FROM datasets), (SELECT max(created_utc) FROM datasets),
               (SELECT count(*) FROM items), (SELECT max(created_utc) FROM items),
               (SELECT count(*) FROM responses), (SELECT max(created_utc) FROM responses),
               (SELECT count(*) FROM ratings), (SELECT max(created_utc) FROM ratings),
               (SELECT count(*) FROM preferences), (SELECT max(created_utc) FROM preferences),
               (SELECT count(*) FROM judge_calls), (SELECT count(*) FROM auto_scores)""").fetchone()
