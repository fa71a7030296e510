"""What an import counts beyond what it adds: the responses that got a reference metric, and
the records of a file that repeat an earlier one exactly."""

from __future__ import annotations

from collections.abc import Sequence

from dashboard.ingest.read_sql import columns_of
from dashboard.metrics.reference import NO_METRIC, VERSION
from dashboard.store.connection import Connection
from dashboard.store.rows import scalar


def referenced_responses(con: Connection, datasets: Sequence[str]) -> int:
    """Responses of these datasets that have a reference-based score (not only the marker
    of a response no reference metric applies to), at the current rules' version."""
    return int(
        scalar(
            con.execute(
                """
                SELECT count(DISTINCT a.response_id) FROM auto_scores a
                JOIN responses r USING (response_id)
                WHERE r.dataset IN (SELECT unnest($datasets::VARCHAR[]))
                  AND a.metric <> $marker AND a.version = $version""",
                {"datasets": list(datasets), "marker": NO_METRIC, "version": VERSION},
            )
        )
    )


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
