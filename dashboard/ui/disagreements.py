"""The list of disagreements, one definition for the Judge lab's dev disagreements and
Calibration's confusion cells: question, answer, the judge's rating and explanation, the
person's rating and comment, and a link to the answer's full detail."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from dashboard.ui import links, pickers
from dashboard.workbench.agreement import Disagreement

DETAIL = "detail"
_LINK = st.column_config.LinkColumn(DETAIL, display_text="open detail")
JUDGE_LAB_PATH = "judge_lab"  # the Judge lab page's url path (st.navigation)
JUDGE_PARAM = "judge"


def rows(found: Sequence[Disagreement], *, rubric: str, dataset: str | None) -> list[dict]:
    return [
        {
            "question": d.question,
            "answer": d.answer,
            "judge": d.judge_value,
            "explanation": d.explanation or "",
            "person": d.person,
            "person's rating": d.person_value,
            "comment": d.comment or "",
            DETAIL: links.detail_url(d.response_id, rubric=rubric, dataset=dataset),
        }
        for d in found
    ]


def table(found: Sequence[Disagreement], *, rubric: str, dataset: str | None, key: str) -> None:
    pickers.table(
        rows(found, rubric=rubric, dataset=dataset), column_config={DETAIL: _LINK}, key=key
    )


def judge_lab_url(*, judge: str | None, rubric: str, dataset: str | None) -> str:
    """The Judge lab with this judge, rubric and dataset chosen (`pages/judge_lab.py`)."""
    query = {links.DATASET_PARAM: dataset, links.RUBRIC_PARAM: rubric, JUDGE_PARAM: judge}
    return links.url(JUDGE_LAB_PATH, query)
