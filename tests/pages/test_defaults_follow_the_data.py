"""Defaults and empty sections that follow the data, through AppTest on the sample database:
the Panel box names the default the numbers use, "All datasets" says it pools each system,
the corrected estimates say why they are empty, and "unknown" labels needed is explained."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from tests.pages.helpers import open_page, page_path, texts

OVERVIEW = page_path("overview")
ANNOTATE = page_path("annotate")


def _panel_box_default(app: AppTest) -> str:
    box = app.selectbox(key="jb_panel_overview")
    shown = box.format_func(None)
    assert shown.startswith("default: "), shown
    return shown.removeprefix("default: ")


def _caption_panel(app: AppTest) -> str:
    (caption,) = [c for c in texts(app, "caption") if "Panel: **" in c][:1]
    found = re.search(r"Panel: \*\*([^ *]+)", caption)
    assert found, caption
    return found.group(1)


def test_the_panel_box_default_is_the_captions_panel(app: AppTest) -> None:
    for dataset in ("eo-mcqa", "eo-rag"):
        open_page(app, OVERVIEW, dataset=dataset)
        assert _panel_box_default(app) == _caption_panel(app), dataset


def test_all_datasets_says_it_pools_each_system(app: AppTest) -> None:
    open_page(app, OVERVIEW)
    assert app.selectbox(key="jb_dataset").value == "All datasets"
    assert "pooled" in (app.selectbox(key="jb_dataset").help or "")
    assert any(c.startswith("All datasets: each system is pooled") for c in texts(app, "caption"))
    open_page(app, OVERVIEW, dataset="eo-rag")
    assert not any(c.startswith("All datasets:") for c in texts(app, "caption"))


def _settled(app: AppTest, wanted: str, kind: str) -> list[str]:
    """The page's texts of `kind` once a background read has delivered `wanted`."""
    for _ in range(30):
        found = texts(app, kind)
        if any(wanted in t for t in found):
            return found
        app.run()
    return texts(app, kind)


def test_an_empty_corrected_section_says_why(app: AppTest) -> None:
    # eo-mcqa: scored against its references, rated by no judge
    open_page(app, OVERVIEW, dataset="eo-mcqa")
    info = _settled(app, "Nothing to correct", "info")
    assert any("no rubric has ratings on this selection" in t for t in info), info


def test_unknown_labels_needed_is_explained(app: AppTest) -> None:
    # the sample's people's labels are of unknown selection: no valid random label yet
    open_page(app, ANNOTATE, dataset="eo-rag", annotator="zoe")
    captions = _settled(app, "Random labels still needed for", "caption")
    (line,) = [c for c in captions if c.startswith("Random labels still needed")]
    assert "unknown" in line and "Unknown: fewer than two random labels" in line
