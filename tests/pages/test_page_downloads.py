"""The report download on Overview and the export downloads on Data.

The files are built when the button is pressed, not when the page runs: the button carries a
deferred file, and the browser's click asks the server to run its builder. AppTest's stand-in
runtime is dropped after each run, so the test keeps its media file manager and presses the
button the way the browser does (`execute_deferred`).
"""

from __future__ import annotations

import csv
import io

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest, app_test

from dashboard.export.files import export_counts
from dashboard.store import Store
from tests.pages.helpers import open_page, page_path


@pytest.fixture
def media(monkeypatch: pytest.MonkeyPatch) -> list[MediaFileManager]:
    """The media file managers of the AppTest runs, newest last."""
    kept: list[MediaFileManager] = []

    class Kept(MediaFileManager):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)
            kept.append(self)

    monkeypatch.setattr(app_test, "MediaFileManager", Kept)
    return kept


def _buttons(app: AppTest) -> dict[str, object]:
    return {b.proto.label: b.proto for b in app.get("download_button")}


def _press(media: list[MediaFileManager], button: object) -> bytes:
    """What the browser downloads when the button is clicked."""
    assert button.deferred_file_id and not button.url  # nothing was built by the page run
    manager = media[-1]
    url = manager.execute_deferred(button.deferred_file_id)
    file_id = url.rsplit("/", 1)[-1].split(".", 1)[0]
    return manager.read_file(file_id).content


def _rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


def test_overview_offers_the_report_built_on_press(app_for, judged_store: Store, media) -> None:
    app = open_page(app_for(judged_store), page_path("overview"), dataset="eo-rag")
    button = _buttons(app)["Download report (HTML)"]
    html = _press(media, button).decode("utf-8")
    assert html.startswith("<!DOCTYPE html>") and "judgeboard report: eo-rag" in html


def test_data_offers_the_exports_built_on_press(app_for, judged_store: Store, media) -> None:
    app = open_page(app_for(judged_store), page_path("data"), dataset="eo-rag")
    counts = export_counts(judged_store, dataset="eo-rag")
    buttons = _buttons(app)
    ratings = _rows(_press(media, buttons[f"Ratings ({counts.ratings:,} rows, csv)"]))
    assert len(ratings) == counts.ratings and {"rater", "rubric_version"} <= set(ratings[0])
    preferences = _press(media, buttons[f"Preferences ({counts.preferences:,} rows, csv)"])
    assert len(_rows(preferences)) == counts.preferences
    # Another format: the same rows as JSON lines.
    app.get("button_group")[0].set_value("jsonl").run()
    jsonl = _buttons(app)[f"Ratings ({counts.ratings:,} rows, jsonl)"]
    assert _press(media, jsonl).count(b"\n") == counts.ratings


def test_the_data_page_leaves_out_what_nobody_rated_unless_asked(app):
    from tests.pages.helpers import open_page, page_path

    open_page(app, page_path("data"), dataset="eo-mcqa")
    labels = [b.proto.label for b in app.get("download_button")]
    assert "Ratings (0 rows, csv)" in labels  # nobody rated eo-mcqa's answers
    assert "Responses, scores side by side (0 rows, csv)" in labels
    app.checkbox(key="jb_export_unrated").check().run()
    labels = [b.proto.label for b in app.get("download_button")]
    assert "Ratings (36 rows, csv)" in labels
    assert "Responses, scores side by side (36 rows, csv)" in labels
