"""What an import counts beyond what it adds: the records of a file that repeat an earlier one
exactly."""

from __future__ import annotations

from dashboard.ingest.read_sql import columns_of
from dashboard.store.connection import Connection
from dashboard.store.rows import scalar


def exact_duplicates(con: Connection, table: str, *, key: str | None = None) -> int:
    """Rows of a stage equal in every column to an earlier row: the records of a file that
    repeat one exactly. Such rows share `key` (SQL over the stage's ids), so when every key
    is distinct nothing else is compared."""
    if key is not None:
        unique = scalar(con.execute(f"SELECT count(*) = count(DISTINCT {key}) FROM {table}"))
        if unique is True:
            return 0
    listed = ", ".join(sorted(columns_of(con, table)))
    return int(
        scalar(
            con.execute(
                f"SELECT (SELECT count(*) FROM {table}) - "
                f"(SELECT count(*) FROM (SELECT DISTINCT {listed} FROM {table}))"
            )
        )
    )
