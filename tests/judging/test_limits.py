"""Providers' limits (`rpm`, `tpm` in a panel file): the run stays under them across its
worker processes, against a loopback server that answers 429 above its rate."""

from __future__ import annotations

import asyncio
import time

import pytest

from dashboard.judging import BackgroundLoop, load_rubric, plan_lines, plan_run, run_plan
from dashboard.judging.limits import RateLimiter, limited_seconds
from dashboard.judging.panel import PanelError, panel_from_toml
from dashboard.store import Store
from tests.judging.conftest import judge, panel, seed
from tests.support.judge_server import JudgeServer, ModelScript

RATE_PER_S = 10.0  # the server's limit; the judge's rpm says the same


def test_a_panel_file_gives_each_judge_its_limits() -> None:
    loaded = panel_from_toml(
        '[defaults]\nrpm = 500\n[[judges]]\nmodel = "openai/a"\ntpm = 200000\n'
        '[[judges]]\nmodel = "openai/b"\nrpm = 60\n'
    )
    assert [(j.rpm, j.tpm) for j in loaded.judges] == [(500, 200000), (60, None)]
    with pytest.raises(PanelError, match="rpm must be a number > 0"):
        panel_from_toml('[[judges]]\nmodel = "openai/a"\nrpm = 0\n')


def test_the_limiter_spaces_calls_by_requests_and_tokens() -> None:
    # rpm 120 -> 0.5 s a request; tpm 6000 -> 100 tokens a second: 200 tokens = 2 s.
    limiter = RateLimiter(rpm=120, tpm=6000)
    assert limiter.request_s == 0.5 and limiter.token_s == 0.01

    async def three() -> float:
        started = time.monotonic()
        for _ in range(3):  # 50 tokens: the request limit binds (0.5 s > 0.5 s of tokens)
            await limiter.acquire(50)
        return time.monotonic() - started

    assert 0.95 <= asyncio.run(three()) <= 1.5
    by = limited_seconds(judge_of(rpm=120, tpm=6000), 10, 10 * 200)
    assert by is not None and by.seconds == 20.0 and by.bound_by == "tpm"


def judge_of(**limits: float) -> object:
    from dashboard.judging.panel import Judge

    return Judge(name="j", model="openai/j", **limits)  # type: ignore[arg-type]


def test_without_a_limit_the_server_refuses_some_calls(
    store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    server.script("lim-none", ModelScript(rate_per_s=RATE_PER_S, burst=3, retry_after_s=0.01))
    seed(store, n_items=10)
    plan = plan_run(store, panel(judge("lim-none", server)), load_rubric("likert-rag"))
    loop.run(run_plan(store, plan))
    assert server.stats("lim-none").faults["429"] > 0


@pytest.mark.parametrize("workers", [1, 2])
def test_under_the_limit_no_call_is_refused_and_the_run_takes_its_time(
    workers: int, store: Store, server: JudgeServer, loop: BackgroundLoop
) -> None:
    name = f"lim-{workers}"
    # The server's bucket holds one call more per worker than the test without a limit: each
    # worker spaces its own starts, and on a loaded machine a process stalled between a start
    # and its request's send can put two of its calls on the wire together (seen once in CI).
    server.script(name, ModelScript(rate_per_s=RATE_PER_S, burst=3 + workers, retry_after_s=0.01))
    seed(store, n_items=15)  # 30 calls at 10/s: at least 2.9 s
    limited = judge(name, server, rpm=RATE_PER_S * 60, concurrency=8)
    plan = plan_run(store, panel(limited), load_rubric("likert-rag"))
    assert any(
        "limited to 600 requests/min: 30 calls take at least 3 s" in line
        for line in plan_lines(plan)
    )
    started = time.perf_counter()
    summary = loop.run(run_plan(store, plan, workers=workers))
    wall_s = time.perf_counter() - started
    gaps = [
        round(b - a, 3)
        for a, b in zip(server.stats(name).arrivals, server.stats(name).arrivals[1:])
    ]
    assert summary.calls_made == 30 and summary.failures == 0, (server.stats(name).faults, gaps)
    stats = server.stats(name)
    assert stats.faults["429"] == 0 and stats.requests == 30
    span_s = stats.arrivals[-1] - stats.arrivals[0]
    assert 29 / RATE_PER_S * 0.8 <= span_s <= 29 / RATE_PER_S * 2.0, gaps
    assert wall_s >= 2.3
