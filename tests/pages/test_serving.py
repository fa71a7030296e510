"""`ui.serving`: the server process imports what the pages use once and freezes it out of
the collector's way, so that a full collection walks only what the sessions made."""

from __future__ import annotations

import gc
import sys

from dashboard.ui import serving


def test_the_pages_modules_are_imported_and_frozen_once() -> None:
    serving.tune.clear()  # its cache_resource: as in a new server process
    frozen = serving.tune()
    # streamlit, pandas, duckdb and the dashboard's own modules (less any freed since)
    assert frozen > 100_000 and gc.get_freeze_count() > 100_000
    for module in ("dashboard.ui.labelling", "dashboard.review.annotation", "dashboard.charts"):
        assert module in sys.modules
    assert serving.tune() == frozen  # cached: the second call does nothing
