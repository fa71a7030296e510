"""Faults of the environment in the dashboard: the page shows the same one line as the CLI
(no traceback, no DuckDB text); a read-only database is browsed; a save that cannot get the
file goes to the journal at once."""

from __future__ import annotations

import html
import re
import shutil

import pytest

from dashboard.store import Store
from dashboard.store.migrations import MIGRATIONS
from dashboard.ui import widgets
from tests.conftest import DB_NAME
from tests.pages.helpers import PAGES, open_page, page_path, texts
from tests.store.test_faults import READ_ONLY, disk_full
from tests.support.filesystems import fill, read_only, small_disk
from tests.support.locks import database_held

# file_store: the DuckDB file's faults on the pages (schema, read-only, disk, lock).
pytestmark = pytest.mark.file_store

NEWER = len(MIGRATIONS) + 1  # a schema version this judgeboard does not know

ANNOTATE = page_path("annotate")


def unescaped(markdown: str) -> str:
    """The text a Markdown string (made by `ui.md_escape`) shows."""
    return html.unescape(re.sub(r"\\(.)", r"\1", markdown))


def _shown_errors(app) -> list[str]:
    return [unescaped(e) for e in texts(app, "error")]


def _keyed(widgets_of_a_kind, prefix: str):
    """The one widget whose key starts with `prefix` (Annotate keys its form by the answer)."""
    (found,) = [w for w in widgets_of_a_kind if (w.key or "").startswith(prefix)]
    return found


def _press_save(app, **run) -> None:
    _keyed(app.button, "annotate_save_").click().run(**run)


def _save_a_rating(app) -> None:
    """Rate the first answer of the queue 2 and save it."""
    _keyed(app.radio, "annotate_value_").set_value(2.0)
    _press_save(app)


def test_a_newer_schema_shows_the_cli_line(app, sample_store):
    with sample_store.connection() as con:
        con.execute("INSERT INTO _migrations VALUES (?, 'from_the_future', now())", [NEWER])
    app.run()
    assert not app.exception
    assert _shown_errors(app) == [
        f"The database {sample_store.path} was written by a newer judgeboard (schema version "
        f"{NEWER}; this one knows versions up to {NEWER - 1}), so it is not opened. Upgrade "
        "judgeboard (pip install --upgrade judgeboard) to open it, or pass --db another file."
    ]


def test_a_read_only_database_is_browsed_and_a_save_says_why_not(app_for, sample_db_path, tmp_path):
    folder = tmp_path / "shelf"
    folder.mkdir()
    shutil.copyfile(sample_db_path, folder / DB_NAME)
    store = Store(folder / DB_NAME)
    with read_only(folder):
        app = app_for(store)
        for page in PAGES:
            open_page(app, page_path(page), dataset="eo-rag", annotator="zoe")
            assert not app.error, (page, texts(app, "error"))
        app.switch_page(ANNOTATE).run()
        _save_a_rating(app)
        assert not app.exception
        assert _shown_errors(app) == [READ_ONLY.format(db=store.path)]


def test_a_save_on_a_full_disk_shows_the_cli_line(app_for, sample_db_path, tmp_path):
    with small_disk(tmp_path / "disk", size_kb=16384) as disk:
        shutil.copyfile(sample_db_path, disk / DB_NAME)
        store = Store(disk / DB_NAME)
        app = open_page(app_for(store), ANNOTATE, dataset="eo-rag", annotator="zoe")
        filler = fill(disk)
        _save_a_rating(app)
        assert not app.exception
        assert _shown_errors(app) == [disk_full(store.path)]
        filler.unlink()


def test_a_save_while_another_process_holds_the_file_goes_to_the_journal_at_once(app, sample_store):
    """With the dashboard's own waits: the old 10 s wait before spooling (and 2 s for the
    fingerprint, on each of the two runs a save makes) cannot pass the run timeout."""
    open_page(app, ANNOTATE, dataset="eo-rag", annotator="zoe")
    with database_held(sample_store.path):
        _keyed(app.radio, "annotate_value_").set_value(2.0)
        _press_save(app, timeout=8)
        assert not app.exception
        assert texts(app, "success") == ["Saved your rating (2) as `zoe`." + widgets.PENDING_NOTE]
        assert "saved, applied when the file is free" in widgets.PENDING_NOTE
        assert len(sample_store.spool.ready_files()) == 1
    with sample_store.connection() as con:  # the next process to open the file applies it
        row = con.execute("SELECT count(*) FROM ratings WHERE rater = 'zoe'").fetchone()
    assert row == (1,)
    assert not sample_store.spool.ready_files()
