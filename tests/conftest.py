"""Fixtures the whole suite shares: real DuckDB files in tmp_path, never a mocked store.

- `store`: a fresh, empty `Store` on its own DuckDB file.
- `sample_store`: a `Store` on a private copy of a database holding the bundled sample
  (data/sample, loaded by `dashboard.sample.ensure_sample`). The sample database is built once
  per session and copied for each test, so a test may write to it freely.
- `sample_db_path`: the session's pristine sample database file (do not write to it).
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dashboard.ingest.sample import ensure_sample
from dashboard.store import Store

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


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """An empty store on a new DuckDB file in this test's tmp_path."""
    return Store(tmp_path / DB_NAME, wait_s=TEST_WAIT_S)


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
def sample_store(sample_db_path: Path, tmp_path: Path) -> Store:
    """A store on this test's own copy of the sample database."""
    target = tmp_path / DB_NAME
    shutil.copyfile(sample_db_path, target)
    wal = sample_db_path.with_name(sample_db_path.name + ".wal")
    if wal.exists():
        shutil.copyfile(wal, target.with_name(target.name + ".wal"))
    return Store(target, wait_s=TEST_WAIT_S)
