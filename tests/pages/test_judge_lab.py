"""The Judge lab page walks the loop on the sample with the offline judge through real
LiteLLM: open the dev disagreements, edit the prompt (the diff shown), run on the labelled
answers (calls counted), compare on test, adopt; the panel's numbers change."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.judging import BackgroundLoop, run_judges
from dashboard.judging.panel_files import SelfHostedJudge, save_panel
from dashboard.metrics import overview
from dashboard.metrics.selection import Selection
from dashboard.settings import PANELS_ENV
from dashboard.store import Store
from tests.pages.helpers import open_page, page_path
from tests.support.judge_server import JudgeServer, ModelScript

PAGE = page_path("judge_lab")


def _panel(store: Store, panel: str | None = None) -> dict[str, float]:
    found = overview.overview(store, Selection("eo-rag", "likert-rag", panel=panel))
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
    (card,) = [i.value for i in app.info if "Judge card" in i.value]
    assert "model version not reported" in card  # the offline judge reports none
    assert app.metric[0].value == "0"  # the count restarts at the adoption


def _loopback_reply(prompt: str) -> str:
    """The loopback judge: a 2 when the edited prompt hides the reference, a 4 otherwise."""
    return "Short.\nRating: [[2]]" if "(not shown)" in prompt else "Fine.\nRating: [[4]]"


def test_the_loop_with_a_judge_on_a_loopback_server(
    sample_store: Store,
    app_for: Callable[[Store], AppTest],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same loop with a real model behind real LiteLLM: a self-hosted judge (a panel file
    naming an OpenAI-compatible server on 127.0.0.1) rates, its edited version runs on the
    labelled answers only (every call counted on the server), is compared and adopted."""
    monkeypatch.setenv(PANELS_ENV, str(tmp_path / "panels"))
    with JudgeServer() as server:
        server.script("lab-judge", ModelScript(reply=_loopback_reply))
        save_panel(SelfHostedJudge("lab-loop", "openai/lab-judge", server.url))
        loop = BackgroundLoop(name="lab-loopback")
        try:
            run_judges(sample_store, "lab-loop", "likert-rag", dataset="eo-rag", loop=loop)
        finally:
            loop.close()
        first = server.stats("lab-judge").requests
        assert first > 0

        app = open_page(app_for(sample_store), PAGE, dataset="eo-rag", annotator="ana")
        _ok(app.selectbox(key="jb_lab_judge").set_value("openai/lab-judge").run())
        template = app.text_area(key="jb_lab_template_1").value
        app.text_area(key="jb_lab_template_1").set_value(
            template.replace("{{reference_answer}}", "(not shown)")
        )
        _ok(app.run())
        app.text_input(key="jb_lab_note").set_value("no reference")
        _ok(app.button(key="jb_lab_save").click().run())
        _ok(app.text_input(key="jb_lab_panel").set_value("lab-loop").run())
        assert any("30" in c.value for c in app.code)  # the plan: the 30 labelled answers
        _ok(app.button(key="jb_lab_run").click().run())
        assert server.stats("lab-judge").requests == first + 30  # labelled answers only

        before = _panel(sample_store, "all-judges")
        _ok(app.button(key="jb_lab_compare").click().run())
        assert any("Verdict:" in m.value for m in app.markdown)
        _ok(app.text_input(key="jb_lab_reason").set_value("fewer hints").run())
        _ok(app.button(key="jb_lab_adopt").click().run())
        assert "Adopted 1-wb1 for openai/lab-judge on eo-rag" in app.success[0].value
        after = _panel(sample_store, "all-judges")  # the panel with the loopback judge in it
        assert after != before and all(after[s] < before[s] for s in before)  # its 2s count
        assert server.stats("lab-judge").requests == first + 30  # compare and adopt: no call
        (card,) = [i.value for i in app.info if "Judge card" in i.value]
        assert "model version lab-judge," in card and "fresh" in card
        named = app.selectbox(key="jb_lab_adopt_v").options
        assert named == ["1 (the rubric file's)", "1-wb1 (in force for this judge)"]
        # Another judge: the adoption is not its own, so 1-wb1 is a draft for it.
        other = [j for j in app.selectbox(key="jb_lab_judge").options if j != "openai/lab-judge"]
        _ok(app.selectbox(key="jb_lab_judge").set_value(other[0]).run())
        assert not any("Judge card" in i.value for i in app.info)
        assert any("No version adopted for" in c.value for c in app.caption)
        named = app.selectbox(key="jb_lab_adopt_v").options
        assert named == ["1 (in force for this judge)", "1-wb1 (draft)"]


def test_the_criteria_are_edited_and_a_version_exports_as_toml(
    judged_store: Store, app_for: Callable[[Store], AppTest]
) -> None:
    from dashboard.judging.rubrics import rubric_from_toml
    from dashboard.workbench import versions

    app = open_page(app_for(judged_store), PAGE, dataset="eo-rag", annotator="ana")
    (exported,) = [c.value for c in app.code if c.language == "toml"]
    root = versions.list_versions(judged_store, "likert-rag")[0].rubric
    assert rubric_from_toml(exported).template == root.template  # reads back as the file
    assert app.get("download_button")[0].proto.label == "Download the TOML"
    criteria = "Rates how faithful the answer is to the retrieved context."
    _ok(app.text_area(key="jb_lab_description_1").set_value(criteria).run())
    assert any(f'+description = "{criteria}"' in c.value for c in app.code)  # the diff
    _ok(app.button(key="jb_lab_save").click().run())
    assert "Saved version 1-wb1" in app.success[0].value
    saved = versions.get_version(judged_store, "likert-rag", "1-wb1")
    assert saved.rubric.description == criteria and saved.parent == "1"
    assert saved.rubric.template == root.template  # only the criteria changed
    _ok(app.selectbox(key="jb_lab_parent").set_value("1-wb1").run())
    (exported,) = [c.value for c in app.code if c.language == "toml"]
    assert 'parent = "1"' in exported and rubric_from_toml(exported).description == criteria


def test_a_few_shot_search_runs_on_dev_and_spends_no_look(
    judged_store: Store, app_for: Callable[[Store], AppTest]
) -> None:
    from dashboard.workbench import shots, split, versions

    app = open_page(app_for(judged_store), PAGE, dataset="eo-rag", annotator="ana")
    _ok(app.number_input(key="jb_lab_shot_sets").set_value(2).run())
    _ok(app.number_input(key="jb_lab_shot_k").set_value(2).run())
    _ok(app.button(key="jb_lab_shot_search").click().run(timeout=120))
    table = next(d.value for d in app.dataframe if "kappa_quadratic on dev" in d.value.columns)
    assert len(table) == 2 and set(table["examples"]) == {2}
    assert all("(n = " in v for v in table["kappa_quadratic on dev"])
    saved = [v for v in versions.list_versions(judged_store, "likert-rag") if not v.from_file]
    assert {v.author for v in saved} == {shots.AUTHOR} and len(saved) == 2
    dev = set(split.read_split(judged_store, rubric="likert-rag", dataset="eo-rag").ids("dev"))
    assert all({e.response_id for e in v.rubric.examples} <= dev for v in saved)
    assert app.metric[0].value == "0"  # no look at the test split
    with judged_store.connection() as con:
        assert con.execute("SELECT count(*) FROM test_looks").fetchone() == (0,)


def _looks_shown(app: AppTest) -> str:
    (shown,) = [m for m in app.metric if m.label.startswith("Looks at the test split")]
    return str(shown.value)


def test_looks_are_counted_per_judge(
    judged_store: Store, app_for: Callable[[Store], AppTest]
) -> None:
    """A look at one judge's test agreement spends that judge's count only; an adoption of
    one judge's version restarts that judge's count only."""
    from tests.workbench.test_looks import _with_twin

    _with_twin(judged_store)
    app = open_page(app_for(judged_store), PAGE, dataset="eo-rag", annotator="ana")
    assert {"baseline", "twin"} <= set(app.selectbox(key="jb_lab_judge").options)
    _ok(app.selectbox(key="jb_lab_judge").set_value("baseline").run())
    _ok(app.button(key="jb_lab_compare").click().run())
    assert _looks_shown(app) == "1"
    _ok(app.selectbox(key="jb_lab_judge").set_value("twin").run())
    assert _looks_shown(app) == "0"  # the baseline's look is not the twin's
    _ok(app.button(key="jb_lab_score").click().run())  # one version: one look
    _ok(app.button(key="jb_lab_compare").click().run())
    assert _looks_shown(app) == "2"
    _ok(app.selectbox(key="jb_lab_judge").set_value("baseline").run())
    assert _looks_shown(app) == "1"
    _ok(app.text_input(key="jb_lab_reason").set_value("as it is").run())
    _ok(app.button(key="jb_lab_adopt").click().run())
    assert "Adopted 1 for baseline on eo-rag" in app.success[0].value
    assert _looks_shown(app) == "0"  # the baseline's adoption restarts its count
    _ok(app.selectbox(key="jb_lab_judge").set_value("twin").run())
    assert _looks_shown(app) == "2"  # and leaves the twin's alone
