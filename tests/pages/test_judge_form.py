"""Run judges: a self-hosted judge defined in the form, saved as a panel file, read back by the
panel loader, and run against the loopback judge server through real LiteLLM."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.auth.roles import RoleError
from dashboard.auth.users import User
from dashboard.judging import load_panel
from dashboard.judging.panel import PanelError
from dashboard.judging.panel_files import SelfHostedJudge, panel_text, save_panel
from dashboard.settings import PANELS_ENV
from dashboard.store import Store
from tests.pages.helpers import page_path
from tests.support.judge_server import JudgeServer, ModelScript, always

PAGE = page_path("run_judges")
FORM = "jb_judge_form"


@pytest.fixture
def panels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "panels"
    monkeypatch.setenv(PANELS_ENV, str(folder))
    return folder


@pytest.fixture
def server() -> Iterator[JudgeServer]:
    with JudgeServer() as running:
        running.script("local-judge", ModelScript(reply=always("Fine.\nRating: [[4]]")))
        yield running


def _open(app: AppTest) -> AppTest:
    app.switch_page(PAGE)
    app.session_state["jb_dataset"] = "eo-rag"
    app.run()
    assert not app.exception, app.exception
    return app


def _fill(app: AppTest, **values: object) -> AppTest:
    for name, value in values.items():
        widget = (
            app.number_input(key=f"{FORM}_{name}")
            if name in ("concurrency", "max_tokens", "usd_in", "usd_out")
            else app.text_input(key=f"{FORM}_{name}")
        )
        widget.set_value(value)
    app.button(key=f"{FORM}_save").click().run()
    assert not app.exception, app.exception
    return app


def test_the_form_saves_a_panel_the_loader_reads_and_the_page_runs_it(
    app: AppTest, panels: Path, server: JudgeServer, sample_store: Store
) -> None:
    _open(app)
    _fill(
        app,
        model="hosted_vllm/local-judge",
        api_base=server.url,
        panel="my-local",
        concurrency=3,
        max_tokens=64,
        usd_in=0.5,
        usd_out=1.5,
    )
    saved = panels / "my-local.toml"
    assert saved.is_file()
    judge = load_panel(saved).judges[0]
    assert (judge.model, judge.api_base) == ("hosted_vllm/local-judge", server.url)
    assert (judge.concurrency, judge.max_tokens) == (3, 64)
    # USD per 1k tokens -> per token: 0.5 / 1000 and 1.5 / 1000.
    assert judge.input_cost_per_token == pytest.approx(0.0005)
    assert judge.output_cost_per_token == pytest.approx(0.0015)
    assert app.selectbox(key="jb_run_panel").value == "my-local"  # chosen for the run
    assert "offline" in app.selectbox(key="jb_run_panel").options  # shipped panels stay
    assert any("Saved" in s.value for s in app.success)

    app.selectbox(key="jb_run_rubric").set_value("eve-0-5").run()
    # The rubric's prompt is shown, its placeholders unfilled.
    assert any("{" in c.value for c in app.code), "the rubric's prompt is not shown"
    app.button(key="jb_run_plan_button").click().run()
    plan = next(d.value for d in app.dataframe if "to call" in d.value.columns)
    needed = int(plan.set_index("judge").loc["hosted_vllm/local-judge", "to call"])
    assert needed > 0
    app.button(key="jb_run_button").click().run()
    assert not app.exception, app.exception
    summary = next(d.value for d in app.dataframe if "calls made" in d.value.columns)
    row = summary.set_index("judge").loc["hosted_vllm/local-judge"]
    assert int(row["calls made"]) == needed and int(row["failed"]) == 0
    assert server.stats("local-judge").completed == needed


def test_a_bad_form_says_which_field_and_writes_nothing(app: AppTest, panels: Path) -> None:
    _open(app)
    _fill(app, model="openai/x", api_base="localhost:8000", panel="bad")
    assert any("api_base" in e.value.replace("\\", "") for e in app.error)
    _fill(app, api_base="http://127.0.0.1:9/v1", panel="../escape")
    assert any("panel name" in e.value for e in app.error)
    assert not panels.exists() or not list(panels.iterdir())


def test_a_name_in_use_is_refused(panels: Path) -> None:
    judge = SelfHostedJudge(panel="offline", model="openai/x", api_base="http://127.0.0.1:9/v1")
    with pytest.raises(PanelError, match="exists already"):
        save_panel(judge)  # the shipped panel's name
    path, panel = save_panel(SelfHostedJudge("mine", "openai/x", "http://127.0.0.1:9/v1"))
    assert path.parent == panels and panel.judges[0].name == "openai/x"
    with pytest.raises(PanelError, match="exists already"):
        save_panel(SelfHostedJudge("mine", "openai/y", "http://127.0.0.1:9/v1"))


def test_the_text_is_toml_with_quotes_escaped() -> None:
    text = panel_text(
        SelfHostedJudge("q", 'openai/a"b', "http://h/v1", usd_per_1k_in=None, family="x\\y")
    )
    data = tomllib.loads(text)
    assert data["judges"][0]["model"] == 'openai/a"b'
    assert data["judges"][0]["family"] == "x\\y"
    assert "input_cost_per_token" not in data["judges"][0]  # None: LiteLLM's price map


def test_the_form_says_which_key_goes_to_the_api_base(
    app: AppTest, panels: Path, server: JudgeServer, sample_store: Store
) -> None:
    """The key rule on the form: a named variable (never its value) goes to the api_base;
    with none named, no key is sent there."""
    _open(app)
    _fill(app, model="openai/local-judge", api_base=server.url, panel="keyless")
    captions = [c.value for c in app.caption]
    assert any("Key: none is sent to" in c and "no key variable named" in c for c in captions)
    _fill(app, key_env="MY_LOCAL_KEY", panel="keyed")
    captions = [c.value for c in app.caption]
    assert any("Key: the value of MY\\_LOCAL\\_KEY is sent to" in c for c in captions), captions
    assert load_panel(panels / "keyed.toml").judges[0].api_key_env == "MY_LOCAL_KEY"


def test_a_labeller_may_not_add_a_judge(panels: Path) -> None:
    """A panel names where judge calls go and which key they carry: an admin's action, refused
    in the function (nothing written), not only by hiding the form."""
    judge = SelfHostedJudge("mine", "openai/x", "http://127.0.0.1:9/v1")
    with pytest.raises(RoleError, match="only an admin may add a judge"):
        save_panel(judge, actor=User("lee", "labeller"))
    assert not panels.exists() or not list(panels.iterdir())
    path, _ = save_panel(judge, actor=User("ada", "admin"))
    assert path.is_file()
