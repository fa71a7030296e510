"""The list of disagreements, one definition for the Judge lab's dev disagreements and
Calibration's confusion cells: question, answer, the judge's rating and explanation, the
person's rating and comment, and a link to the answer's full detail."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from dashboard.ui import links, pickers, tables_fit
from dashboard.workbench.agreement import Disagreement

DETAIL = "detail"
_LINK = st.column_config.LinkColumn(DETAIL, display_text="open detail", width=90)
# Every column at a bounded width, together 1,008 px, within a 1400-px window's grid
# (tables_fit.TABLE_PX): a long text is cut, and read in full in the detail the link opens.
COLUMNS: dict[str, object] = {
    "question": st.column_config.TextColumn(width=180),
    "answer": st.column_config.TextColumn(width=180),
    "judge": st.column_config.NumberColumn(width=tables_fit.COUNT_PX, help="The judge's rating."),
    "explanation": st.column_config.TextColumn(width=170, help="The judge's explanation."),
    "person": st.column_config.TextColumn(width=90),
    "person's rating": st.column_config.NumberColumn(width=110),
    "comment": st.column_config.TextColumn(width=130, help="The person's comment."),
    DETAIL: _LINK,
}
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
    pickers.table(rows(found, rubric=rubric, dataset=dataset), column_config=COLUMNS, key=key)


def judge_lab_url(*, judge: str | None, rubric: str, dataset: str | None) -> str:
    """The Judge lab with this judge, rubric and dataset chosen (`pages/judge_lab.py`)."""
    query = {links.DATASET_PARAM: dataset, links.RUBRIC_PARAM: rubric, JUDGE_PARAM: judge}
    return links.url(JUDGE_LAB_PATH, query)
