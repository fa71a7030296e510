"""The Overview's and the Calibration page's "Group by", and the notes where the win rate and
Bradley–Terry rank two systems differently (Overview and Pairwise), through AppTest."""

from __future__ import annotations

from functools import partial

from streamlit.testing.v1 import AppTest

from dashboard.metrics import calibration, choices, overview, reference, slices, tables
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from tests.metrics.overview.test_standings import _tree
from tests.pages.helpers import open_page, texts

fmt = partial(tables.estimate_text, digits=2)


def _table(app: AppTest, column: str):
    return next(d.value for d in app.dataframe if column in d.value.columns)


def test_the_overview_groups_by_a_field(app: AppTest, judged_store: Store) -> None:
    open_page(app, "../pages/overview.py")
    picker = app.selectbox(key="jb_overview_by")
    assert picker.options == ["nothing (every item)", "dataset", "task_type", "notes"]
    assert picker.options[1:] == choices.slice_fields(judged_store, Selection())
    picker.set_value("dataset").run()
    assert not app.exception
    table = _table(app, "dataset")
    assert list(table.columns[:2]) == ["dataset", "system"]
    expected = slices.overview_by(judged_store, Selection(), "dataset")
    assert [(r["dataset"], r["system"]) for r in table.to_dict("records")] == [
        (s.slice.value, row.system) for s in expected for row in s.overview.systems
    ]
    shown = table.set_index(["dataset", "system"])
    for piece in expected:
        for row in piece.overview.systems:
            cells = shown.loc[(piece.slice.value, row.system)]
            assert cells["responses"] == row.n_responses
            if row.score("effective") is not None:
                assert cells["effective"] == fmt(row.score("effective"))
    # The slices hold every response once.
    whole = overview.overview(judged_store, Selection())
    assert sum(table["responses"]) == sum(r.n_responses for r in whole.systems)
    picker = app.selectbox(key="jb_overview_by").set_value(None).run()
    assert "dataset" not in _table(app, "system").columns


def test_the_calibration_page_groups_by_a_field(app: AppTest, judged_store: Store) -> None:
    open_page(app, "../pages/calibration.py", dataset="eo-rag")
    app.selectbox(key="jb_calibration_by").set_value("task_type").run()
    assert not app.exception
    assert any(s.value == "By task\\_type" for s in app.subheader)
    # eo-rag has one task type: its one slice is everything, so its rows are the whole's
    whole = tables.judge_agreement_rows(calibration.calibration(judged_store, Selection("eo-rag")))
    grouped = _table(app, "task_type")
    assert grouped.to_dict("records") == [{"task_type": "open_qa_context", **r} for r in whole]
    app.selectbox(key="jb_calibration_by").set_value("notes").run()
    grouped = _table(app, "notes")
    found = slices.calibration_by(judged_store, Selection("eo-rag"), "notes")
    expected = tables.sliced_rows(
        [(s.slice.value, tables.judge_agreement_rows(s.calibration)) for s in found],
        field="notes",
    )
    assert grouped.to_dict("records") == expected
    assert "(none)" in set(grouped["notes"])  # the items without notes, together


def _warnings(app: AppTest) -> list[str]:
    return [w.replace("\\", "") for w in texts(app, "warning")]


def test_the_overview_and_pairwise_pages_say_where_the_rankings_disagree(
    app_for, store: Store
) -> None:
    _tree(store)
    reference.refresh_auto_scores(store)  # as an import does: no "not scored yet" warning
    app = open_page(app_for(store), "../pages/overview.py", dataset="tree")
    shown = _warnings(app)
    assert len(shown) == 3
    assert shown[0].startswith("Among the judges, the win rate ranks a above b (0.700 against")
    assert "Bradley–Terry ranks b above a" in shown[0] and "strength of the opponents" in shown[0]
    assert any("ranks d above b" in w for w in shown)
    app.switch_page("../pages/pairwise.py").run()
    assert not app.exception
    assert [w for w in _warnings(app) if w.startswith("Among")] == shown
