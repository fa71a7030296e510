"""The Judge lab page walks the loop on the sample with the offline judge through real
LiteLLM: open the dev disagreements, edit the prompt (the diff shown), run on the labelled
answers (calls counted), compare on test, adopt; the panel's numbers change."""

from __future__ import annotations

from collections.abc import Callable

from streamlit.testing.v1 import AppTest

from dashboard.metrics import overview
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from tests.pages.helpers import open_page, page_path

PAGE = page_path("judge_lab")


def _panel(store: Store) -> dict[str, float]:
    found = overview.overview(store, Selection("eo-rag", "likert-rag"))
    return {r.system: r.scores["panel"].value for r in found.systems if "panel" in r.scores}


def _ok(app: AppTest) -> AppTest:
    assert not app.exception, app.exception
    return app


def test_the_loop_from_disagreement_to_adoption(
    judged_store: Store, app_for: Callable[[Store], AppTest]
) -> None:
    app = open_page(app_for(judged_store), PAGE, dataset="eo-rag", annotator="ana")
    assert app.selectbox(key="jb_lab_judge").value == "baseline"
    table = next(d.value for d in app.dataframe if "question" in d.value.columns)
    assert len(table) > 0 and {"question", "answer", "explanation", "detail"} <= set(table)
    assert table["detail"].iloc[0].startswith("failures?")
    gaps = (table["judge"] - table["person's rating"]).abs().tolist()
    assert gaps == sorted(gaps, reverse=True)  # worst first

    template = app.text_area(key="jb_lab_template_1").value
    app.text_area(key="jb_lab_template_1").set_value(
        template.replace("{{reference_answer}}", "(not shown)")
    )
    _ok(app.run())
    assert any("+(not shown)" in c.value for c in app.code)  # the diff to the parent
    app.text_input(key="jb_lab_note").set_value("no reference")
    _ok(app.button(key="jb_lab_save").click().run())
    assert "Saved version 1-wb1" in app.success[0].value

    assert app.selectbox(key="jb_lab_run_version").value == "1-wb1"
    assert any("30" in c.value for c in app.code)  # the plan: the 30 labelled answers
    _ok(app.button(key="jb_lab_run").click().run())
    assert any("baseline" in c.value and "summary" in c.value.lower() for c in app.code)

    before = _panel(judged_store)
    _ok(app.button(key="jb_lab_compare").click().run())
    assert any("Verdict:" in m.value for m in app.markdown)
    assert app.metric[0].value == "1"  # one look at the test split spent

    _ok(app.text_input(key="jb_lab_reason").set_value("fewer hints").run())
    _ok(app.button(key="jb_lab_adopt").click().run())
    assert "Adopted 1-wb1 for baseline on eo-rag" in app.success[0].value
    assert _panel(judged_store) != before  # the panel uses the adopted version
    assert any("Judge card" in i.value for i in app.info)
    assert app.metric[0].value == "0"  # the count restarts at the adoption
