"""The reference rule on the pages: the Overview names each dataset's rule and says when
answers lack current reference scores; the Data page chooses a dataset's rule."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from dashboard.metrics.reference import dataset_rules as reference_rules
from dashboard.store import Store
from tests.pages.helpers import open_page

OVERVIEW, DATA = "../pages/overview.py", "../pages/data.py"


def test_the_overview_names_the_rule(app: AppTest) -> None:
    open_page(app, OVERVIEW, dataset="eo-conversational")
    captions = [c.value.replace("\\", "") for c in app.caption]  # as Markdown renders them
    assert any(
        "eo-conversational: leave-one-out mean (CoQA and TopiOCQA official evaluation)" in c
        for c in captions
    ), captions
    assert not app.warning


def test_the_overview_says_what_is_not_scored_yet(app: AppTest, sample_store: Store) -> None:
    with sample_store.connection() as con:  # scores of an earlier version of the rules
        con.execute("UPDATE auto_scores SET version = 'older' WHERE metric IN ('em', 'f1')")
        (n,) = con.execute("SELECT count(*) FROM responses WHERE dataset = 'eo-rag'").fetchone()
    open_page(app, OVERVIEW, dataset="eo-rag")
    assert [w.value for w in app.warning] == [
        f"{n:,} answers are not scored against their references yet: run `judgeboard score`."
    ]


def test_the_data_page_chooses_a_rule(app: AppTest, sample_store: Store) -> None:
    open_page(app, DATA)
    app.selectbox(key="jb_rule_dataset").set_value("eo-conversational")
    app.selectbox(key="jb_rule_choice").set_value("max")
    app.button(key="jb_rule_apply").click().run()
    assert not app.exception, app.exception
    assert any("EM and F1 by max: rescored" in s.value for s in app.success)
    rules = {r.dataset: r for r in reference_rules.reference_rules(sample_store)}
    assert rules["eo-conversational"].rule == "max" and rules["eo-conversational"].chosen
    assert rules["eo-rag"].rule == "max" and not rules["eo-rag"].chosen
