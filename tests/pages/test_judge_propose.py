"""The Judge lab's Propose section: an optimizer on a loopback OpenAI-compatible server (real
LiteLLM, `openai/…` with api_base) and the offline judge; proposals scored on dev with no look
spent, then the one picked run on the test answers and compared (one look)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.store import Store
from dashboard.workbench import split
from tests.pages.helpers import open_page, page_path
from tests.support.judge_server import JudgeServer, ModelScript, always

PAGE = page_path("judge_lab")
REPLY = json.dumps(
    {
        "proposals": [
            {"system": "You are a strict judge of accuracy. Rate 1 to 5.", "rationale": "lenient"},
            {"system": "Rate 1 to 5; penalise missing facts.", "rationale": "missing facts"},
            {"description": "no system"},
        ]
    }
)


@pytest.fixture
def server() -> Iterator[JudgeServer]:
    with JudgeServer() as running:
        running.script("optimizer", ModelScript(reply=always(REPLY)))
        yield running


def _looks(store: Store) -> int:
    return split.looks_since(store, rubric="likert-rag", dataset="eo-rag", since=None)


def test_propose_scores_on_dev_then_compares_the_pick_on_test(
    judged_store: Store, app_for: Callable[[Store], AppTest], server: JudgeServer
) -> None:
    app = open_page(app_for(judged_store), PAGE, dataset="eo-rag", annotator="ana")
    assert app.button(key="jb_lab_propose").disabled  # no optimizer model yet
    app.text_input(key="jb_lab_optimizer").set_value("openai/optimizer")
    app.text_input(key="jb_lab_opt_base").set_value(server.url)
    app.run()
    looks = _looks(judged_store)
    app.button(key="jb_lab_propose").click().run()
    assert not app.exception, app.exception
    assert server.stats("optimizer").requests == 1
    assert _looks(judged_store) == looks  # dev only: no look spent
    table = next(d.value for d in app.dataframe if "why" in d.value.columns)
    assert table["version"].tolist() == ["1", "1-wb1", "1-wb2"]
    assert all("(n = " in v for v in table["kappa_quadratic on dev"])
    assert any("Unparsed: a proposal must rewrite" in w.value for w in app.warning)
    assert any("+You are a strict judge of accuracy." in c.value for c in app.code)
    # not the newest draft, which Compare and Adopt would show by default
    app.selectbox(key="jb_lab_picked").set_value("1-wb1")
    app.button(key="jb_lab_pick").click().run()
    assert not app.exception, app.exception
    assert any("Verdict:" in m.value and "1-wb1" in m.value for m in app.markdown)
    assert _looks(judged_store) == looks + 1
    assert app.selectbox(key="jb_lab_candidate").value == "1-wb1"
    assert app.selectbox(key="jb_lab_adopt_v").value == "1-wb1"  # adopt what was compared
