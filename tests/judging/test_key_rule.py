"""The key rule: a judge with an api_base receives only the key it names.

The loopback server records each request's Authorization header; OPENAI_API_KEY is set in the
environment throughout, as on a server that also runs OpenAI judges. The provider path (no
api_base) is tested through the key-selection function only: no real provider is called.
"""

from __future__ import annotations

import pytest

from dashboard.judging import BackgroundLoop
from dashboard.judging.launcher import key_status
from dashboard.judging.llm import JudgeClient
from dashboard.judging.panel import (
    NO_KEY,
    Judge,
    api_key_for,
    deployment_params,
    key_routes,
    load_panel,
)
from tests.judging.conftest import KEY_ENV, SECRET_KEY
from tests.support.judge_server import JudgeServer

SERVER_KEY = "sk-server-OPENAI-0123456789abcdef"
MESSAGES = [{"role": "user", "content": "Rate this answer <rate=4>"}]


@pytest.fixture(autouse=True)
def _server_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)


def _headers(server: JudgeServer, loop: BackgroundLoop, judge: Judge) -> list[str]:
    client = JudgeClient(judge, kind="rating", low=1, high=5)
    completion = loop.run(client.complete(MESSAGES), timeout_s=30)
    assert completion.text  # the call went through
    return server.stats(judge.model.split("/", 1)[1]).authorizations


def test_without_api_base_the_provider_default_is_unchanged() -> None:
    judge = load_panel("openai/gpt-4o-mini").judges[0]
    assert api_key_for(judge) is None  # LiteLLM reads OPENAI_API_KEY itself, as before
    assert key_routes(judge) == ()
    assert key_status(judge) == "OPENAI_API_KEY set"


def test_an_api_base_without_a_named_key_is_sent_no_key(
    server: JudgeServer, loop: BackgroundLoop
) -> None:
    judge = Judge("self-hosted", "openai/keyrule-none", api_base=server.url)
    assert api_key_for(judge) == NO_KEY
    headers = _headers(server, loop, judge)
    assert headers and all(SERVER_KEY not in h for h in headers)
    assert all(h in ("", f"Bearer {NO_KEY}") for h in headers)
    assert key_status(judge) == "no key sent"


def test_an_api_base_with_a_named_key_gets_that_key(
    server: JudgeServer, loop: BackgroundLoop
) -> None:
    judge = Judge("named", "openai/keyrule-named", api_base=server.url, api_key_env=KEY_ENV)
    headers = _headers(server, loop, judge)
    assert headers and all(h == f"Bearer {SECRET_KEY}" for h in headers)
    assert key_status(judge) == f"{KEY_ENV} set"


def test_a_router_deployment_with_an_api_base_gets_only_its_named_key(
    server: JudgeServer, loop: BackgroundLoop
) -> None:
    bare = {"model": "openai/keyrule-router", "api_base": server.url}
    named = {**bare, "api_key": f"os.environ/{KEY_ENV}"}
    assert deployment_params(bare)["api_key"] == NO_KEY
    assert deployment_params(named)["api_key"] == f"os.environ/{KEY_ENV}"  # still a reference
    judge = Judge(
        "router",
        "pool",
        model_list=({"model_name": "pool", "litellm_params": bare},),
    )
    client = JudgeClient(judge, kind="rating", low=1, high=5)
    assert loop.run(client.complete(MESSAGES), timeout_s=30).text
    headers = server.stats("keyrule-router").authorizations
    assert headers and all(SERVER_KEY not in h for h in headers)
    assert key_routes(judge) == ((None, server.url),)
