"""The Failures list as a table whose rows open their detail, and the same choice by name.

A click on a row (its box or any of its cells) opens that answer; so does the dropdown, whose
entries name the question. The open answer is `OPEN_ID_KEY` in the session (and `item` in
the URL, see pages/failures.py).
"""

from __future__ import annotations

import hashlib

import streamlit as st
from streamlit.elements.arrow import DataframeStateInput

from dashboard import ui
from dashboard.metrics.panels import ALL_JUDGES
from dashboard.review import failures
from dashboard.ui import tables_fit

OPEN_KEY = "failures_open"  # the dropdown
OPEN_ID_KEY = "failures_open_id"  # the answer whose detail is open
SEEN_KEY = "failures_table_seen"  # the row the table had selected at the last run


def table_key(page: failures.FailurePage) -> str:
    """A table of its own per list page: a selection kept by row number would otherwise
    open another answer once the page or the filters change."""
    ids = "\n".join(r.response_id for r in page.rows)
    return "failures_table_" + hashlib.sha1(ids.encode()).hexdigest()[:12]


TABLE_COLUMNS = {
    "#": st.column_config.NumberColumn(width=40, pinned=True),
    "score": st.column_config.NumberColumn(
        width=58, format="%.2f", help="What the list is ordered by (0 = worst)."
    ),
    "panel": st.column_config.NumberColumn(
        width=58, format="%.2f", help="The mean score of the panel's judges (named above)."
    ),
    "human": st.column_config.NumberColumn(
        width=62, format="%.2f", help="People's mean score; blank: nobody rated it."
    ),
    "spread": st.column_config.NumberColumn(
        width=62, format="%.2f", help="Highest minus lowest judge score."
    ),
    "system": st.column_config.TextColumn(width=120),
    "dataset": st.column_config.TextColumn(width=100),
    "task": st.column_config.TextColumn(width=110),
    # Cut at a bounded width (the full text is in the detail a click opens).
    "question": st.column_config.TextColumn(
        width=tables_fit.TEXT_PX, help="Click a row to open its detail."
    ),
    "answer": st.column_config.TextColumn(width=tables_fit.TEXT_PX),
}


def panel_line(selection: failures.FailureFilter) -> str:
    """Which judges make the list's panel column, the spread and the judge count."""
    judges = ", ".join(selection.panel_judges) if selection.panel_judges else "every judge"
    versions = selection.panel_versions or (
        (selection.panel_version,) if selection.panel_version else ()
    )
    plural = "s" if len(versions) > 1 else ""
    version = f", rubric version{plural} {', '.join(versions)}" if versions else ""
    name = ui.md_escape(selection.panel or ALL_JUDGES)
    return f"Panel **{name}**: {ui.md_escape(judges)}{version}."


def table(page: failures.FailurePage, open_id: str | None) -> str | None:
    """The page of the list; a click on a row opens it. Returns the answer to open."""
    ids = [r.response_id for r in page.rows]
    key = table_key(page)
    default: DataframeStateInput | None = (
        {"selection": {"rows": [ids.index(open_id)]}} if open_id in ids else None
    )
    event = st.dataframe(
        [
            {
                "#": page.first + n,
                "score": r.score,
                "panel": r.panel,
                "human": r.human,
                "spread": r.spread,
                "system": r.system,
                "dataset": r.dataset,
                "task": r.task_type,
                "question": r.question,
                "answer": r.answer,
            }
            for n, r in enumerate(page.rows)
        ],
        hide_index=True,
        width="stretch",
        height="content",
        column_config=TABLE_COLUMNS,
        placeholder="",
        key=key,
        on_select="rerun",
        selection_mode=["single-row", "single-cell"],
        selection_default=default,
    )
    picked = [*event.selection.rows, *(cell[0] for cell in event.selection.cells)]
    clicked = ids[picked[0]] if picked and picked[0] < len(ids) else None
    seen = st.session_state.get(SEEN_KEY, {})
    if seen.get(key, open_id if open_id in ids else None) != clicked:
        open_id = clicked
    st.session_state[SEEN_KEY] = {key: clicked}
    return open_id


def choose(page: failures.FailurePage, open_id: str | None) -> None:
    """The same choice as a click, by name: each entry names its question."""
    labels = {
        r.response_id: f"#{page.first + n} · {_short(r.question)} · {r.system} · "
        + ("unrated" if r.score is None else f"score {r.score:.2f}")
        for n, r in enumerate(page.rows)
    }
    st.session_state[OPEN_KEY] = open_id if open_id in labels else None
    st.selectbox(
        "Open an answer",
        list(labels),
        format_func=lambda response_id: labels[response_id],
        index=None,
        key=OPEN_KEY,
        placeholder="click a row, or pick one here, to see its detail",
        on_change=lambda: st.session_state.update({OPEN_ID_KEY: st.session_state[OPEN_KEY]}),
    )


def _short(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
