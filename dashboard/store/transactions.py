"""All or nothing: the one transaction helper, for migrations and every writer."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from dashboard.store.keys import by_key


@contextmanager
def transaction(con: Any) -> Iterator[Any]:
    """Commit at the end of the block, roll back on any exception. A write's reads are
    lookups by key (`keys.by_key`: on a PostgreSQL store, index scans)."""
    with by_key(con):
        con.execute("BEGIN TRANSACTION")
        try:
            yield con
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")
