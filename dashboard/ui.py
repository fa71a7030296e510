"""Shared Streamlit glue: the store resource, the sidebar, and small rendering helpers."""

from __future__ import annotations

import streamlit as st

from dashboard.settings import resolve_db_path
from dashboard.store import Store


@st.cache_resource(show_spinner=False)
def _store_for(path: str) -> Store:
    # The dashboard never holds the file: a short wait, then the page says it is busy.
    return Store(path, wait_s=10.0)


def get_store() -> Store:
    """The store named by JUDGEBOARD_DB (set by `judgeboard serve`), shared by all sessions."""
    return _store_for(str(resolve_db_path()))
