"""Beside the Annotate queue's random order: how many more random labels each system's
corrected score needs (the numbers `metrics.corrected.labels_needed` computes)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from dashboard.metrics import corrected
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from dashboard.ui import md_escape
from tests.pages.helpers import open_page, page_path, texts

PAGE = page_path("annotate")
RUBRIC = "likert-rag"


def _line(app: AppTest) -> str:
    found = [t for t in texts(app, "caption") if t.startswith("Random labels still needed")]
    assert len(found) == 1, texts(app, "caption")
    return found[0]


def test_the_random_order_shows_the_labels_each_system_needs(
    app: AppTest, sample_store: Store
) -> None:
    with sample_store.connection() as con:  # the sample's labels, as a uniform random sample
        con.execute("UPDATE ratings SET selection = 'random' WHERE rater_kind = 'human'")
    open_page(app, PAGE, dataset="eo-rag", annotator="zoe")
    assert not app.exception
    needed = corrected.labels_needed(sample_store, Selection("eo-rag", RUBRIC))
    assert any(n.n_valid_labels and n.labels_needed is not None for n in needed)
    line = _line(app)
    for n in needed:
        shown = "unknown" if n.labels_needed is None else n.labels_needed
        assert f"{md_escape(n.system)} {shown} (has {n.n_valid_labels})" in line


def test_a_targeted_order_shows_no_such_line(app: AppTest) -> None:
    open_page(app, PAGE, dataset="eo-rag", annotator="zoe")
    assert _line(app)
    app.selectbox(key="annotate_order").set_value("worst").run()
    assert not [t for t in texts(app, "caption") if t.startswith("Random labels still needed")]
