"""Shared Streamlit glue: the store resource, the sidebar, cached reads, safe text.

Pages import this module and `dashboard.charts`; they never run SQL. Reads go through
`cached(...)`, whose cache key includes the database's fingerprint, so a write from any process
(this session, another session, the CLI) shows on the next rerun, and a write made here clears
the cache at once.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import streamlit as st

from dashboard import selections
from dashboard.settings import resolve_db_path
from dashboard.store import Store

T = TypeVar("T")

ALL = "All datasets"
DATASET_KEY = "jb_dataset"
ANNOTATOR_KEY = "jb_annotator"


@st.cache_resource(show_spinner=False)
def _store_for(path: str) -> Store:
    # The dashboard never holds the file for long: a short wait, then the page says it is busy.
    return Store(path, wait_s=10.0)


def get_store() -> Store:
    """The store named by JUDGEBOARD_DB (set by `judgeboard serve`), shared by all sessions."""
    return _store_for(str(resolve_db_path()))


@dataclass(frozen=True)
class Filters:
    """What the sidebar holds; it persists across pages."""

    dataset: str | None
    annotator: str


def sidebar() -> Filters:
    """Render the dataset filter and the annotator's name; call once per run, from app.py."""
    options = [ALL, *cached(selections.dataset_names)]
    if st.session_state.get(DATASET_KEY) not in options:
        st.session_state[DATASET_KEY] = ALL
    with st.sidebar:
        st.selectbox("Dataset", options, key=DATASET_KEY)
        st.text_input("Annotator", key=ANNOTATOR_KEY, placeholder="your name",
                      help="Stored with every rating and vote you give.")
    return filters()


def filters() -> Filters:
    dataset = st.session_state.get(DATASET_KEY, ALL)
    return Filters(None if dataset in (None, ALL) else dataset,
                   (st.session_state.get(ANNOTATOR_KEY) or "").strip())


FINGERPRINT_KEY = "jb_fingerprint"


def begin_run() -> None:
    """Start of a script run (app.py): the database's fingerprint is read again, once."""
    st.session_state.pop(FINGERPRINT_KEY, None)


def _version(store: Store) -> tuple:
    """The database's path and fingerprint, read once per script run and after each write."""
    version = st.session_state.get(FINGERPRINT_KEY)
    if version is None or version[0] != str(store.path):
        # The path is in the key too: two databases with equal row counts still differ.
        version = (str(store.path), *store.fingerprint())
        st.session_state[FINGERPRINT_KEY] = version
    return version


@st.cache_data(show_spinner=False, max_entries=256)
def _cached_call(_fn: Callable[..., T], name: str, fingerprint: tuple, args: tuple,
                 kwargs: tuple) -> T:
    return _fn(get_store(), *args, **dict(kwargs))


def cached(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(store, *args, **kwargs)`, cached until the database changes."""
    store = get_store()
    name = f"{fn.__module__}.{fn.__qualname__}"
    return _cached_call(fn, name, _version(store), args, tuple(sorted(kwargs.items())))


def after_write() -> None:
    """Forget cached reads once this session has written."""
    st.session_state.pop(FINGERPRINT_KEY, None)
    _cached_call.clear()


def show_text(text: str | None, *, label: str | None = None, height: int | None = None) -> None:
    """Model or user text, shown as plain text: never Markdown, never HTML, so an image or a
    link inside an answer loads nothing."""
    if label:
        st.caption(label)
    st.code(text if text else "(empty)", language=None, wrap_lines=True, height=height)


def fmt_estimate(estimate: Any, *, digits: int = 2) -> str:
    """'0.72 [0.65, 0.79]', or an em dash when there is no data."""
    if estimate is None or estimate.value is None or math.isnan(estimate.value):
        return "—"
    if math.isnan(estimate.low):
        return f"{estimate.value:.{digits}f}"
    return f"{estimate.value:.{digits}f} [{estimate.low:.{digits}f}, {estimate.high:.{digits}f}]"
