"""Fixtures the whole suite shares: real DuckDB files in tmp_path, never a mocked store.

- `store`: a fresh, empty `Store` on its own DuckDB file.
- `sample_store`: a `Store` on a private copy of a database holding the bundled sample
  (data/sample, loaded by `dashboard.sample.ensure_sample`). The sample database is built once
  per session and copied for each test, so a test may write to it freely.
- `sample_db_path`: the session's pristine sample database file (do not write to it).

With `JUDGEBOARD_TEST_STORE=postgresql` (`make test-postgres`), `store` and `sample_store` are
PostgreSQL databases on a real server this session starts (tests marked `file_store` excepted).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dashboard.ingest.sample import ensure_sample
from dashboard.store import Store
from tests.support.postgres import PostgresServer

DB_NAME = "judgeboard.duckdb"
# Short enough that a test which holds the file by mistake fails fast, long enough for a
# loaded machine.
TEST_WAIT_S = 30.0


@pytest.fixture(autouse=True)
def _main_module_back() -> Iterator[None]:
    """Put pytest's `__main__` back after each test. Streamlit's script runner (AppTest) makes
    the page script `__main__` and leaves it there; a process started with `spawn` afterwards
    would run that page as its own main module and never reach its target."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


# `JUDGEBOARD_TEST_STORE=postgresql` (`make test-postgres`) puts every `store` and
# `sample_store` of the suite on PostgreSQL, but for tests marked `file_store`.
TEST_STORE_ENV = "JUDGEBOARD_TEST_STORE"
STORE_KINDS = ("duckdb", "postgresql")


def _chosen_store_kind() -> str:
    chosen = os.environ.get(TEST_STORE_ENV, "duckdb").strip().lower() or "duckdb"
    if chosen not in STORE_KINDS:
        raise pytest.UsageError(
            f"{TEST_STORE_ENV}={chosen!r}: use one of {', '.join(STORE_KINDS)} (or leave it unset)"
        )
    return chosen


def pytest_configure(config: pytest.Config) -> None:
    _chosen_store_kind()  # a misspelt JUDGEBOARD_TEST_STORE stops the run before any test


@pytest.fixture
def store_kind(request: pytest.FixtureRequest) -> str:
    """Which store `store` and `sample_store` are: "duckdb" (a file), or "postgresql" where a
    test module asks for both (`BOTH_STORES`) or the run does (`JUDGEBOARD_TEST_STORE`). A
    test marked `file_store` is about the DuckDB file itself and stays on it."""
    if request.node.get_closest_marker("file_store") is not None:
        return "duckdb"
    return _chosen_store_kind()


# Test modules whose `store` and `sample_store` tests run on both stores.
BOTH_STORES = frozenset(
    {
        "tests.store.test_store",
        "tests.store.test_rows",
        "tests.store.test_superseded",
        "tests.store.test_server",
        "tests.metrics.test_both_stores",
        "tests.campaigns.test_campaign_rubric",
    }
)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    uses = {"store", "sample_store"} & set(metafunc.fixturenames)
    file_only = metafunc.definition.get_closest_marker("file_store") is not None
    if uses and metafunc.module.__name__ in BOTH_STORES and not file_only:
        metafunc.parametrize("store_kind", ["duckdb", "postgresql"])


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """A real PostgreSQL server for the session, on a free port of 127.0.0.1."""
    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_template(pg_server: PostgresServer) -> str:
    """The name of a migrated, empty judgeboard database to copy."""
    url = pg_server.create()
    built = Store(url, wait_s=TEST_WAIT_S)
    built.list_datasets()  # migrates
    built.close()
    return url.rsplit("/", 1)[1]


@pytest.fixture(scope="session")
def pg_sample_template(pg_server: PostgresServer, pg_template: str) -> str:
    """The name of a database holding the bundled sample, to copy."""
    url = pg_server.create(pg_template)
    built = Store(url, wait_s=TEST_WAIT_S)
    for _ in ensure_sample(built):
        pass
    built.close()
    return url.rsplit("/", 1)[1]


@pytest.fixture
def pg_url(pg_server: PostgresServer, pg_template: str) -> str:
    """A new, migrated, empty PostgreSQL database of this test."""
    return pg_server.create(pg_template)


@pytest.fixture
def store(tmp_path: Path, store_kind: str, request: pytest.FixtureRequest) -> Iterator[Store]:
    """An empty store: on a new DuckDB file in this test's tmp_path, or (`store_kind`) on a
    new PostgreSQL database."""
    if store_kind == "postgresql":
        made = Store(request.getfixturevalue("pg_url"), wait_s=TEST_WAIT_S)
        yield made
        made.close()
        return
    yield Store(tmp_path / DB_NAME, wait_s=TEST_WAIT_S)


@pytest.fixture(scope="session")
def sample_db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DuckDB file with the bundled sample, built once per test session."""
    path = tmp_path_factory.mktemp("sample-db") / DB_NAME
    built = Store(path, wait_s=TEST_WAIT_S)
    for _ in ensure_sample(built):
        pass
    if not built.list_datasets():
        raise RuntimeError("the bundled sample imported no dataset; check data/sample")
    return path


@pytest.fixture
def sample_store(
    sample_db_path: Path, tmp_path: Path, store_kind: str, request: pytest.FixtureRequest
) -> Iterator[Store]:
    """A store on this test's own copy of the sample database (a file, or with `store_kind`
    a PostgreSQL database)."""
    if store_kind == "postgresql":
        server = request.getfixturevalue("pg_server")
        made = Store(
            server.create(request.getfixturevalue("pg_sample_template")), wait_s=TEST_WAIT_S
        )
        yield made
        made.close()
        return
    target = tmp_path / DB_NAME
    shutil.copyfile(sample_db_path, target)
    wal = sample_db_path.with_name(sample_db_path.name + ".wal")
    if wal.exists():
        shutil.copyfile(wal, target.with_name(target.name + ".wal"))
    yield Store(target, wait_s=TEST_WAIT_S)
