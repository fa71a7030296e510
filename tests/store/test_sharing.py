"""Sharing the file with other processes while the dashboard reads: a page run keeps one
open database (`Store.kept_open`), and a judge run's closed journals are its own to merge."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from dashboard.store import Store
from dashboard.store.errors import BUSY_STATUS
from dashboard.store.journal import Batch
from dashboard.store.writes import record_row
from dashboard.types import Rating
from tests.paths import REPO_ROOT
from tests.support.locks import database_held

# file_store: sharing the DuckDB file between processes, and its journals; not run on PostgreSQL.
pytestmark = pytest.mark.file_store

T0 = datetime(2024, 1, 1)
ENTRY = "import sys; from dashboard.cli import main; sys.exit(main())"


def _other_process_reads(db: Path) -> int:
    """`judgeboard datasets` in another process, waiting 0.3 s for the file: its status."""
    command = [sys.executable, "-c", ENTRY, "--db", str(db), "--wait", "0.3", "datasets"]
    return subprocess.run(command, cwd=REPO_ROOT, capture_output=True, check=False).returncode


def test_a_kept_open_block_holds_the_file_from_its_first_read_to_its_end(
    sample_store: Store,
) -> None:
    with sample_store.kept_open():
        assert _other_process_reads(sample_store.path) == 0  # nothing read yet: nothing held
        names = sample_store.dataset_names()
        assert _other_process_reads(sample_store.path) == BUSY_STATUS
        assert sample_store.dataset_names() == names  # later reads share the open file
        sample_store.let_go()  # before a long wait inside the block
        assert _other_process_reads(sample_store.path) == 0
        assert sample_store.list_datasets()
        assert _other_process_reads(sample_store.path) == BUSY_STATUS
    assert _other_process_reads(sample_store.path) == 0


def _journal_of(store: Store, pid: int, rating_id: str) -> Path:
    """A closed journal file as a judge run of process `pid` hands it over."""
    with store.connection() as con:
        (response_id,) = con.execute("SELECT min(response_id) FROM responses").fetchone() or ("",)
    rating = Rating(
        rating_id, response_id, "llm", "j-live", "likert-rag", "1", 3.0, 1, 5, created_utc=T0
    )
    written = store.spool.write([Batch("ratings", (record_row(rating),))])
    return written.rename(written.with_name(f"run-test-0123abcd.{pid}.jsonl"))


def _rated(store: Store) -> int:
    with store.connection() as con:
        row = con.execute("SELECT count(*) FROM ratings WHERE rater = 'j-live'").fetchone()
    return int(row[0]) if row else -1


def test_a_running_writers_journal_is_merged_by_it_not_by_readers(sample_store: Store) -> None:
    writer = subprocess.Popen([sys.executable, "-c", "input()"], stdin=subprocess.PIPE, text=True)
    try:
        journal = _journal_of(sample_store, writer.pid, "live-1")
        assert _rated(sample_store) == 0 and journal.exists()  # a read leaves it
        assert sample_store.apply_pending() == 1  # a merge (the writer's own) applies it
        assert _rated(sample_store) == 1 and not journal.exists()
        journal = _journal_of(sample_store, writer.pid, "live-2")
    finally:
        writer.communicate("\n", timeout=30)
    assert _rated(sample_store) == 2 and not journal.exists()  # its writer is gone: anyone's


def test_a_dashboard_save_that_cannot_get_the_file_is_journaled_within_half_a_second(
    sample_store: Store,
) -> None:
    """The dashboard's store waits `ui.SPOOL_WAIT_S` for the file, then keeps the save in the
    journal: the person reads "saved, applied when the file is free" at once, not after the
    10 s it waits for a read."""
    from dashboard.ui import SPOOL_WAIT_S, WAIT_S

    store = Store(sample_store.path, wait_s=WAIT_S, spool_wait_s=SPOOL_WAIT_S)
    with store.connection() as con:
        (response_id,) = con.execute("SELECT min(response_id) FROM responses").fetchone() or ("",)
    rating = Rating(
        "held-1", response_id, "human", "zoe", "likert-rag", "1", 2.0, 1, 5, created_utc=T0
    )
    with database_held(store.path):
        started = time.perf_counter()
        result = store.add_ratings([rating])
        elapsed = time.perf_counter() - started
    assert result.added == 0 and result.pending is not None and result.pending.exists()
    assert elapsed < 0.5, elapsed
    assert _rated_by(store, "zoe") == 1  # applied by the next connection


def _rated_by(store: Store, rater: str) -> int:
    with store.connection() as con:
        row = con.execute("SELECT count(*) FROM ratings WHERE rater = ?", [rater]).fetchone()
    return int(row[0]) if row else -1
