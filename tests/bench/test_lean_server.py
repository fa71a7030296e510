"""The benchmark's lean loopback server (tests/support/lean_judge_server.py), started as
bench_judge starts it: valid HTTP/1.1 keep-alive answers with the threaded server's bodies,
and real LiteLLM calls through the runner, in one process and in two workers, rate every
answer as its marker says, each prompt once."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bench.bench_judge import judge_server
from dashboard.judging import load_rubric, plan_run, run_plan
from dashboard.judging.panel import Judge, Panel
from dashboard.store import Store
from tests.judging.conftest import KEY_ENV, SECRET_KEY, query, seed
from tests.support.judge_server import _completion, marker_reply

PROMPT = "Rate this answer. <rate=4>"


@pytest.fixture(scope="module")
def api_base() -> Iterator[str]:
    with judge_server(2, server="lean") as url:
        yield url


def _request(model: str, prompt: str = PROMPT) -> bytes:
    return json.dumps({"model": model, "messages": [{"role": "user", "content": prompt}]}).encode()


def _expected(model: str, prompt: str = PROMPT) -> dict[str, object]:
    body = json.loads(_completion(model, marker_reply(prompt), prompt))
    del body["created"]  # the time of the answer
    return body


def _stats(api_base: str) -> dict[str, dict[str, int]]:
    address = urlsplit(api_base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
    connection.request("GET", "/stats")
    return json.loads(connection.getresponse().read())


def test_answers_on_one_kept_alive_connection_as_the_threaded_server_does(api_base: str) -> None:
    address = urlsplit(api_base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
    for _ in range(3):  # http.client reconnects silently if the server closed: count sockets
        connection.request(
            "POST", "/v1/chat/completions", _request("raw"), {"Content-Type": "application/json"}
        )
        reply = connection.getresponse()
        raw = reply.read()
        assert (reply.status, reply.version) == (200, 11)
        assert reply.getheader("Content-Length") == str(len(raw))
        assert reply.getheader("Connection") is None
        body = json.loads(raw)
        assert isinstance(body.pop("created"), int)
        assert body == _expected("raw")
        assert connection.sock is not None
    for path, body, status in (
        ("/v1/nowhere", b"{}", 404),
        ("/v1/chat/completions", b"not json", 400),
    ):
        connection.request("POST", path, body)
        reply = connection.getresponse()
        assert (reply.status, json.loads(reply.read())["error"]["message"] != "") == (status, True)
    connection.close()
    assert _stats(api_base)["raw"] == {
        "requests": 3,
        "completed": 3,
        "faults": {},
        "hanging": 0,
        "max_completions_per_prompt": 3,
        "repeated_completions": 2,  # the same prompt three times
    }


def test_pipelined_requests_are_answered_in_order_then_close_is_honoured(api_base: str) -> None:
    address = urlsplit(api_base)
    prompts = ["first <rate=1>", "second <rate=5>"]
    with socket.create_connection((address.hostname, address.port), timeout=10) as sock:
        wire = b""
        for i, prompt in enumerate(prompts):
            body = _request("piped", prompt)
            close = "Connection: close\r\n" if i == len(prompts) - 1 else ""
            wire += (
                f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n{close}"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode() + body
        sock.sendall(wire)  # both requests in one write
        received = b""
        while chunk := sock.recv(65536):  # the server closes after the second answer
            received += chunk
    answers = []
    while received:
        head, _, rest = received.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        assert lines[0] == "HTTP/1.1 200 OK"
        headers = dict(line.split(": ", 1) for line in lines[1:])
        length = int(headers["Content-Length"])
        answers.append(json.loads(rest[:length]))
        received = rest[length:]
    assert [a["choices"][0]["message"]["content"] for a in answers] == [
        marker_reply(p) for p in prompts
    ]


def _judge(name: str, api_base: str) -> Judge:
    return Judge(
        name=name,
        model=f"openai/{name}",
        api_base=api_base,
        api_key_env=KEY_ENV,
        concurrency=48,
        timeout_s=20,
        max_attempts=1,  # a bad answer fails the call rather than being retried away
    )


@pytest.mark.parametrize("workers", [1, 2])
def test_litellm_through_the_runner_rates_every_answer_by_its_marker(
    api_base: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET_KEY)
    store = Store(tmp_path / "lean.duckdb", wait_s=20.0)
    data = seed(store, n_items=150)  # 300 answers, each its own prompt
    name = f"lean-{workers}"
    plan = plan_run(store, Panel("lean", (_judge(name, api_base),)), load_rubric("likert-rag"))
    summary = asyncio.run(run_plan(store, plan, workers=workers))
    assert (summary.calls_made, summary.failures) == (300, 0)
    rows = query(store, "SELECT response_id, value FROM current_ratings WHERE rater = ?", [name])
    assert {r["response_id"]: r["value"] for r in rows} == data.expected
    stats = _stats(api_base)[name]
    assert (stats["requests"], stats["completed"]) == (300, 300)
    assert stats["max_completions_per_prompt"] == 1
