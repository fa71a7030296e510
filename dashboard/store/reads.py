"""Reads of the database core that every feature shares: the datasets, their names and systems,
and the fingerprint that cached reads are keyed on. Feature queries live with their feature."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from dashboard.store.connection import Connection
from dashboard.store.rows import fetch
from dashboard.types import DatasetSummary


class Fingerprint(NamedTuple):
    """Row counts and newest `created_utc` of the tables; a tuple, so that it can join the
    key of a cached read."""

    n_datasets: int
    newest_dataset_utc: datetime | None
    n_items: int
    newest_item_utc: datetime | None
    n_responses: int
    newest_response_utc: datetime | None
    n_ratings: int
    newest_rating_utc: datetime | None
    n_preferences: int
    newest_preference_utc: datetime | None
    n_judge_calls: int
    n_auto_scores: int
    n_reference_rules: int  # a rule change rescores in place: the counts above stay
    n_probes: int = 0
    n_anchors: int = 0
    # The judge workbench's records (migration 13): a saved version, a split, a look or an
    # adoption changes what the Judge lab and the panel show.
    n_workbench: int = 0
    # A new campaign changes no label: without these the Campaigns page kept its cached
    # "No campaign yet." until someone labelled.
    n_campaigns: int = 0
    newest_campaign_utc: datetime | None = None
    campaign_texts: int | None = None  # an edit of instructions changes no count
    # A PostgreSQL store's count of the statements that changed its large tables (in place of
    # their row counts and newest timestamps: `store/changes.py`); 0 on a file.
    changes: int = 0
    # Writes that move no count above: an assignment or a reassignment (Campaigns page), an
    # answer a rule adds, a person skips or an admin removes, and a corrected reference
    # (which rescores EM and F1 in place). Without these a page kept its cached reads until
    # someone labelled. Separate counts: a removal drops an item and adds a removal.
    n_campaign_items: int = 0
    n_campaign_assignments: int = 0
    n_campaign_removals: int = 0
    n_reference_edits: int = 0


def list_datasets(con: Connection) -> list[DatasetSummary]:
    """Every dataset with its counts of items, responses, ratings and preferences."""
    cursor = con.execute("""
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
        SELECT d.name, coalesce(i.n, 0) AS n_items, coalesce(r.n, 0) AS n_responses,
               coalesce(g.n, 0) AS n_ratings, coalesce(p.n, 0) AS n_preferences,
               coalesce(i.tasks, []) AS task_types, coalesce(r.systems, []) AS systems
        FROM datasets d
        LEFT JOIN item_counts i ON i.dataset = d.name
        LEFT JOIN response_counts r ON r.dataset = d.name
        LEFT JOIN rating_counts g ON g.dataset = d.name
        LEFT JOIN preference_counts p ON p.dataset = d.name
        ORDER BY d.name""")
    return fetch(cursor, DatasetSummary, convert={"task_types": tuple, "systems": tuple})


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


# The fingerprint's columns that both stores compute alike (counts of small tables; PostgreSQL
# runs this SQL too), `{texts}` being each one's digest of the campaigns' texts. The columns
# are read by name, so each store's query puts its own columns of the large tables first.
FINGERPRINT_SHARED = """
           (SELECT count(*) FROM datasets) AS n_datasets,
           (SELECT max(created_utc) FROM datasets) AS newest_dataset_utc,
           (SELECT count(*) FROM reference_rules) AS n_reference_rules,
           (SELECT count(*) FROM probes) AS n_probes,
           (SELECT count(*) FROM anchors) AS n_anchors,
           (SELECT count(*) FROM rubric_versions) + (SELECT count(*) FROM label_splits)
           + (SELECT count(*) FROM split_assignments) + (SELECT count(*) FROM test_looks)
           + (SELECT count(*) FROM adoptions) AS n_workbench,
           (SELECT count(*) FROM campaigns) AS n_campaigns,
           (SELECT max(created_utc) FROM campaigns) AS newest_campaign_utc,
           ({texts}) AS campaign_texts,
           (SELECT count(*) FROM campaign_items) AS n_campaign_items,
           (SELECT count(*) FROM campaign_assignments) AS n_campaign_assignments,
           (SELECT count(*) FROM campaign_removals) AS n_campaign_removals,
           (SELECT count(*) FROM reference_edits) AS n_reference_edits"""
# A file's query: the large tables' row counts and newest timestamps too (milliseconds in
# DuckDB; a PostgreSQL store reads change counts instead, `changes.py`).
FINGERPRINT_SQL = (
    """
    SELECT (SELECT count(*) FROM items) AS n_items,
           (SELECT max(created_utc) FROM items) AS newest_item_utc,
           (SELECT count(*) FROM responses) AS n_responses,
           (SELECT max(created_utc) FROM responses) AS newest_response_utc,
           (SELECT count(*) FROM ratings) AS n_ratings,
           (SELECT max(created_utc) FROM ratings) AS newest_rating_utc,
           (SELECT count(*) FROM preferences) AS n_preferences,
           (SELECT max(created_utc) FROM preferences) AS newest_preference_utc,
           (SELECT count(*) FROM judge_calls) AS n_judge_calls,
           (SELECT count(*) FROM auto_scores) AS n_auto_scores,"""
    + FINGERPRINT_SHARED
)
_TEXT = "coalesce(instructions, '') || '|' || coalesce(point_notes, '')"
# DuckDB's digest: a sum of hashes. PostgreSQL's (server.py runs it there): the first 15 hex
# digits of an md5 over the texts in name order, as a number like DuckDB's.
DUCKDB_TEXTS = f"SELECT sum(hash({_TEXT})) FROM campaigns"
POSTGRES_TEXTS = (
    f"SELECT ('x' || substr(md5(string_agg({_TEXT}, '/' ORDER BY name)), 1, 15))::bit(60)::bigint"
    " FROM campaigns"
)


def fingerprint(con: Connection) -> Fingerprint:
    """Row counts and newest timestamps of every table: they change whenever anything is
    written or deleted (a delete followed by an import of the same size still moves the
    newest `created_utc`), so a cached read keyed on them is never stale."""
    cursor = con.execute(FINGERPRINT_SQL.format(texts=DUCKDB_TEXTS))
    (found,) = fetch(cursor, Fingerprint)  # subqueries only: always one row
    return found
