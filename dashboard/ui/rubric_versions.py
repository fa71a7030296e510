"""The Judge QA page's "Rubric versions" section: each judge under every rubric version it ran
with, against people, and the responses where the versions disagree with people, each a
link to its detail on the Failures page."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from dashboard import ui
from dashboard.metrics import judge_qa
from dashboard.metrics.judge_qa import disagreement_rows, version_rows
from dashboard.metrics.selection import Selection
from dashboard.ui import links, pickers

KEY = "jb_qa_versions"
DETAIL = "detail"


def _with_links(found: judge_qa.RubricVersions) -> list[dict[str, object]]:
    rubric, dataset = found.selection.rubric, found.selection.dataset
    return [
        {**row, DETAIL: links.detail_url(str(row["response"]), rubric=rubric, dataset=dataset)}
        for row in disagreement_rows(found)
    ]


def few_shot_examples(examples: Sequence[judge_qa.UsedExample], selection: Selection) -> None:
    """Which of people's labels each few-shot version showed as examples (left out of its
    numbers): a caption with the count and an expander listing them, per version. Judge QA's
    versions section and Calibration both show them."""
    by_version: dict[str, list[judge_qa.UsedExample]] = {}
    for e in examples:
        by_version.setdefault(e.rubric_version, []).append(e)
    rubric, dataset = selection.rubric, selection.dataset
    for version, used in by_version.items():
        st.caption(
            f"Rubric version {ui.md_escape(version)} showed {len(used):,} of people's labels "
            "as few-shot examples; its numbers are on the other (held-out) labels only."
        )
        if not ui.may_administer("see which person gave which label"):
            continue
        with st.expander(f"The {len(used):,} labels used as examples ({version})"):
            rows = [
                {
                    "#": e.position,
                    "person": e.rater,
                    "rating": e.value,
                    DETAIL: links.detail_url(e.response_id, rubric=rubric, dataset=dataset),
                }
                for e in used
            ]
            pickers.table(rows, column_config={DETAIL: _LINK})


_LINK = st.column_config.LinkColumn(DETAIL, display_text="open detail")


def versions_section(selection: Selection) -> judge_qa.RubricVersions:
    """Agreement, kappa, alpha and bias of every (judge, rubric version) with 95% intervals
    and n, and the disagreements with people, one click from their detail."""
    st.subheader("Rubric versions")
    found = ui.cached(judge_qa.rubric_versions, selection)
    if not found.versions:
        st.info(
            "No judge has rated responses people rated on this rubric. Label answers on "
            "**Annotate**, then run a judge with **Only the responses people rated**."
        )
        return found
    st.caption(
        "On the responses people rated: each judge under every rubric version it ran with "
        "(its latest rating of each version). Each cell: estimate [95% bootstrap interval]; "
        "a pair is one version rating and one person's rating of a response; bias is judge "
        "minus person over the scale's width (−1…1, 0 is none)."
    )
    pickers.table(version_rows(found), key=f"{KEY}_table")
    few_shot_examples(found.examples, found.selection)
    rows = _with_links(found)
    st.markdown(f"**Where a version disagrees with people** ({len(rows):,} responses)")
    if rows:
        pickers.table(
            rows,
            key=f"{KEY}_disagreements",
            column_config={
                DETAIL: _LINK,
                "response": None,
            },
        )
    return found
