"""The Judge QA page on the sample judged by the offline baseline: each judge's biases with
their intervals, a padding probe run from the page (a second run served from the cache), and
anchors added from the page."""

from __future__ import annotations

from collections.abc import Callable

from streamlit.testing.v1 import AppTest

from dashboard.metrics.judge_qa import bias_rows, judge_bias as bias
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from tests.pages.helpers import open_page, page_path

PAGE = page_path("judge_qa")


def _table(app: AppTest) -> list[dict]:
    return app.dataframe[0].value.to_dict("records")


def _probe(app: AppTest) -> AppTest:
    app.number_input(key="jb_qa_probe_size").set_value(5)
    app.button(key="jb_qa_probe_run").click().run()
    assert not app.exception, app.exception
    return app


def test_bias_table_probe_and_anchors(
    judged_store: Store, app_for: Callable[[Store], AppTest]
) -> None:
    app = open_page(app_for(judged_store), PAGE, dataset="eo-rag")
    expected = bias_rows(bias.bias(judged_store, Selection("eo-rag")))
    rows = _table(app)
    assert [r["judge"] for r in rows] == [r["judge"] for r in expected] == ["baseline"]
    assert rows[0]["length"] == expected[0]["length"] and "[" in rows[0]["length"]
    assert rows[0]["length measured"] == "beyond people's"  # the sample carries people's labels
    assert rows[0]["padding probe"] == "—"

    # the store holds the fixture's judge run: it is no probe of this session's
    assert not any("Probe run" in s.value for s in app.success)
    assert app.selectbox(key="jb_qa_probe_panel").value == "offline"
    _probe(app)
    assert "5 calls made, 0 from the cache" in app.success[0].value
    assert _table(app)[0]["n (padding probe)"] == 5
    _probe(app)  # the same probe again: nothing is called
    assert "0 calls made, 5 from the cache" in app.success[0].value

    app.number_input(key="jb_qa_anchor_size").set_value(7)
    app.button(key="jb_qa_anchor_add").click().run()
    assert not app.exception, app.exception
    assert any(c.value.startswith("7 anchor responses") for c in app.caption)


def test_rubric_versions_side_by_side_link_to_the_detail(
    store: Store, app_for: Callable[[Store], AppTest]
) -> None:
    from tests.metrics.judge_qa.test_versions import DATASET, seed_versions

    ids = seed_versions(store)
    app = open_page(app_for(store), PAGE, dataset=DATASET)
    shown = app.dataframe[1].value.to_dict("records")  # after the bias table
    assert [(r["judge"], r["rubric version"]) for r in shown] == [("judge", "1"), ("judge", "2")]
    assert shown[0]["exact agreement"].startswith("0.400 [")
    assert shown[1]["exact agreement"].startswith("0.900 [")
    assert shown[1]["n (pairs)"] == 10
    listed = app.dataframe[2].value.to_dict("records")
    assert len(listed) == 6
    last = next(r for r in listed if r["response"] == ids[9])
    assert (last["people"], last["v1"], last["v2"]) == ("5", "4", "4")
    assert last["detail"] == f"failures?dataset={DATASET}&rubric=likert-rag&item={ids[9]}"

    # The link opens that answer's detail on the Failures page (a fresh session on its URL).
    opened = app_for(store)
    opened.query_params.update({"dataset": DATASET, "rubric": "likert-rag", "item": ids[9]})
    opened.switch_page(page_path("failures")).run()
    assert not opened.exception, opened.exception
    assert opened.selectbox(key="failures_open").value == ids[9]
    assert "question 9?" in [c.value for c in opened.code]
