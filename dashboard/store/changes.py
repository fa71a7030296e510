"""A PostgreSQL store's change counts: what its fingerprint reads instead of counting rows.

The fingerprint (`reads.fingerprint`) keys every cached read: row counts and newest
`created_utc` of the tables. On a DuckDB file those are milliseconds; on PostgreSQL they are
scans (about 1 s each for 4M ratings), and every page run reads the fingerprint once, so a warm
page on a 1M-response store took 10-25 s.

On PostgreSQL, migration 26 (`m026_change_counts`) gives each large table statement triggers
that count the statements that changed at least one row of it (an INSERT, the COPY that
DuckDB's extension inserts with, an UPDATE, a DELETE, a TRUNCATE) in `store_changes`, one row
per table and server process (`pg_backend_pid()`), so that concurrent writers never wait on
one another's counter. The count is transactional: a write's increment is seen exactly when
its rows are, so a fingerprint read before a commit can never be the one read after it, and
a statement that changed nothing (a refused or empty write) moves nothing.
"""

from __future__ import annotations

from typing import Any

# The tables whose row counts and newest timestamps a scan would cost on a large store.
COUNTED = ("items", "responses", "ratings", "preferences", "judge_calls", "auto_scores")

_TABLE = """
    CREATE TABLE IF NOT EXISTS store_changes (
        table_name  text NOT NULL,
        backend     integer NOT NULL,
        n           bigint NOT NULL,
        PRIMARY KEY (table_name, backend)
    )"""
_BUMP = """
    INSERT INTO store_changes AS c (table_name, backend, n)
    VALUES (TG_TABLE_NAME, pg_backend_pid(), 1)
    ON CONFLICT (table_name, backend) DO UPDATE SET n = c.n + 1"""
_ROWS_FUNCTION = f"""
    CREATE OR REPLACE FUNCTION judgeboard_rows_changed() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        IF EXISTS (SELECT 1 FROM changed) THEN {_BUMP}; END IF;
        RETURN NULL;
    END $$"""
_TRUNCATE_FUNCTION = f"""
    CREATE OR REPLACE FUNCTION judgeboard_truncated() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN {_BUMP}; RETURN NULL; END $$"""
# One trigger per event: a trigger with a transition table has one event.
_EVENTS = (("insert", "INSERT", "NEW"), ("update", "UPDATE", "NEW"), ("delete", "DELETE", "OLD"))


def statements() -> list[str]:
    """PostgreSQL's own SQL that installs the counting (each statement may run again)."""
    found = [_TABLE, _ROWS_FUNCTION, _TRUNCATE_FUNCTION]
    for table in COUNTED:
        for name, event, side in _EVENTS:
            found.append(
                f"CREATE OR REPLACE TRIGGER judgeboard_{name}_counted AFTER {event} ON {table} "
                f"REFERENCING {side} TABLE AS changed "
                "FOR EACH STATEMENT EXECUTE FUNCTION judgeboard_rows_changed()"
            )
        found.append(
            f"CREATE OR REPLACE TRIGGER judgeboard_truncate_counted AFTER TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION judgeboard_truncated()"
        )
    return found


def m026_change_counts(con: Any) -> None:
    # A PostgreSQL store's change counts (this module). A DuckDB file counts its rows in
    # milliseconds and needs none: the migration is recorded there and does nothing.
    on_server = getattr(con, "postgres_execute", None)
    if on_server is None:
        return
    for statement in statements():
        on_server(statement)


def _changes(table: str) -> str:
    return f"(SELECT coalesce(sum(n), 0) FROM store_changes WHERE table_name = '{table}')"


# The fingerprint's columns of the large tables on PostgreSQL (`server.FINGERPRINT_SQL` adds
# the small tables' columns, as on a file: `reads.FINGERPRINT_SHARED`): each large table's
# change count in place of its row count and no newest timestamp (the count moves with every
# write that a new timestamp would show); the number of responses (which picks a large
# database's way of refreshing pages) from PostgreSQL's estimate, exact while the table was
# never analyzed; `changes` sums every count.
LARGE_TABLE_COLUMNS = f"""
    SELECT {_changes("items")} AS n_items,
           NULL::timestamp AS newest_item_utc,
           (SELECT CASE WHEN c.reltuples < 0 THEN (SELECT count(*) FROM responses)
                        ELSE c.reltuples::bigint END
            FROM pg_class c WHERE c.oid = 'responses'::regclass) AS n_responses,
           NULL::timestamp AS newest_response_utc,
           {_changes("ratings")} AS n_ratings,
           NULL::timestamp AS newest_rating_utc,
           {_changes("preferences")} AS n_preferences,
           NULL::timestamp AS newest_preference_utc,
           {_changes("judge_calls")} AS n_judge_calls,
           {_changes("auto_scores")} AS n_auto_scores,
           (SELECT coalesce(sum(n), 0) FROM store_changes) AS changes,"""
