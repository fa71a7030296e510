"""Calibration's drill-down: a confusion-table cell lists exactly the pairs it counts, and the
disagreement filter lists every pair where the judge and a person differ."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qsl

from streamlit.testing.v1 import AppTest

from dashboard.metrics import calibration
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from dashboard.types import Rating
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
    assert set(shown["judge"]) == {labels[row]}
    assert set(shown["person's rating"]) == {labels[col]}

    app.selectbox(key="jb_cal_cell_judge_value").set_value("every disagreement").run()
    off_diagonal = sum(
        counts[i][k] for i in range(len(labels)) for k in range(len(labels)) if i != k
    )
    shown = app.dataframe[1].value  # after the agreement table
    assert len(shown) == off_diagonal
    assert (shown["judge"] != shown["person's rating"]).all()


def _second_judge(store: Store) -> None:
    """A judge that rates every answer baseline rated 5, with an explanation of its own."""
    with store.connection() as con:
        rated = con.execute(
            "SELECT response_id, rubric_version FROM current_ratings "
            "WHERE rater = 'baseline' AND rubric = 'likert-rag' ORDER BY response_id"
        ).fetchall()
    store.add_ratings(
        [
            Rating(
                f"zz-{i}",
                rid,
                "llm",
                "zz-judge",
                "likert-rag",
                version,
                5.0,
                1,
                5,
                explanation="zz says five",
            )
            for i, (rid, version) in enumerate(rated)
        ]
    )


def test_a_cell_lists_questions_and_answers_and_opens_the_judge_lab_on_its_judge(
    judged_store: Store, app_for: Callable[[Store], AppTest]
) -> None:
    _second_judge(judged_store)
    app = open_page(app_for(judged_store), PAGE, dataset="eo-rag")
    app.selectbox(key="jb_cal_cell_judge").set_value("zz-judge").run()
    app.selectbox(key="jb_cal_cell_judge_value").set_value("5").run()
    app.selectbox(key="jb_cal_cell_person_value").set_value("3").run()
    assert not app.exception, app.exception
    shown = next(d.value for d in app.dataframe if "question" in d.value.columns)
    assert len(shown) > 0 and {"question", "answer", "explanation", "comment"} <= set(shown)
    assert set(shown["explanation"]) == {"zz says five"}
    assert set(shown["judge"]) == {5.0} and set(shown["person's rating"]) == {3.0}
    assert shown["answer"].str.len().min() > 0 and shown["question"].str.len().min() > 0
    assert shown["detail"].str.startswith("failures?").all()
    (link,) = [m.value for m in app.markdown if "judge_lab?" in m.value]
    query = link[link.index("judge_lab?") + len("judge_lab?") : link.rindex(")")]

    lab = app_for(judged_store)
    lab.query_params.update(dict(parse_qsl(query)))
    lab.switch_page(page_path("judge_lab")).run()
    assert not lab.exception, lab.exception
    assert lab.selectbox(key="jb_lab_judge").value == "zz-judge"
    assert lab.selectbox(key="jb_lab_rubric").value == "likert-rag"
    table = next(d.value for d in lab.dataframe if "question" in d.value.columns)
    assert len(table) > 0 and set(table["explanation"]) == {"zz says five"}
