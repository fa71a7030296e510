"""Tags on the Overview and Failures pages: each tag's share per system, and the filter."""

from __future__ import annotations

import streamlit as st

from dashboard import ui
from dashboard.campaigns import tags
from dashboard.ui import pickers


def show_shares(dataset: str | None, systems: tuple[str, ...] | None) -> None:
    """The section (nothing when no one has tagged an answer)."""
    found = ui.cached(tags.tag_shares, dataset=dataset, systems=systems)
    if not found:
        return
    st.subheader("Tags")
    st.caption(
        "Each campaign tag's share of people's tag labels of the system's answers (a person "
        "saving an answer in the campaign labels each tag, ticked or not): share [95% "
        "bootstrap interval], n = tag labels."
    )
    pickers.table(
        [
            {
                "campaign": s.campaign,
                "tag": s.tag,
                "system": s.system,
                "share [95%]": f"{s.share:.2f} [{s.low:.2f}, {s.high:.2f}]",
                "n": s.n,
            }
            for s in found
        ]
    )


def tag_filter(dataset: str | None, *, key: str) -> tuple[str, ...] | None:
    """Pick tags to list only the answers a person tagged with any of them (None: no filter;
    no picker while no one has tagged an answer)."""
    names = sorted({s.tag for s in ui.cached(tags.tag_shares, dataset=dataset)})
    if not names:
        return None
    chosen = st.multiselect("Tagged with", names, key=key, help="Answers a person tagged so.")
    return tuple(sorted(chosen)) or None
