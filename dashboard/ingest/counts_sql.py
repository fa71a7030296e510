"""What an import counts beyond what it adds: the records of a file that repeat an earlier one
exactly, and the ratings or verdicts it holds unscored."""

from __future__ import annotations

from dashboard.ingest.read_sql import columns_of
from dashboard.store.connection import Connection
from dashboard.store.rows import scalar


def unscored(con: Connection, table: str, id_column: str, value_column: str) -> int:
    """The ratings or verdicts of a stage (rows with an id in `id_column`) whose value or
    verdict (`value_column`) is empty, each kept with its `unscored_reason`: an import says
    how many, never drops them. A stage without an unscored_reason (NQ-open's people always
    give a value) holds none."""
    if "unscored_reason" not in columns_of(con, table):
        return 0
    sql = (
        f"SELECT count(DISTINCT {id_column}) FROM {table} "
        f"WHERE {value_column} IS NULL AND {id_column} IS NOT NULL"
    )
    return int(scalar(con.execute(sql)))


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
