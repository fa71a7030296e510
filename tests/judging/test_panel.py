"""Panel files, model-string panels, CLI overrides, and what a panel refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboard.judging import BASELINE_MODEL, PanelError, load_panel
from dashboard.judging.panel import api_key_for, panel_from_toml, with_overrides
from dashboard.settings import panels_dir
from tests.paths import SAMPLE_DATA


def test_the_shipped_panels_load() -> None:
    offline = load_panel("offline")
    assert [(j.name, j.model) for j in offline.judges] == [("baseline", BASELINE_MODEL)]
    assert offline.judges[0].input_cost_per_token == 0.0  # free, so its cost is known
    multi = load_panel(SAMPLE_DATA / "panels" / "example-multi.toml")
    assert panels_dir().resolve() == SAMPLE_DATA / "panels"
    by_name = {j.name: j for j in multi.judges}
    assert by_name["gpt-4o-mini"].concurrency == 16 and by_name["claude-haiku"].concurrency == 8
    assert by_name["qwen-vllm"].api_base == "http://127.0.0.1:8000/v1"
    pool = by_name["llama-70b-pool"]
    assert pool.uses_router and pool.fallbacks == ("llama-70b-hosted",)
    assert len(pool.model_list) == 3


def test_model_strings_make_a_panel_and_flags_override_every_judge() -> None:
    panel = load_panel(
        "openai/gpt-4o-mini, judgeboard/baseline",
        overrides={"concurrency": 32, "timeout_s": None, "api_base": "http://x"},
    )
    assert [j.name for j in panel.judges] == ["openai/gpt-4o-mini", BASELINE_MODEL]
    assert all(j.concurrency == 32 and j.timeout_s == 60.0 for j in panel.judges)
    assert panel.judges[0].input_cost_per_token is None
    with pytest.raises(PanelError, match="cannot override model"):
        with_overrides(panel, {"model": "x"})
    with pytest.raises(PanelError, match="concurrency"):
        with_overrides(panel, {"concurrency": 0})


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[[judges]]\nmodel = "m"\napi_key = "sk-abc"', "api_key is not accepted"),
        ('[defaults]\napi_key = "sk-abc"\n[[judges]]\nmodel = "m"', "api_key is not accepted"),
        ('[[judges]]\nmodel = "m"\nconcurency = 3', "unknown key\\(s\\) concurency"),
        ('name = "p"', "no \\[\\[judges\\]\\]"),
        ('[[judges]]\nname = "j"', "every judge needs a model"),
        ('[[judges]]\nmodel = "m"\n[[judges]]\nmodel = "m"', "names must be unique"),
        ('[[judges]]\nmodel = "m"\napi_key_env = "not a name"', "api_key_env must name"),
        (
            '[[judges]]\nmodel = "pool"\n[[judges.model_list]]\nmodel_name = "pool"\n'
            'litellm_params = { model = "openai/x", api_key = "sk-literal" }',
            "os.environ/NAME",
        ),
        (
            '[[judges]]\nmodel = "pool"\n[[judges.model_list]]\nmodel_name = "other"\n'
            'litellm_params = { model = "openai/x" }',
            "names no model_name",
        ),
    ],
)
def test_bad_panels_say_what_to_fix(toml: str, message: str) -> None:
    with pytest.raises(PanelError, match=message) as raised:
        panel_from_toml(toml)
    assert "sk-abc" not in str(raised.value) and "sk-literal" not in str(raised.value)


def test_keys_come_from_the_named_environment_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "p.toml"
    path.write_text('[[judges]]\nmodel = "openai/m"\napi_key_env = "MY_JUDGE_KEY"\n')
    judge = load_panel(path).judges[0]
    monkeypatch.delenv("MY_JUDGE_KEY", raising=False)
    with pytest.raises(PanelError, match="set the environment variable MY_JUDGE_KEY"):
        api_key_for(judge)
    monkeypatch.setenv("MY_JUDGE_KEY", "k-123")
    assert api_key_for(judge) == "k-123"


def test_the_cache_identity_covers_what_changes_the_output() -> None:
    base = load_panel("openai/m").judges[0]
    same = load_panel("openai/m", overrides={"concurrency": 3, "timeout_s": 5}).judges[0]
    assert base.cache_identity() == same.cache_identity()
    for change in ({"temperature": 0.7}, {"max_tokens": 9}, {"api_base": "http://other"}):
        assert (
            load_panel("openai/m", overrides=change).judges[0].cache_identity()
            != base.cache_identity()
        )


def test_a_panel_file_names_judge_and_system_families() -> None:
    from dashboard.judging.panel import PanelError, panel_from_toml

    text = """
[[judges]]
model = "openai/gpt-4o-mini"
family = "openai"

[[judges]]
model = "judgeboard/baseline"

[system_families]
"rag-gpt" = "openai"
"""
    found = panel_from_toml(text)
    assert found.judge_families() == {"openai/gpt-4o-mini": "openai"}
    assert found.system_families == {"rag-gpt": "openai"}
    bad = text.replace('"rag-gpt" = "openai"', '"rag-gpt" = 3')
    with pytest.raises(PanelError, match="system_families"):
        panel_from_toml(bad)
