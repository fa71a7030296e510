"""Links that keep their place: a page's filters and its open item live in the URL.

The page itself is the URL's path (st.navigation). Each page names its `Link`s: a widget's
session-state key and the query parameter that carries it. Before the widgets are drawn,
`restore` gives a widget that has no value yet (a reload, a shared link, or coming back to
a page, whose widget state Streamlit dropped on leaving) the value this session last had,
else the URL's; after they are drawn, `publish` writes the values into the URL (a default
is left out) and remembers them for the next visit. Navigating clears the URL's query, so
each page's parameters are its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import streamlit as st

STR, INT, FLOAT, BOOL, LIST, RANGE = "str", "int", "float", "bool", "list", "range"
_MEMORY = "jb_link::"
# The Failures page's address and the parameters of its open item and rubric (pages/failures.py
# names its Links with these), and the sidebar's dataset (`ui.DATASET_LINK`).
FAILURES_PATH = "failures"
ITEM_PARAM, RUBRIC_PARAM, DATASET_PARAM = "item", "rubric", "dataset"


@dataclass(frozen=True)
class Link:
    """The widget of session-state `key` is carried by the query parameter `param`."""

    key: str
    param: str
    kind: str = STR
    default: Any = None


def _parse(link: Link, values: Sequence[str]) -> Any:
    """The widget value of the URL's text; ValueError when it does not read as one."""
    if link.kind == LIST:
        return list(values)
    text = values[-1]
    if link.kind == INT:
        return int(text)
    if link.kind == FLOAT:
        return float(text)
    if link.kind == BOOL:
        return text in ("1", "true", "yes")
    if link.kind == RANGE:
        low, high = (float(v) for v in text.split(","))
        return (low, high)
    return text


def _text(link: Link, value: Any) -> str | list[str] | None:
    """The URL's text of a widget value; None for the default (left out of the URL)."""
    if value is None or value == link.default or value in ("", [], ()):
        return None
    if link.kind == LIST:
        return [str(v) for v in value]
    if link.kind == BOOL:
        return "1" if value else None
    if link.kind == RANGE:
        return ",".join(f"{v:g}" for v in value)
    return f"{value:g}" if link.kind == FLOAT else str(value)


def restore(links: Iterable[Link]) -> None:
    """Before the widgets: each widget without a value gets the one this session last had,
    else the URL's (a value the URL gets wrong is ignored: the widget keeps its default)."""
    for link in links:
        if link.key in st.session_state:
            continue
        memory = _MEMORY + link.key
        if memory in st.session_state:
            st.session_state[link.key] = st.session_state[memory]
            continue
        values = st.query_params.get_all(link.param)
        if not values:
            continue
        try:
            st.session_state[link.key] = _parse(link, values)
        except ValueError:
            continue


def publish(links: Iterable[Link]) -> None:
    """After the widgets: the URL carries their values, and this session remembers them."""
    for link in links:
        value = st.session_state.get(link.key)
        if value is None:  # not drawn this run (or cleared): nothing to keep
            st.session_state.pop(_MEMORY + link.key, None)
        else:
            st.session_state[_MEMORY + link.key] = value
        text = _text(link, value)
        if text is None:
            if link.param in st.query_params:
                del st.query_params[link.param]
        elif st.query_params.get_all(link.param) != (text if isinstance(text, list) else [text]):
            st.query_params[link.param] = text


def forget(links: Iterable[Link]) -> None:
    """Drop what `publish` remembered (a value that no longer applies)."""
    for link in links:
        st.session_state.pop(_MEMORY + link.key, None)


def url(path: str, query: Mapping[str, str | None]) -> str:
    """A page's address relative to the app (`path` is its st.navigation url path) with this
    query; a None value is left out. Relative, so that it holds under any base URL path."""
    kept = {name: value for name, value in query.items() if value is not None}
    return f"{path}?{urlencode(kept)}" if kept else path


def detail_url(response_id: str, *, rubric: str | None, dataset: str | None = None) -> str:
    """The Failures page with one answer's detail open: what its own row click gives."""
    query = {DATASET_PARAM: dataset, RUBRIC_PARAM: rubric, ITEM_PARAM: response_id}
    return url(FAILURES_PATH, query)
