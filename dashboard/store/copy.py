"""`judgeboard copy`: a whole store into another, a DuckDB file to PostgreSQL and back.

Every table of the schema is copied as it is (items, responses, ratings and preferences with
their provenance and superseded rows, judge calls, campaigns and their holds, the workbench's
records, ...), in one transaction of the target: a copy that fails leaves the target as it
was. The target must be empty; both are migrated to this judgeboard's schema first, so their
tables are the same. Each table streams in Arrow batches, so memory stays bounded. A
PostgreSQL target is analyzed at the end, so that its first reads are planned on its rows'
statistics rather than before autovacuum has come round to them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dashboard.store import Store, StoreError, keys, transaction
from dashboard.store.connection import Connection
from dashboard.store.migrations_late import ACCOUNT_TABLES

# Bookkeeping that is not data: the schema's versions and views (the target has its own), and
# the claims of judge runs on a server (`claims.py`), which belong to runs, not to the data,
# the sign-in accounts of a PostgreSQL store (`accounts.py`), which belong to a deployment,
# and its change counts (`changes.py`), which the target's own writes make.
_NOT_COPIED = frozenset(
    {"_migrations", "_duckdb_views", "call_claims", "call_offers", "judge_claims", "store_changes"}
) | frozenset(ACCOUNT_TABLES)
_BATCH_ROWS = 50_000


class CopyError(StoreError):
    """A copy refused before anything was written."""


@dataclass(frozen=True)
class Copied:
    tables: dict[str, int]  # rows copied, by table

    @property
    def rows(self) -> int:
        return sum(self.tables.values())


def data_tables(con: Connection) -> list[str]:
    """The store's tables of data, by name."""
    rows = con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = current_schema() AND NOT temporary ORDER BY table_name"
    ).fetchall()
    return [row[0] for row in rows if row[0] not in _NOT_COPIED]


def copy_store(
    source: Store, target: Store, *, on_table: Callable[[str, int], None] | None = None
) -> Copied:
    """Copy every table of `source` into the empty `target`, all or nothing."""
    if source.url == target.url:
        raise CopyError(f"the source and the target are the same store ({source.location})")
    copied: dict[str, int] = {}
    with source.connection() as src, target.write_lock, target.connection() as dst:
        tables = data_tables(src)
        missing = sorted(set(tables) - set(data_tables(dst)))
        if missing:
            raise CopyError(
                f"{target.location} has no table {', '.join(missing)}: it is not judgeboard's "
                "store of this version"
            )
        held = [t for t in tables if dst.execute(f"SELECT count(*) FROM {t}").fetchone() != (0,)]
        if held:
            raise CopyError(
                f"{target.location} is not empty (it holds rows in {', '.join(held[:5])}); "
                "copy into a new file or an empty PostgreSQL database, nothing was written"
            )
        with transaction(dst):
            for table in tables:
                reader = src.execute(f"SELECT * FROM {table}").to_arrow_reader(_BATCH_ROWS)
                dst.register("_copied", reader)
                try:
                    dst.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _copied")
                finally:
                    dst.unregister("_copied")
                row = dst.execute(f"SELECT count(*) FROM {table}").fetchone()
                copied[table] = int(row[0]) if row else 0
                if on_table is not None:
                    on_table(table, copied[table])
        if keys.on_server(dst):
            dst.execute("CALL postgres_execute(?, 'ANALYZE')", [keys.ALIAS])
    return Copied(copied)
