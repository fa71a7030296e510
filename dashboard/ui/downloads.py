"""Download buttons for the HTML report (Overview) and the exports (Data).

The files are built only when someone clicks: `st.download_button` runs a callable `data` on
its own thread at click time, so a page that shows the buttons pays nothing for them. The
store is captured before, on the page's thread, since the callable has no Streamlit context.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from dashboard import ui
from dashboard.export.files import (
    FORMATS,
    KINDS,
    MIME_TYPES,
    download_name,
    export_bytes,
    export_counts,
)
from dashboard.store import Store


def report_file_name(dataset: str | None) -> str:
    return download_name("report", fmt="html", dataset=dataset)


def _report_builder(
    store: Store, dataset: str | None, options: dict[str, Any] | None = None
) -> Callable[[], bytes]:
    def build() -> bytes:
        from dashboard.report import build_report  # plotly.js is read only when asked for

        return build_report(store, dataset=dataset, **(options or {})).encode("utf-8")

    return build


def _export_builder(store: Store, kind: str, fmt: str, dataset: str | None) -> Callable[[], bytes]:
    def build() -> bytes:
        return export_bytes(store, kind, fmt=fmt, dataset=dataset)

    return build


def report_download_button(
    dataset: str | None,
    *,
    rubric: str | None = None,
    pool_raters: bool = False,
    by: str | None = None,
    key: str = "jb_report_download",
) -> None:
    """A button that downloads the HTML report of `dataset` (None: all datasets), under the
    page's rubric, pooling and grouping (see `dashboard.report.build_report`)."""
    options = {"rubric": rubric, "pool_raters": pool_raters, "by": by}
    st.download_button(
        "Download report (HTML)",
        data=_report_builder(ui.get_store(), dataset, options),
        file_name=report_file_name(dataset),
        mime="text/html",
        on_click="ignore",
        icon=":material/download:",
        key=key,
        help="One HTML file that opens offline: the summary with intervals, histograms, "
        "calibration, pairwise standings, the worst answers and the methods. The same "
        "numbers as `judgeboard metrics --json`.",
    )


def export_download_buttons(dataset: str | None, *, key: str = "jb_export") -> None:
    """A format choice and one download button per kind (ratings, preferences)."""
    store = ui.get_store()
    counts = ui.cached(export_counts, dataset=dataset)
    fmt = (
        st.segmented_control("Export format", FORMATS, default=FORMATS[0], key=f"{key}_format")
        or FORMATS[0]
    )
    st.caption(
        "Every rating and preference, current and superseded, with its provenance "
        "(rater, rubric version, created_utc, is_current); ratings carry the "
        "response's effective score, and the ratings file also holds every item and "
        "response nobody rated. `judgeboard import` reads the files back."
    )
    for column, kind in zip(st.columns(len(KINDS)), KINDS):
        with column:
            st.download_button(
                f"{kind.capitalize()} ({counts.of(kind):,} rows, {fmt})",
                data=_export_builder(store, kind, fmt, dataset),
                file_name=download_name(kind, fmt=fmt, dataset=dataset),
                mime=MIME_TYPES[fmt],
                on_click="ignore",
                icon=":material/download:",
                key=f"{key}_{kind}",
                disabled=counts.of(kind) == 0,
            )
