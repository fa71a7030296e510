"""The dashboard's download buttons: placed by the pages, built only when clicked."""

from __future__ import annotations

import streamlit as st
from streamlit.testing.v1 import AppTest

from dashboard.export.files import export_counts
from dashboard.metrics.output import MetricsRequest
from dashboard.ui import downloads


def _page() -> None:
    from dashboard.metrics.output import MetricsRequest
    from dashboard.ui import downloads

    downloads.report_download_button(MetricsRequest(dataset="eo-rag"))
    downloads.export_download_buttons("eo-rag")


def test_buttons_render_with_row_counts(judged_store, monkeypatch):
    monkeypatch.setenv("JUDGEBOARD_DB", judged_store.url)
    st.cache_data.clear()
    at = AppTest.from_function(_page, default_timeout=60).run()
    assert not at.exception
    labels = [b.proto.label for b in at.get("download_button")]
    # what nobody rated is left out unless asked; every eo-rag answer is rated
    counts = export_counts(judged_store, dataset="eo-rag", unrated=False)
    assert counts.ratings == 162  # 120 judge ratings and 42 human labels
    assert counts.responses == 120
    assert labels == [
        "Download report (HTML)",
        f"Ratings ({counts.ratings:,} rows, csv)",
        f"Preferences ({counts.preferences:,} rows, csv)",
        f"Responses, scores side by side ({counts.responses:,} rows, csv)",
    ]


def test_builders_make_the_files(judged_store):
    html = downloads._report_builder(judged_store, MetricsRequest(dataset="eo-rag"))()
    assert html.startswith(b"<!DOCTYPE html>") and b"judgeboard report: eo-rag" in html
    data = downloads._export_builder(judged_store, "ratings", "jsonl", "eo-rag")()
    assert data.count(b"\n") == 162
    assert downloads.report_file_name(None) == "judgeboard-all.report.html"
