"""Faults of the environment, each reproduced for real: a full disk (a small tmpfs filled to
the last byte), a read-only file or folder (a read-only bind mount), a newer or older schema, a
text file named .duckdb, a damaged file, another program's DuckDB file, and a journal that is
a file or cannot be written. Each gives one line (what happened, what to do) and its exit
status, never a traceback; nothing is half-written and no rating is dropped silently."""

from __future__ import annotations

import gzip
import hashlib
import shutil
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from dashboard.cli import main
from dashboard.store import DiskFull, JournalUnusable, ReadOnlyDatabase, Store
from dashboard.store.errors import (
    BUSY_STATUS,
    DISK_FULL_STATUS,
    JOURNAL_STATUS,
    NOT_A_DATABASE_STATUS,
    READ_ONLY_STATUS,
    SCHEMA_STATUS,
)
from dashboard.store.journal import Batch, read_batches
from dashboard.store.migrations import MIGRATIONS
from dashboard.store.writes import record_row as _row
from dashboard.types import Rating
from tests.conftest import DB_NAME
from tests.paths import REPO_ROOT
from tests.support.filesystems import ROOT, fill, immutable, read_only, small_disk
from tests.support.locks import database_held

# file_store: the DuckDB file's faults (damage, read-only, full disk, journal).
pytestmark = pytest.mark.file_store

NEWER = len(MIGRATIONS) + 1  # a schema version this judgeboard does not know

Cli = Callable[..., tuple[int, str, str]]
SAMPLE_FILE = REPO_ROOT / "data" / "sample" / "eo_rag"
T0 = datetime(2024, 1, 1)
RATER = "fault-tester"


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    """`judgeboard --db DB ARGS...` in this process: (exit status, stdout, stderr)."""

    def run(db: Path, *args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        status = main(["--db", str(db), "--wait", "5", *args])
        out, err = capsys.readouterr()
        return status, out, err

    return run


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _one_line(err: str, command: str) -> str:
    """The error line of `judgeboard COMMAND`, checked to be the only thing on stderr."""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "Error:" not in err.split("error: ", 1)[1], err
    prefix = f"judgeboard {command}: error: "
    assert lines[0].startswith(prefix), err
    return lines[0].removeprefix(prefix)


def _rating(response_id: str, rating_id: str = "h1") -> Rating:
    return Rating(
        rating_id, response_id, "human", RATER, "likert-rag", "1", 4.0, 1, 5, created_utc=T0
    )


def _a_response(store: Store) -> str:
    with store.connection() as con:
        row = con.execute("SELECT min(response_id) FROM responses").fetchone()
    assert row is not None and row[0]
    return str(row[0])


def _ours(store: Store) -> int:
    with store.connection() as con:
        row = con.execute("SELECT count(*) FROM ratings WHERE rater = ?", [RATER]).fetchone()
    return int(row[0]) if row else -1


FILES = Path(__file__).parent / "files"


# --- files that are not a judgeboard database -----------------------------------------------


def test_a_text_file_named_duckdb_is_refused_and_left_alone(tmp_path: Path, cli: Cli) -> None:
    db = tmp_path / "notes.duckdb"
    db.write_text("question,answer\nwhat,that\n", encoding="utf-8")
    status, _, err = cli(db, "datasets")
    assert status == NOT_A_DATABASE_STATUS
    assert _one_line(err, "datasets") == (
        f"{db} is not a judgeboard database (it is not a DuckDB file, or its header is "
        "damaged). Pass --db the judgeboard database you meant, or a new file name to start "
        "an empty one."
    )
    assert db.read_text(encoding="utf-8") == "question,answer\nwhat,that\n"


DAMAGED = (
    "{db} is damaged: DuckDB cannot read it (part of the file is missing or overwritten). "
    "Restore it from a backup, or rebuild it from an export (judgeboard import), and pass "
    "--db that file."
)


def _truncate(db: Path) -> None:
    with open(db, "r+b") as handle:
        handle.truncate(db.stat().st_size // 2)


def _overwrite(db: Path) -> None:
    """Every byte after DuckDB's three 4 KB headers replaced."""
    size = db.stat().st_size
    with open(db, "r+b") as handle:
        handle.seek(12288)
        handle.write(b"\x55" * (size - 12288))


@pytest.mark.parametrize("damage", [_truncate, _overwrite], ids=["truncated", "overwritten"])
@pytest.mark.parametrize("command", [["datasets"], ["metrics", "--json"], ["import", "x.jsonl"]])
def test_a_damaged_database_is_one_line(
    sample_store: Store, cli: Cli, damage: Callable[[Path], None], command: list[str]
) -> None:
    damage(sample_store.path)
    args = [str(SAMPLE_FILE) if a == "x.jsonl" else a for a in command]
    status, out, err = cli(sample_store.path, *args)
    assert status == NOT_A_DATABASE_STATUS
    assert _one_line(err, command[0]) == DAMAGED.format(db=sample_store.path)
    assert out == ""


def test_another_programs_duckdb_file_is_not_touched(tmp_path: Path, cli: Cli) -> None:
    other = tmp_path / "theirs.duckdb"
    with Store(other).db.connect() as con:  # a judgeboard file, then made someone else's
        con.execute("CREATE TABLE measurements AS SELECT range AS x FROM range(10)")
        con.execute("DROP VIEW current_ratings")
        con.execute("DROP VIEW current_preferences")
        tables = con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE table_name <> 'measurements'"
        ).fetchall()
        for (table,) in tables:  # every table of judgeboard's schema; no key ties them
            con.execute(f"DROP TABLE {table}")
        con.execute("CHECKPOINT")
    before = _digest(other)
    status, _, err = cli(other, "import", str(SAMPLE_FILE))
    assert status == NOT_A_DATABASE_STATUS
    assert _one_line(err, "import") == (
        f"{other} is a DuckDB database but not judgeboard's (it holds the tables measurements "
        "and no _migrations), so judgeboard leaves it alone. Pass --db the judgeboard database "
        "you meant, or a new file name to start an empty one."
    )
    assert _digest(other) == before


# --- schemas ----------------------------------------------------------------------------------


def test_a_database_of_a_newer_schema_is_refused(sample_store: Store, cli: Cli) -> None:
    with sample_store.connection() as con:
        con.execute("INSERT INTO _migrations VALUES (?, 'from_the_future', now())", [NEWER])
    status, _, err = cli(Path(sample_store.path), "datasets")
    assert status == SCHEMA_STATUS
    assert _one_line(err, "datasets") == (
        f"The database {sample_store.path} was written by a newer judgeboard (schema version "
        f"{NEWER}; this one knows versions up to {NEWER - 1}), so it is not opened. Upgrade "
        "judgeboard (pip install --upgrade judgeboard) to open it, or pass --db another file."
    )


def _make_older(store: Store) -> None:
    """The schema as it was before migration 10 (10, the `superseded` flag; 11, the record of
    imports; 12, the epochs of repeated judging; 13, the judge workbench; 14 and 15, a
    campaign's instructions and tags, which add their columns only where missing)."""
    with store.connection() as con:
        for table, id_column in (("ratings", "rating_id"), ("preferences", "preference_id")):
            con.execute(f"""CREATE OR REPLACE VIEW current_{table} AS SELECT r.* FROM {table} r
                ANTI JOIN {table} s ON s.supersedes = r.{id_column}""")
            con.execute(f"ALTER TABLE {table} DROP COLUMN superseded")
        con.execute("DROP TABLE imports")
        con.execute("DROP TABLE import_rows")
        con.execute("DROP TABLE epoch_ratings")
        con.execute("ALTER TABLE judge_calls DROP COLUMN epoch")
        for table in ("label_splits", "split_assignments", "rubric_versions", "test_looks"):
            con.execute(f"DROP TABLE {table}")
        con.execute("DROP TABLE adoptions")
        con.execute("DELETE FROM _migrations WHERE version >= 10")


def test_a_read_only_database_of_an_older_schema_says_so(sample_store: Store, cli: Cli) -> None:
    _make_older(sample_store)
    with read_only(sample_store.path):
        status, _, err = cli(sample_store.path, "datasets")
    assert status == SCHEMA_STATUS
    assert _one_line(err, "datasets") == (
        f"The database {sample_store.path} is read-only and has an older schema (version 9; "
        f"this judgeboard needs version {len(MIGRATIONS)}), which cannot be upgraded on a "
        "read-only file. Make "
        "it writable once (chmod u+w) and open it to upgrade it, or open a writable copy of it."
    )
    # Writable again, it is upgraded on first use.
    status, out, _ = cli(sample_store.path, "datasets")
    assert status == 0 and "eo-rag" in out


# --- read-only files and folders --------------------------------------------------------------

READ_ONLY = (
    "The database {db} is read-only (its file or its folder cannot be written), so this change "
    "was not saved. Browsing, metrics, the report and exports still work; to save changes, make "
    "the file and its folder writable (chmod u+w) or copy the file to a writable folder and "
    "open that copy."
)


@pytest.fixture
def in_own_folder(sample_db_path: Path, tmp_path: Path) -> Store:
    """A copy of the sample database alone in its folder, which can be made read-only."""
    folder = tmp_path / "shelf"
    folder.mkdir()
    shutil.copyfile(sample_db_path, folder / DB_NAME)
    return Store(folder / DB_NAME, wait_s=5)


@pytest.mark.parametrize("what", ["file", "folder", "immutable file"])
def test_a_read_only_database_is_browsed_reported_and_exported(
    in_own_folder: Store, tmp_path: Path, cli: Cli, what: str
) -> None:
    db = in_own_folder.path
    out_dir = tmp_path / "out"
    made_read_only = {"file": read_only(db), "folder": read_only(db.parent)}.get(what)
    with made_read_only or immutable(db):
        status, out, err = cli(db, "datasets")
        assert (status, err) == (0, "") and "eo-rag" in out
        status, out, err = cli(db, "metrics", "--json")
        assert (status, err) == (0, "") and '"systems"' in out
        status, out, err = cli(db, "report", "--out", str(out_dir / "report.html"))
        assert (status, err) == (0, "") and (out_dir / "report.html").stat().st_size > 0
        status, out, err = cli(db, "export", "--out", str(out_dir / "all.csv"))
        assert (status, err) == (0, "") and (out_dir / "all.ratings.csv").stat().st_size > 0
        status, out, err = cli(db, "import", str(SAMPLE_FILE), "--dataset", "again")
        assert status == READ_ONLY_STATUS
        assert _one_line(err, "import") == READ_ONLY.format(db=db)
        store = Store(db, wait_s=5)
        response = _a_response(store)
        with pytest.raises(ReadOnlyDatabase) as raised:
            store.add_ratings([_rating(response)])
        assert str(raised.value) == READ_ONLY.format(db=db)
        assert store.read_only
    assert not Store(db).spool.directory.exists()  # nothing was kept to be lost later


def test_a_new_database_in_a_read_only_folder(tmp_path: Path, cli: Cli) -> None:
    folder = tmp_path / "shelf"
    folder.mkdir()
    db = folder / "new.duckdb"
    reason = "its folder is read-only" if ROOT else "permission denied"
    with read_only(folder):
        status, _, err = cli(db, "datasets")
    assert status == READ_ONLY_STATUS
    assert _one_line(err, "datasets") == (
        f"Cannot create the database {db}: {reason}. Pass --db a file in a folder you can "
        "write to (or set JUDGEBOARD_DB)."
    )


# --- a full disk ------------------------------------------------------------------------------


def disk_full(path: Path, kept: str = "") -> str:
    return (
        f"The disk holding {path} is full, so nothing more could be written{kept}. Free some "
        "space on it, then run the command again."
    )


def test_a_full_disk_is_one_line_and_nothing_is_half_written(tmp_path: Path, cli: Cli) -> None:
    with small_disk(tmp_path / "disk", size_kb=8192) as disk:
        db = disk / DB_NAME
        status, _, err = cli(db, "import", str(SAMPLE_FILE), "--dataset", "first", "--no-score")
        assert (status, err) == (0, "")
        filler = fill(disk)
        status, _, err = cli(db, "import", str(SAMPLE_FILE), "--dataset", "second")
        assert status == DISK_FULL_STATUS
        assert _one_line(err, "import") == disk_full(db)
        store = Store(db, wait_s=5)
        with pytest.raises(DiskFull) as raised:
            store.add_ratings([_rating(_a_response(store))])
        assert str(raised.value) == disk_full(db)
        status, _, err = cli(db, "report", "--out", str(disk / "report.html"))
        assert status == DISK_FULL_STATUS
        assert _one_line(err, "report") == disk_full(disk / "report.html")
        filler.unlink()
        status, out, err = cli(db, "datasets")
        assert (status, err) == (0, "")
        assert "first" in out and "second" not in out  # the failed import left nothing
        assert _ours(store) == 0
        status, _, err = cli(db, "import", str(SAMPLE_FILE), "--dataset", "second")
        assert (status, err) == (0, "")
        store.add_ratings([_rating(_a_response(store))])
        assert _ours(store) == 1


# --- the journal beside the database ---------------------------------------------------------


def journal_unusable(directory: Path, reason: str, consequence: str) -> str:
    return (
        f"The journal folder {directory} {reason}, so {consequence}. It keeps the writes that "
        "cannot reach the database at once: make it a writable folder (move a file of that "
        "name away, or chmod u+w it) and try again."
    )


def test_a_journal_path_that_is_a_file_never_loses_a_rating(sample_store: Store) -> None:
    journal = sample_store.spool.directory
    journal.write_text("someone's notes\n", encoding="utf-8")
    response = _a_response(sample_store)
    # The database is free: the rating goes to it, the journal is not needed.
    assert sample_store.add_ratings([_rating(response, "h1")]).added == 1
    # The database is held: the rating cannot be kept, and says so.
    with database_held(sample_store.path), pytest.raises(JournalUnusable) as raised:
        sample_store.add_ratings([_rating(response, "h2")], wait_s=0.2)
    assert str(raised.value) == journal_unusable(
        journal, "is not a folder (a file has its name)", "this change was not saved"
    )
    assert raised.value.status == JOURNAL_STATUS
    assert _ours(sample_store) == 1  # reads work, and h1 is there
    assert journal.read_text(encoding="utf-8") == "someone's notes\n"


def test_an_unwritable_journal_folder_fails_only_the_write_that_needs_it(
    sample_store: Store,
) -> None:
    response = _a_response(sample_store)
    with database_held(sample_store.path):  # one rating waits in the journal
        pending = sample_store.add_ratings([_rating(response, "h1")], wait_s=0.2).pending
    assert pending is not None and pending.exists()
    journal = sample_store.spool.directory
    reason = "read-only file system" if ROOT else "permission denied"
    with read_only(journal):
        reader = Store(sample_store.path, wait_s=5)  # a fresh process's view
        assert _ours(reader) == 1  # applied for the read; the file cannot go
        assert _ours(reader) == 1 and pending.exists()
        assert reader.add_ratings([_rating(response, "h2")]).added == 1  # the file is free
        with database_held(sample_store.path), pytest.raises(JournalUnusable) as raised:
            reader.add_ratings([_rating(response, "h3")], wait_s=0.2)
        assert str(raised.value) == journal_unusable(
            journal, f"cannot be written ({reason})", "this change was not saved"
        )
        assert _ours(reader) == 2
    # Writable again: the applied file is cleared by the next read, and applies nothing twice.
    assert _ours(Store(sample_store.path)) == 2
    assert not pending.exists()


def test_exit_statuses_are_distinct() -> None:
    statuses = [
        BUSY_STATUS,
        DISK_FULL_STATUS,
        READ_ONLY_STATUS,
        SCHEMA_STATUS,
        NOT_A_DATABASE_STATUS,
        JOURNAL_STATUS,
    ]
    assert len(set(statuses)) == len(statuses)
    assert not {0, 1, 2, 130} & set(statuses)  # success, a failed gate or bad input, usage


def test_the_cli_reports_a_busy_database_in_one_line(sample_store: Store, cli: Cli) -> None:
    with database_held(sample_store.path) as holder:
        status, _, err = cli(sample_store.path, "--wait", "0.3", "datasets")
    assert status == BUSY_STATUS
    assert _one_line(err, "datasets") == (
        f"The database {sample_store.path} is in use by process {holder.pid}; waited 0.3 s. "
        "Let that command finish, or pass a longer wait (--wait SECONDS)."
    )


# --- files beside the database are never written through a link; orphans are set aside --------


def test_a_journal_folder_that_is_a_link_is_never_written_through(
    sample_store: Store, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    sample_store.spool.directory.symlink_to(elsewhere, target_is_directory=True)
    response = _a_response(sample_store)
    with database_held(sample_store.path), pytest.raises(JournalUnusable) as raised:
        sample_store.add_ratings([_rating(response, "h2")], wait_s=0.2)
    assert str(raised.value) == journal_unusable(
        sample_store.spool.directory,
        "is a symbolic link, which judgeboard does not write through",
        "this change was not saved",
    )
    assert list(elsewhere.iterdir()) == []


def test_a_planted_link_in_the_journal_is_never_written_through(
    sample_store: Store, tmp_path: Path
) -> None:
    """The judge runner's journal has a predictable name (`<stem>.<pid>.open`)."""
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    journal = sample_store.spool.journal("judge-run")
    sample_store.spool.directory.mkdir()
    journal.path.symlink_to(target)
    with pytest.raises(OSError, match="Too many levels of symbolic links"):
        journal.open()
    assert target.read_text() == "keep me\n"


def test_a_journal_row_for_an_answer_that_does_not_exist_is_set_aside(
    sample_store: Store,
) -> None:
    response = _a_response(sample_store)
    batches = [
        Batch("ratings", (_row(_rating(response, "kept")), _row(_rating("no-such-answer", "lost"))))
    ]
    pending = sample_store.spool.write(batches)
    assert _ours(sample_store) == 1  # the next opener applies the file: only the real answer's
    with sample_store.connection() as con:
        stored = con.execute("SELECT rating_id FROM ratings WHERE rater = ?", [RATER]).fetchall()
    assert stored == [("kept",)]
    assert not pending.exists()
    aside = pending.with_suffix(".orphans")
    kept = [row["rating_id"] for batch in read_batches(aside) for row in batch.rows]
    assert kept == ["lost"]
    assert _ours(sample_store) == 1  # and it is not applied again


def test_a_file_written_by_duckdb_2_says_so_and_how_to_convert_it(tmp_path: Path, cli: Cli) -> None:
    db = tmp_path / "old.duckdb"
    db.write_bytes(gzip.decompress((FILES / "written-by-duckdb-2.0.1.duckdb.gz").read_bytes()))
    before = db.read_bytes()
    status, _, err = cli(db, "datasets")
    assert status == NOT_A_DATABASE_STATUS
    line = _one_line(err, "datasets")
    assert line.startswith(
        f"{db} was written by DuckDB 2.0.1, whose file format this judgeboard (DuckDB 1.5.5) "
        "cannot read. Convert it once, with the DuckDB that wrote it"
    )
    converted = tmp_path / "old-duckdb1.5.5.duckdb"
    assert "STORAGE_VERSION 'v1.5.5'" in line and f"then pass --db {converted}" in line
    assert db.read_bytes() == before  # left as it was
