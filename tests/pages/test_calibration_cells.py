"""Calibration's drill-down: a confusion-table cell lists exactly the pairs it counts, and the
disagreement filter lists every pair where the judge and a person differ."""

from __future__ import annotations

from collections.abc import Callable

from streamlit.testing.v1 import AppTest

from dashboard.metrics import calibration
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from tests.pages.helpers import open_page, page_path

PAGE = page_path("calibration")


def test_a_cell_opens_the_pairs_it_counts(
    judged_store: Store, app_for: Callable[[Store], AppTest]
) -> None:
    found = calibration.calibration(judged_store, Selection("eo-rag"))
    judge = next(j for j in found.judges if j.judge == "baseline")
    labels, counts = judge.confusion.labels, judge.confusion.counts
    row, col = max(
        ((i, k) for i in range(len(labels)) for k in range(len(labels))),
        key=lambda cell: counts[cell[0]][cell[1]],
    )
    app = open_page(app_for(judged_store), PAGE, dataset="eo-rag")
    app.selectbox(key="jb_cal_cell_judge").set_value("baseline").run()
    app.selectbox(key="jb_cal_cell_judge_value").set_value(f"{labels[row]:g}").run()
    app.selectbox(key="jb_cal_cell_person_value").set_value(f"{labels[col]:g}").run()
    assert not app.exception, app.exception
    shown = app.dataframe[1].value  # after the agreement table
    assert len(shown) == counts[row][col] > 0
    assert set(shown["judge's rating"]) == {labels[row]}
    assert set(shown["person's rating"]) == {labels[col]}

    app.selectbox(key="jb_cal_cell_judge_value").set_value("every disagreement").run()
    off_diagonal = sum(
        counts[i][k] for i in range(len(labels)) for k in range(len(labels)) if i != k
    )
    shown = app.dataframe[1].value  # after the agreement table
    assert len(shown) == off_diagonal
    assert (shown["judge's rating"] != shown["person's rating"]).all()
