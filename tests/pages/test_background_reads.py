"""On a large database the Overview's judge-corrected section is read in the background: the
rest of the page shows at once with a line saying it is on its way, and the next run shows it.
The sample stands in for a large database by lowering `ui.session.LARGE_DATABASE`; the one
background worker is kept busy by a job of the test's own until the test lets it go."""

from __future__ import annotations

import threading

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.ui import session
from tests.pages.helpers import open_page, page_path, texts

PAGE = page_path("overview")
WAITING = "Computing the judge-corrected estimates and the paired comparisons…"


def _has_corrected_table(app: AppTest) -> bool:
    return any("judge-only" in frame.value.columns for frame in app.dataframe)


def test_a_large_database_shows_the_page_first_and_the_estimates_next(
    app: AppTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session, "LARGE_DATABASE", 0)
    release = threading.Event()
    pool, _, _ = session._background()
    busy = pool.submit(release.wait, 60)
    try:
        open_page(app, PAGE, dataset="eo-rag")
        assert not app.exception
        assert WAITING in texts(app, "info")
        assert not _has_corrected_table(app)
        assert app.dataframe  # the rest of the Overview did not wait
    finally:
        release.set()
        busy.result(timeout=60)
    for _ in range(60):  # the read now runs; a later run of the page shows it
        app.run()
        if _has_corrected_table(app):
            break
    assert not app.exception
    assert WAITING not in texts(app, "info")
    assert _has_corrected_table(app)
