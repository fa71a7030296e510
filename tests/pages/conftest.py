"""Fixtures for the page tests: the Streamlit app, run by AppTest on a real store.

`app` runs the app script (`dashboard/app.py`, found as `judgeboard serve` finds it) against
this test's private copy of the sample database (`sample_store`); `app_for(store)` does the
same for any store (e.g. one with PandaLM imported). The database is chosen the way
`judgeboard serve` chooses it: through JUDGEBOARD_DB. Streamlit's data cache lives in the
process; it is cleared first (with `ui.earlier`'s kept results) so that every test starts
cold, as a freshly started server would.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from dashboard.auth import users
from dashboard.store import Store
from dashboard.ui import earlier
from tests.pages.helpers import APP

# Generous: a cold page imports plotly and builds the metrics, and the machine is shared.
TIMEOUT_S = 60


@pytest.fixture
def app_for(monkeypatch: pytest.MonkeyPatch) -> Callable[[Store], AppTest]:
    """A factory: an AppTest of the dashboard on the given store (a file or a PostgreSQL URL)."""

    def make(store: Store) -> AppTest:
        monkeypatch.setenv("JUDGEBOARD_DB", store.url)
        st.cache_data.clear()
        earlier.forget()
        return AppTest.from_file(str(APP), default_timeout=TIMEOUT_S)

    return make


@pytest.fixture
def users_file_for(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Callable[[Store], Path]:
    """A factory: where the users file that turns sign-in on goes for the store's dashboard.
    Beside a database file, where `judgeboard serve` looks; on PostgreSQL, $JUDGEBOARD_USERS
    (replicas share one)."""

    def make(store: Store) -> Path:
        if not store.on_server:
            return store.path.parent / users.USERS_FILE
        path = tmp_path / users.USERS_FILE
        monkeypatch.setenv(users.USERS_ENV, str(path))
        return path

    return make


@pytest.fixture
def app(sample_store: Store, app_for: Callable[[Store], AppTest]) -> AppTest:
    """An AppTest of the dashboard on this test's copy of the sample database (not run yet)."""
    return app_for(sample_store)


@pytest.fixture
def judged_store(sample_store: Store) -> Store:
    """The sample with the offline baseline judge's likert-rag ratings on eo-rag, where
    people rated too (a no-op if the sample already carries them: the calls are cached)."""
    from dashboard.judging import BackgroundLoop, run_judges

    # Its own loop: a session's Playwright (the report tests') may run one on this thread.
    loop = BackgroundLoop(name="page-test-judges")
    try:
        run_judges(sample_store, "offline", "likert-rag", dataset="eo-rag", loop=loop)
    finally:
        loop.close()
    return sample_store
