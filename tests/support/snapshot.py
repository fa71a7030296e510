"""Everything a database holds, to show that a refused action changed nothing."""

from __future__ import annotations

from dashboard.store import Store


def table_rows(store: Store) -> dict[str, list[tuple]]:
    """Every table's rows, sorted (the order of a scan is not part of the data); on a
    PostgreSQL store, the tables of its own schema, not the server's catalog."""
    with store.connection() as con:
        names = [
            str(r[0])
            for r in con.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_type = 'BASE TABLE' AND table_catalog = current_database() "
                "AND table_schema = current_schema() ORDER BY table_name"
            ).fetchall()
        ]
        return {
            name: sorted(con.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)
            for name in names
        }
