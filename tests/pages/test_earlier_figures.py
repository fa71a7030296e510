"""On a large database that another process changes (a judge run merging every 1.5 s, an
import), a page shows the figures of a moment ago at once, says so, and reads them again in
the background; the next run shows the new ones. A person's own write is always read fresh.
The sample stands in for a large database by lowering `ui.session.LARGE_DATABASE`."""

from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.store import Store
from dashboard.types import Response
from dashboard.ui import earlier, session
from tests import builders
from tests.pages.helpers import open_page, page_path, texts

DATA = page_path("data")
NOTE = "Some figures are as of"


def _ratings_of(app: AppTest, dataset: str) -> int:
    return int(app.dataframe[0].value.set_index("dataset").loc[dataset, "ratings"])


def _judged(store: Store, n: int) -> None:
    """A judge run elsewhere adds `n` ratings to eo-rag (not through this session)."""
    with store.connection() as con:
        rows = con.execute(
            "SELECT response_id, item_id, system FROM responses WHERE dataset = 'eo-rag' "
            "ORDER BY response_id LIMIT ?",
            [n],
        ).fetchall()
    responses = [Response(rid, item, "eo-rag", system, "an answer") for rid, item, system in rows]
    store.add_ratings([builders.rating(r, "j-later", 4) for r in responses])


def _background_done() -> None:
    deadline = time.monotonic() + 60
    while earlier.running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert earlier.running() == 0


@pytest.fixture(autouse=True)
def _large(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session, "LARGE_DATABASE", 0)
    earlier.forget()


def test_a_changing_large_database_shows_earlier_figures_then_the_new_ones(
    app: AppTest, sample_store: Store
) -> None:
    open_page(app, DATA)
    before = _ratings_of(app, "eo-rag")
    assert not any(NOTE in c for c in texts(app, "caption"))
    _judged(sample_store, 3)
    app.run()
    assert not app.exception
    assert _ratings_of(app, "eo-rag") == before  # at once, the figures of a moment ago
    assert any(NOTE in c for c in texts(app, "caption"))
    _background_done()
    app.run()
    assert _ratings_of(app, "eo-rag") == before + 3
    assert not any(NOTE in c for c in texts(app, "caption"))


def test_a_read_never_made_before_is_made_at_once(app: AppTest, sample_store: Store) -> None:
    _judged(sample_store, 2)
    open_page(app, DATA)
    assert not any(NOTE in c for c in texts(app, "caption"))
    with sample_store.connection() as con:
        stored = con.execute(
            "SELECT count(*) FROM ratings g JOIN responses r USING (response_id) "
            "WHERE r.dataset = 'eo-rag'"
        ).fetchone()
    assert stored is not None and _ratings_of(app, "eo-rag") == stored[0]


def test_a_persons_own_labels_show_at_once(app: AppTest) -> None:
    open_page(app, page_path("annotate"), dataset="eo-rag", annotator="zoe")
    for n in (1, 2):
        radio = next(w for w in app.radio if (w.key or "").startswith("annotate_value_"))
        radio.set_value(radio.options[0])
        next(b for b in app.button if (b.key or "").startswith("annotate_save_")).click().run()
        assert not app.exception
        assert not any(NOTE in c for c in texts(app, "caption"))
        mine = app.selectbox(key="annotate_mine_pick")
        assert len(mine.options) == n  # the label just saved is in the list, at once
