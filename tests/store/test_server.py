"""The PostgreSQL store on a real PostgreSQL server (tests/support/postgres.py): the CLI and
`metrics --json` on it, `judgeboard copy` a file to PostgreSQL and back with equal numbers,
concurrent writers from several processes, claims that never hand one call to two processes,
and a clear line when the server cannot be reached."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dashboard.cli import main
from dashboard.store import Store, StoreError, claims
from dashboard.types import Rating
from tests.support.postgres import PostgresServer

T0 = datetime(2026, 12, 6, 12, 0, tzinfo=UTC).replace(tzinfo=None)


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(list(argv))
    return status, out.getvalue()


def _metrics(db: str | Path, dataset: str) -> dict[str, object]:
    status, out = _cli("--db", str(db), "metrics", "--dataset", dataset, "--json")
    assert status == 0, out
    return json.loads(out)


def test_a_file_copied_to_postgres_and_back_gives_the_same_metrics(
    sample_db_path: Path, tmp_path: Path, pg_server: PostgresServer, pg_template: str
) -> None:
    source = tmp_path / "source.duckdb"
    source.write_bytes(sample_db_path.read_bytes())
    url = pg_server.create(pg_template)
    status, out = _cli("copy", str(source), url)
    assert status == 0 and "copied" in out, out
    assert _never_analyzed(url) == [], "the copied tables have statistics at once"
    back = tmp_path / "back.duckdb"
    status, out = _cli("copy", url, str(back))
    assert status == 0, out
    for dataset in ("eo-rag", "eo-mcqa", "eo-hallucination", "eo-conversational"):
        on_file = _metrics(source, dataset)
        assert _metrics(url, dataset) == on_file, dataset
        assert _metrics(back, dataset) == on_file, dataset
    # Every row of every table came across (provenance, superseded rows, judge calls).
    with Store(source).connection() as a, Store(back).connection() as b:
        for table in ("items", "responses", "ratings", "preferences", "judge_calls"):
            query = f"SELECT * FROM {table} ORDER BY ALL"
            assert a.execute(query).fetchall() == b.execute(query).fetchall(), table


def _never_analyzed(url: str) -> list[str]:
    import psycopg

    with psycopg.connect(url) as con:
        rows = con.execute(
            "SELECT relname FROM pg_stat_user_tables WHERE relname = ANY(%s) "
            "AND last_analyze IS NULL AND last_autoanalyze IS NULL",
            [["items", "responses", "ratings", "preferences", "judge_calls"]],
        ).fetchall()
    return [row[0] for row in rows]


def test_copy_refuses_a_target_that_holds_data(
    sample_db_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, target = tmp_path / "a.duckdb", tmp_path / "full.duckdb"
    source.write_bytes(sample_db_path.read_bytes())
    target.write_bytes(sample_db_path.read_bytes())
    before = target.read_bytes()
    assert main(["copy", str(source), str(target)]) == 2
    assert "is not empty" in capsys.readouterr().err
    assert target.read_bytes() == before


def test_the_cli_names_an_unreachable_server_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(["--db", "postgresql://nobody:secret@127.0.0.1:1/none", "datasets"])
    err = capsys.readouterr().err
    assert status != 0
    assert "Cannot use the PostgreSQL database postgresql://nobody@127.0.0.1:1/none" in err
    assert "secret" not in err and "Traceback" not in err


_WRITER = textwrap.dedent(
    """
    import sys
    from datetime import datetime
    from dashboard.store import Store
    from dashboard.types import Rating
    url, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = Store(url)
    for i in range(n):
        store.add_ratings([Rating(
            rating_id=f"{who}-{i}", response_id=f"r{i % 5}", rater_kind="human", rater=who,
            rubric="likert", rubric_version="1", value=float(i % 5 + 1), scale_low=1.0,
            scale_high=5.0, created_utc=datetime(2026, 12, 6, 12, 0, i % 60))])
    store.close()
    print("done")
    """
)


def test_several_processes_write_at_once_and_every_row_lands(pg_url: str) -> None:
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, pg_url, f"p{k}", "40"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(4)
    ]
    for process in writers:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0 and "done" in out, err
    store = Store(pg_url)
    with store.connection() as con:
        rows = con.execute("SELECT rater, count(*) FROM ratings GROUP BY rater").fetchall()
        # Each rater's stream on an answer has one current row (the others superseded).
        current = con.execute(
            "SELECT count(*) FROM current_ratings GROUP BY rater, response_id HAVING count(*) > 1"
        ).fetchall()
    store.close()
    assert dict(rows) == {f"p{k}": 40 for k in range(4)}
    assert current == []


_CLAIMER = textwrap.dedent(
    """
    import sys
    from dashboard.store.claims import Claims
    url, owner = sys.argv[1], sys.argv[2]
    claims = Claims(url, owner, location="test")
    got = []
    while True:
        batch = claims.claim("run-" + owner, 7)
        if not batch:
            break
        got += batch
        claims.finish(batch)
    print("\\n".join(got))
    """
)


def test_claims_give_each_call_to_one_process(pg_url: str) -> None:
    # Three runs offer the same 300 calls; a process each claims until none is free.
    keys = [f"call-{i:04d}" for i in range(300)]
    for k in range(3):
        claims.Claims(pg_url, "planner", location="test").offer(f"run-w{k}", keys)
    claimers = [
        subprocess.Popen(
            [sys.executable, "-c", _CLAIMER, pg_url, f"w{k}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(3)
    ]
    got: list[str] = []
    for process in claimers:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        got += [line for line in out.splitlines() if line]
    assert sorted(got) == keys  # every call once, none twice


def test_a_claim_whose_owner_stopped_is_free_after_its_lease(pg_url: str) -> None:
    dead = claims.Claims(pg_url, "dead", location="test", lease=3600)
    alive = claims.Claims(pg_url, "alive", location="test", lease=3600)
    dead.offer("run-d", ["a", "b", "c"])
    alive.offer("run-a", ["a", "b", "c"])
    alive.offer("run-a", ["a"])  # offered again: still once
    assert dead.claim("run-d", 2) == ["a", "b"]
    assert alive.claim("run-a", 5) == ["c"]  # a and b are held
    assert alive.held_by_others("run-a") == 2
    import psycopg

    with psycopg.connect(pg_url) as con:
        con.execute("UPDATE call_claims SET claimed_utc = claimed_utc - interval '2 hours'")
    alive.renew()  # its own claim (c) starts a new lease; the dead one's stay lapsed
    assert dead.claim("run-d", 5) == ["a", "b"]  # a lapsed claim is free, to its owner too
    with psycopg.connect(pg_url) as con:
        con.execute(
            "UPDATE call_claims SET claimed_utc = claimed_utc - interval '2 hours' "
            "WHERE owner = 'dead'"
        )
    assert alive.claim("run-a", 5) == ["a", "b"]
    alive.finish(["a", "b", "c"])
    assert alive.held_by_others("run-a") == 0 and dead.claim("run-d", 5) == []
    # A call done but not stored ok (it failed) is free again for a run that offers it.
    dead.offer("run-d2", ["a"])
    assert dead.claim("run-d2", 5) == ["a"]
    dead.release(["a"])
    assert alive.claim("run-a", 5) == ["a"]
    dead.close(["run-d", "run-d2"])
    alive.close(["run-a"])


def test_a_store_error_names_the_url_without_its_password(pg_server: PostgresServer) -> None:
    url = pg_server.url("does_not_exist").replace("postgres@", "postgres:hunter2@")
    with pytest.raises(StoreError) as error:
        Store(url).list_datasets()
    assert "hunter2" not in str(error.value) and "does_not_exist" in str(error.value)


def test_ratings_written_on_postgres_read_back_as_written(pg_url: str) -> None:
    store = Store(pg_url)
    rating = Rating(
        rating_id="x1",
        response_id="r1",
        rater_kind="human",
        rater="ana",
        rubric="likert",
        rubric_version="1",
        value=4.0,
        scale_low=1.0,
        scale_high=5.0,
        comment="ok",
        created_utc=T0,
    )
    assert store.add_ratings([rating]).added == 1
    assert store.add_ratings([rating]).added == 0  # an id already stored is skipped
    with store.connection() as con:
        assert con.execute("SELECT rater, value, comment FROM current_ratings").fetchall() == [
            ("ana", 4.0, "ok")
        ]
    store.close()


def _lock_sessions(url: str) -> int:
    """How many sessions of this database, other than the one asking, are open."""
    import psycopg

    from dashboard.settings import libpq_dsn

    with psycopg.connect(libpq_dsn(url), autocommit=True) as con:
        row = con.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_an_advisory_lock_excludes_threads_and_reuses_its_session(pg_url: str) -> None:
    import threading
    import time

    import psycopg

    from dashboard.settings import libpq_dsn

    inside: list[str] = []
    overlaps: list[str] = []

    def hold(who: str) -> None:
        for _ in range(5):
            with claims.advisory_lock(pg_url, "campaign:c", keep=True):
                if inside:
                    overlaps.append(who)
                inside.append(who)
                time.sleep(0.01)
                inside.remove(who)

    threads = [threading.Thread(target=hold, args=(str(n),)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert overlaps == []
    # Saves one after another keep reusing idle sessions: at most a few stay open.
    for _ in range(20):
        with claims.advisory_lock(pg_url, "campaign:c", keep=True):
            pass
    assert 1 <= _lock_sessions(pg_url) <= claims._IDLE_LOCK_SESSIONS
    # A kept session that the server ended (a restart) is replaced, not an error.
    with psycopg.connect(libpq_dsn(pg_url), autocommit=True) as con:
        con.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    with claims.advisory_lock(pg_url, "campaign:c", keep=True):
        pass
    # Closing the store closes the kept sessions: the database is free again.
    claims.close_idle(pg_url)
    assert _lock_sessions(pg_url) == 0
