"""Download buttons for the HTML report (Overview) and the exports (Data).

The files are built only when someone clicks: `st.download_button` runs a callable `data` on
its own thread at click time, so a page that shows the buttons pays nothing for them. The
store is captured before, on the page's thread, since the callable has no Streamlit context.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from dashboard import ui
from dashboard.auth.users import User
from dashboard.export.files import (
    ALL_KINDS,
    FORMATS,
    MIME_TYPES,
    download_name,
    export_bytes,
    export_counts,
)
from dashboard.metrics.output import MetricsRequest
from dashboard.store import Store


def report_file_name(dataset: str | None) -> str:
    return download_name("report", fmt="html", dataset=dataset)


def _report_builder(
    store: Store, request: MetricsRequest, actor: User | None = None
) -> Callable[[], bytes]:
    def build() -> bytes:
        from dashboard.report import build_report  # plotly.js is read only when asked for

        return build_report(store, request, actor=actor).encode("utf-8")

    return build


def _export_builder(
    store: Store,
    kind: str,
    fmt: str,
    dataset: str | None,
    unrated: bool = True,
    actor: User | None = None,
) -> Callable[[], bytes]:
    def build() -> bytes:
        return export_bytes(store, kind, fmt=fmt, dataset=dataset, unrated=unrated, actor=actor)

    return build


def report_download_button(request: MetricsRequest, *, key: str = "jb_report_download") -> None:
    """A button that downloads the HTML report of the page's numbers: its dataset (None: all
    datasets), rubric, panel, pooling and grouping (see `dashboard.report.build_report`)."""
    st.download_button(
        "Download report (HTML)",
        data=_report_builder(ui.get_store(), request, ui.actor()),
        file_name=report_file_name(request.dataset),
        mime="text/html",
        on_click="ignore",
        icon=":material/download:",
        key=key,
        help="One HTML file that opens offline: the summary with intervals, histograms, "
        "calibration, pairwise standings, the worst answers and the methods. The same "
        "numbers as `judgeboard metrics --json`.",
    )


LABELS = {
    "ratings": "Ratings",
    "preferences": "Preferences",
    "responses": "Responses, scores side by side",
}


def export_download_buttons(dataset: str | None, *, key: str = "jb_export") -> None:
    """A format choice, whether to include what nobody rated, and one download button per
    kind (ratings, preferences, and one row per response with its scores side by side)."""
    store = ui.get_store()
    fmt = (
        st.segmented_control("Export format", FORMATS, default=FORMATS[0], key=f"{key}_format")
        or FORMATS[0]
    )
    unrated = st.checkbox(
        "Include answers nobody rated",
        key=f"{key}_unrated",
        help="With it, the ratings file holds every item and response (a row without a "
        "rating for each one nobody rated), so that `judgeboard import` rebuilds them all.",
    )
    counts = ui.cached(export_counts, dataset=dataset, unrated=unrated)
    st.caption(
        "Every rating and preference, current and superseded, with its provenance "
        "(rater, rubric version, created_utc, is_current); ratings carry the "
        "response's effective score. `judgeboard import` reads the ratings and "
        "preferences files back. The responses file has one row per response: each "
        "rater's current score under each rubric (RUBRIC:RATER) and the effective score "
        "(RUBRIC:effective, 0–1), side by side."
    )
    for column, kind in zip(st.columns(len(ALL_KINDS)), ALL_KINDS):
        with column:
            st.download_button(
                f"{LABELS[kind]} ({counts.of(kind):,} rows, {fmt})",
                data=_export_builder(store, kind, fmt, dataset, unrated, ui.actor()),
                file_name=download_name(kind, fmt=fmt, dataset=dataset),
                mime=MIME_TYPES[fmt],
                on_click="ignore",
                icon=":material/download:",
                key=f"{key}_{kind}",
                disabled=counts.of(kind) == 0,
            )
