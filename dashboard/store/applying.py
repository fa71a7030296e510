"""Applying one spool (journal) file to the database: its rows in one transaction, rows that
name an answer no longer there kept aside, a file that cannot be applied moved aside.

`Store.apply_pending` takes the files in turn (`Spool.ready_files`, one process at a time per
file); this module applies one it has taken.
"""

from __future__ import annotations

import logging
from pathlib import Path

from dashboard.store import writes
from dashboard.store.connection import Connection, DatabaseError, transaction
from dashboard.store.errors import fault_of
from dashboard.store.journal import Batch, Row, Spool, group_rows, read_batches

log = logging.getLogger(__name__)

# The order in which spooled tables are applied: calls before the ratings that cite them.
APPLY_ORDER = (
    "judge_calls",
    "ratings",
    "preferences",
    "probes",
    "anchors",
    "epoch_ratings",
    "tag_labels",
)


def apply_file(con: Connection, path: Path, *, db_path: Path, stuck: set[Path]) -> int:
    """Apply one spool file in one transaction; how many rows were new. A file whose rows
    cannot be applied is moved aside as `.failed` (and logged) so that it never blocks the
    database for everyone; a fault of the environment (a full disk) leaves it for a later
    try. A file applied whose removal was refused joins `stuck` (never applied again)."""
    if path in stuck:
        return 0
    try:
        grouped = group_rows(read_batches(path))
    except FileNotFoundError:
        return 0  # applied by another store object of this process
    except (OSError, ValueError, KeyError, TypeError) as error:
        _set_aside(path, error)
        return 0
    try:
        with transaction(con):
            kept, orphans = writes.split_orphans(con, grouped)
            added = sum(
                writes.insert_rows(con, table, kept.get(table, [])) for table in APPLY_ORDER
            )
            if orphans:
                _keep_orphans(path, orphans)
    except (DatabaseError, ValueError, KeyError, TypeError) as error:
        fault = fault_of(error, db_path)
        if fault is not None:
            raise fault from error
        _set_aside(path, error)
        return 0
    try:
        path.unlink(missing_ok=True)
    except OSError as error:
        log.warning("applied %s but cannot remove it (%s); it is kept", path, error)
        stuck.add(path)
    return added


def _keep_orphans(path: Path, orphans: dict[str, list[Row]]) -> None:
    """Rows naming an answer the database no longer has are not inserted (an orphan would
    count in no metric and confuse every later read): they are kept beside the journal
    file as `<name>.orphans` (never applied again), and logged."""
    aside = path.with_suffix(".orphans")
    n = sum(map(len, orphans.values()))
    Spool(path.parent).write_aside(aside, [Batch(t, tuple(r)) for t, r in orphans.items()])
    log.warning(
        "%s: %d row(s) name answers that are not in the database; kept in %s", path, n, aside
    )


def _set_aside(path: Path, error: BaseException) -> None:
    log.error("cannot apply pending writes from %s: %s; moved aside as .failed", path, error)
    try:
        path.rename(path.with_suffix(".failed"))
    except OSError as rename_error:
        log.error("cannot move %s aside either: %s", path, rename_error)
