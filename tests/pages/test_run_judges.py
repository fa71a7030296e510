"""The Run judges page: the offline panel planned, run and re-planned on the sample database.

The offline panel's judge (`judgeboard/baseline`) runs in this process through LiteLLM, so no
key and no network are needed. Rubric `eve-0-5` is chosen because nothing in the sample is
rated with it yet, so the first plan has calls to make.
"""

from __future__ import annotations

import os

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.judging import PanelError
from dashboard.store import Store
from tests.pages.helpers import page_path

PAGE = page_path("run_judges")
DATASET = "eo-rag"


def _open(app: AppTest) -> AppTest:
    app.switch_page(PAGE)
    app.session_state["jb_dataset"] = DATASET
    app.run()
    assert not app.exception
    return app


def _plan_table(app: AppTest):
    app.button(key="jb_run_plan_button").click().run()
    assert not app.exception
    tables = [d.value for d in app.dataframe if "to call" in d.value.columns]
    assert tables, "the plan table is not shown"
    return tables[0].set_index("judge")


def _ratings(store: Store, dataset: str) -> int:
    return next(d.n_ratings for d in store.list_datasets() if d.name == dataset)


def test_plan_run_and_everything_cached_after(app: AppTest, sample_store: Store) -> None:
    _open(app)
    assert app.selectbox(key="jb_run_panel").value == "offline"  # needs no key
    app.selectbox(key="jb_run_rubric").set_value("eve-0-5").run()
    before = _ratings(sample_store, DATASET)

    plan = _plan_table(app)
    needed = int(plan.loc["baseline", "to call"])
    assert needed > 0 and int(plan.loc["total", "to call"]) == needed
    assert plan.loc["baseline", "estimated cost"] == "$0.0000"

    app.button(key="jb_run_button").click().run()
    assert not app.exception
    summary = next(d.value for d in app.dataframe if "calls made" in d.value.columns)
    row = summary.set_index("judge").loc["baseline"]
    assert int(row["calls made"]) == needed and int(row["failed"]) == 0
    assert _ratings(sample_store, DATASET) > before  # the ratings reached the database
    assert not [b for b in app.button if b.label == "Cancel the run"]  # gone once it ended

    again = _plan_table(app)
    assert int(again.loc["baseline", "to call"]) == 0
    assert int(again.loc["baseline", "cached"]) == int(again.loc["baseline", "calls"]) == needed
    assert any("Everything is cached" in s.value for s in app.success)


def test_a_pairwise_plan_of_the_rated_sample_is_all_cached(app: AppTest) -> None:
    _open(app)
    app.selectbox(key="jb_run_rubric").set_value("pairwise").run()
    app.selectbox(key="jb_run_system_a").set_value("eo-rag-large").run()
    app.selectbox(key="jb_run_system_b").set_value("keyword-baseline").run()
    plan = _plan_table(app)
    # The sample ships with the baseline's verdicts on this pair, in both orders.
    assert int(plan.loc["baseline", "to call"]) == 0
    assert int(plan.loc["baseline", "calls"]) > 0
    assert any("judgements" in c.value for c in app.caption)


def test_a_selection_too_big_to_plan_here_is_refused(app: AppTest, monkeypatch) -> None:
    from dashboard.judging import launcher

    monkeypatch.setattr(launcher, "PLAN_LIMIT", 10)  # the sample's eo-rag has 120 responses
    _open(app)
    assert any("plans at most 10" in w.value for w in app.warning)
    assert app.button(key="jb_run_plan_button").disabled
    app.multiselect(key="jb_run_systems").set_value(["eo-rag-small"]).run()
    assert app.button(key="jb_run_plan_button").disabled  # 40 responses: still too many
    monkeypatch.setattr(launcher, "PLAN_LIMIT", 40)
    app.run()
    assert not app.button(key="jb_run_plan_button").disabled


def test_a_typed_panel_shows_models_and_key_variables_never_keys(app: AppTest, monkeypatch) -> None:
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    _open(app)
    app.radio(key="jb_run_source").set_value("Model strings").run()
    app.text_input(key="jb_run_models").input("openai/gpt-4o-mini, judgeboard/baseline").run()
    assert not app.exception
    judges = next(d.value for d in app.dataframe if "key" in d.value.columns)
    assert list(judges["model"]) == ["openai/gpt-4o-mini", "judgeboard/baseline"]
    assert list(judges["key"]) == ["OPENAI_API_KEY set", "no key needed"]
    shown = " ".join(
        str(e.value) for kind in ("dataframe", "markdown", "caption", "code") for e in app.get(kind)
    )
    assert secret not in shown and os.environ["OPENAI_API_KEY"] == secret


def test_a_bad_panel_shows_its_message(app: AppTest) -> None:
    _open(app)
    app.radio(key="jb_run_source").set_value("Model strings").run()
    app.text_input(key="jb_run_models").input(" , ").run()
    assert not app.exception
    assert any("no judge given" in e.value for e in app.error)


def test_failed_calls_show_the_last_error_without_the_key(app: AppTest, monkeypatch) -> None:
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.setenv("OPENAI_API_BASE", "http://127.0.0.1:9/v1")  # nothing listens there
    _open(app)
    app.selectbox(key="jb_run_rubric").set_value("eve-0-5").run()
    app.radio(key="jb_run_source").set_value("Model strings").run()
    app.text_input(key="jb_run_models").input("openai/gpt-4o-mini").run()
    app.multiselect(key="jb_run_systems").set_value(["eo-rag-small"]).run()
    _plan_table(app)
    app.button(key="jb_run_button").click().run(timeout=120)
    assert not app.exception
    summary = next(d.value for d in app.dataframe if "calls made" in d.value.columns)
    assert int(summary.set_index("judge").loc["openai/gpt-4o-mini", "failed"]) > 0
    failed = [e.value for e in app.error if "call(s) failed" in e.value]
    assert failed, "the failure is not shown"
    # One readable line, never the exception's text.
    assert "could not reach the server" in failed[0], failed
    assert "Error" not in failed[0] and "Exception" not in failed[0]
    shown = " ".join(str(e.value) for kind in ("dataframe", "error", "code") for e in app.get(kind))
    assert secret not in shown


def test_redact_removes_key_values_and_key_shapes(monkeypatch) -> None:
    from dashboard.judging import launcher
    from dashboard.judging.panel import panel_from_toml

    monkeypatch.setenv("MY_VLLM_KEY", "vllm-secret-value")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "anthropic-secret")
    panel = panel_from_toml(
        '[[judges]]\nmodel = "hosted_vllm/x"\n'
        'api_base = "http://user:pw@127.0.0.1:8000/v1"\n'
        'api_key_env = "MY_VLLM_KEY"\n'
    )
    text = (
        "401: key vllm-secret-value refused; anthropic-secret; sk-abcdefghijklmnop; "
        "Authorization: Bearer xyz123"
    )
    cleaned = launcher.redact(text, panel)
    for secret in ("vllm-secret-value", "anthropic-secret", "sk-abcdefghijklmnop", "xyz123"):
        assert secret not in cleaned
    [row] = launcher.judge_rows(panel)
    assert row["api_base"] == "http://127.0.0.1:8000/v1"  # no user:password
    assert row["key"] == "MY_VLLM_KEY set"


def test_a_selection_with_nothing_to_judge_says_so(app: AppTest, sample_store: Store) -> None:
    from dashboard.judging import launcher, load_rubric

    app.switch_page(PAGE)
    app.session_state["jb_dataset"] = "eo-mcqa"  # multiple choice only: nothing likert-rag rates
    app.run()
    app.selectbox(key="jb_run_rubric").set_value("likert-rag").run()
    assert not app.exception
    assert any("Nothing matches this selection" in i.value for i in app.info)
    assert not any("cached" in s.value for s in app.success)
    assert app.button(key="jb_run_plan_button").disabled
    # A plan of no target is "empty", not "everything cached".
    request = launcher.RunRequest("offline", "likert-rag", "eo-mcqa", source=launcher.PANEL_FILE)
    plan = launcher.make_plan(sample_store, request, load_rubric("likert-rag"))
    assert plan.n_targets == 0 and launcher.plan_outcome(plan) == "empty"
    assert not launcher.has_work(plan)


def test_an_endpoint_is_shown_without_credentials_query_or_fragment() -> None:
    from dashboard.judging import launcher
    from dashboard.judging.panel import panel_from_toml

    panel = panel_from_toml(
        '[[judges]]\nmodel = "hosted_vllm/x"\n'
        'api_base = "https://user:pw@127.0.0.1:8000/v1?key=sk-query-secret&x=1#token=frag"\n'
    )
    [row] = launcher.judge_rows(panel)
    assert row["api_base"] == "https://127.0.0.1:8000/v1"


def test_typed_model_strings_never_load_a_file(app: AppTest, tmp_path) -> None:
    """The typed box builds judges from model strings only: a path to a TOML file on the
    server (here a panel whose judge has a telling name) is a model string, not a file."""
    from dashboard.judging import launcher

    panel_file = tmp_path / "server-side.toml"
    panel_file.write_text(
        '[[judges]]\nname = "read-from-the-server"\nmodel = "judgeboard/baseline"\n',
        encoding="utf-8",
    )
    _open(app)
    app.radio(key="jb_run_source").set_value("Model strings").run()
    for typed in (str(panel_file), "offline", "data/panels/offline.toml"):
        app.text_input(key="jb_run_models").input(typed).run()
        assert not app.exception
        judges = next(d.value for d in app.dataframe if "key" in d.value.columns)
        assert list(judges["judge"]) == [typed] and list(judges["model"]) == [typed]
        assert "read-from-the-server" not in " ".join(
            str(e.value) for kind in ("dataframe", "error", "text", "code") for e in app.get(kind)
        )
    # A panel file is picked by name among data/panels/ only.
    with pytest.raises(PanelError, match="no panel named"):
        launcher.build_panel(str(panel_file), source=launcher.PANEL_FILE)
    named = launcher.build_panel("offline", source=launcher.PANEL_FILE)
    assert [j.model for j in named.judges] == ["judgeboard/baseline"]


def test_unusable_rubric_files_are_listed_and_the_others_still_offered(
    app: AppTest, tmp_path, monkeypatch
) -> None:
    (tmp_path / "broken.toml").write_text('name = "broken"\nkind = [', encoding="utf-8")
    monkeypatch.setenv("JUDGEBOARD_RUBRICS", str(tmp_path))
    for page in (PAGE, page_path("annotate"), page_path("pairwise")):
        app.switch_page(page)
        app.session_state["jb_dataset"] = DATASET
        app.run()
        assert not app.exception, page
    app.switch_page(PAGE).run()
    assert any("cannot be used" in w.value for w in app.warning)
    assert any("broken.toml" in t.value for t in app.text)  # named as plain text
    assert "likert-rag" in app.selectbox(key="jb_run_rubric").options


def test_redact_masks_every_provider_key_variable(monkeypatch) -> None:
    """`redact` is the judge panel's one scrubber: LiteLLM's provider variables beyond the
    few the page names (Azure, Hugging Face...) are masked too."""
    from dashboard.judging import launcher

    monkeypatch.setenv("AZURE_API_KEY", "azure-secret-0123456789")
    monkeypatch.setenv("HUGGINGFACE_API_KEY", "hf-secret-0123456789")
    cleaned = launcher.redact("tried azure-secret-0123456789 then hf-secret-0123456789")
    assert "azure-secret" not in cleaned and "hf-secret" not in cleaned


def test_epochs_ask_each_judge_n_times_and_report_its_self_consistency(
    app: AppTest, sample_store: Store, tmp_path, monkeypatch
) -> None:
    """Repeated judging from the page, with a judge on a loopback OpenAI-compatible server
    through real LiteLLM: N calls per answer (counted on the server, each with seed +
    epoch), the rating their reducer, and the summary's self-consistency with interval and
    n; a second plan finds every epoch cached."""
    import threading
    from collections import Counter

    from dashboard.judging.panel_files import SelfHostedJudge, save_panel
    from dashboard.settings import PANELS_ENV
    from tests.support.judge_server import JudgeServer, ModelScript

    asked: Counter[str] = Counter()
    lock = threading.Lock()

    def reply(prompt: str) -> str:  # 3, 4, 3, 4, ...: each ask of a prompt may differ
        with lock:
            asked[prompt] += 1
            value = 3 + asked[prompt] % 2
        return f"Explanation: ask.\nRating: [[{value}]]"

    monkeypatch.setenv(PANELS_ENV, str(tmp_path / "panels"))
    with JudgeServer() as server:
        server.script("epoch-judge", ModelScript(reply=reply))
        save_panel(SelfHostedJudge("epochs-loop", "openai/epoch-judge", server.url))
        _open(app)
        app.selectbox(key="jb_run_panel").set_value("epochs-loop").run()
        app.selectbox(key="jb_run_rubric").set_value("eve-0-5").run()
        app.multiselect(key="jb_run_systems").set_value(["eo-rag-small"]).run()
        one = int(_plan_table(app).loc["openai/epoch-judge", "to call"])
        app.number_input(key="jb_run_epochs").set_value(3).run()
        app.selectbox(key="jb_run_epochs_reduce").set_value("median").run()
        app.number_input(key="jb_run_epochs_temperature").set_value(0.7).run()
        app.number_input(key="jb_run_epochs_seed").set_value(5).run()
        plan = _plan_table(app)
        assert int(plan.loc["openai/epoch-judge", "to call"]) == 3 * one
        assert any("3 epochs per answer, rating = their median" in c.value for c in app.caption)
        app.button(key="jb_run_button").click().run(timeout=120)
        assert not app.exception
        stats = server.stats("epoch-judge")
        assert stats.requests == 3 * one and stats.seeds == {5: one, 6: one, 7: one}
        summary = next(d.value for d in app.dataframe if "calls made" in d.value.columns)
        row = summary.set_index("judge").loc["openai/epoch-judge"]
        assert int(row["calls made"]) == 3 * one and int(row["failed"]) == 0
        said = str(row["self-consistency"])
        assert f"over 3 epochs of {one} answers" in said
        assert f"(95% intervals over the answers, n = {one})" in said
        again = _plan_table(app)
        assert int(again.loc["openai/epoch-judge", "to call"]) == 0
        assert server.stats("epoch-judge").requests == 3 * one
