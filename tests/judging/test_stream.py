"""A big plan streams: its counts match the whole plan's, and a run holds at most about two
chunks of calls (rendered prompts) at a time, whatever the plan's size (issue 33).

Measured through the real `judgeboard judge` command, in this process, against the loopback
server through real LiteLLM: `tracemalloc` gives the most memory Python held during a run of
200 calls and of 800, next to what a whole plan of the same sizes holds.
"""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from dashboard.cli import main
from dashboard.judging import load_rubric, plan_run, run_plan
from dashboard.judging.llm import litellm_module
from dashboard.judging.stream import PlanChunks, can_stream, plan_streamed
from dashboard.store import Store
from tests.judging.conftest import KEY_ENV, judge, panel, query, seed
from tests.support.judge_server import JudgeServer, ModelScript

CHUNK = 50
CONCURRENCY = 8


def judge_args(store: Store, server: JudgeServer, model: str, *extra: str) -> list[str]:
    return [
        "--db",
        store.url,
        "judge",
        "--panel",
        f"openai/{model}",
        "--rubric",
        "likert-rag",
        "--api-base",
        server.url,
        "--api-key-env",
        KEY_ENV,
        "--concurrency",
        str(CONCURRENCY),
        "--no-progress",
        "--plan-chunk",
        str(CHUNK),
        *extra,
    ]


def test_a_streamed_plan_counts_what_the_whole_plan_counts(
    store: Store, server: JudgeServer
) -> None:
    # 2 datasets with the same questions and answers: each prompt is met again in a later
    # chunk (the second dataset sorts after the first), and shares the first one's call.
    seed(store, n_items=150, dataset="demo")
    seed(store, n_items=150, dataset="twin")
    server.script("stream-count", ModelScript())
    rubric = load_rubric("likert-rag")
    priced = judge("stream-count", server, input_cost_per_token=1e-6, output_cost_per_token=2e-6)
    one = panel(priced)
    assert can_stream(store, rubric)
    asyncio.run(run_plan(store, plan_run(store, one, rubric, dataset="demo", systems=["alpha"])))

    whole = plan_run(store, one, rubric)
    streamed = plan_streamed(store, one, rubric, chunk=250)
    assert streamed.chunk == 250 and streamed.calls == () and streamed.cached == ()
    assert streamed.n_targets == whole.n_targets == 600
    (w,), (s,) = whole.judges, streamed.judges
    # 300 distinct prompts; the 150 of alpha on demo were made above
    assert (s.calls_total, s.calls_cached, s.calls_needed) == (300, 150, 150)
    assert (w.calls_total, w.calls_cached, w.calls_needed) == (300, 150, 150)
    assert s.estimated_cost_usd == pytest.approx(w.estimated_cost_usd, rel=1e-3)
    chunks = PlanChunks(store, streamed)
    planned = [(*c.calls, *c.cached) for c in chunks]
    # demo's 300 prompts (250, then 50 with the first 200 twins); the twins' were all met
    assert [len(calls) for calls in planned] == [250, 50, 0]
    shared = sum(len(call.targets) for calls in planned for call in calls)
    # a twin in demo's chunk shares its call there; one met later is put aside for the end
    assert shared + len(chunks.deferred) == 600 and 200 <= len(chunks.deferred) < 300


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_streamed_run_stores_what_a_whole_run_stores(
    store: Store, server: JudgeServer, capsys: Any, workers: str
) -> None:
    seed(store, n_items=150, dataset="demo")
    seed(store, n_items=150, dataset="twin")
    model = f"stream-run-{workers}"
    server.script(model, ModelScript())
    assert main(judge_args(store, server, model, "--workers", workers)) == 0
    out = capsys.readouterr().out
    assert "all datasets: 600 responses" in out
    assert server.stats(model).requests == 300  # one call per distinct prompt
    rows = query(store, "SELECT response_id, value FROM ratings WHERE rater_kind = 'llm'")
    assert len(rows) == 600 and len({r["response_id"] for r in rows}) == 600
    assert main(judge_args(store, server, model)) == 0  # all cached: no call
    assert server.stats(model).requests == 300
    assert len(query(store, "SELECT * FROM ratings WHERE rater_kind = 'llm'")) == 600


def run_peak_kb(tmp_path: Path, server: JudgeServer, n_items: int) -> float:
    """The most memory Python held (traced) during `judgeboard judge` on 2 x n_items calls."""
    store = Store(tmp_path / f"judge-{n_items}.duckdb", wait_s=20.0)
    seed(store, n_items=n_items)
    model = f"stream-memory-{n_items}"
    server.script(model, ModelScript())
    gc.collect()
    tracemalloc.start()
    try:
        assert main(judge_args(store, server, model)) == 0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert server.stats(model).requests == 2 * n_items
    assert len(query(store, "SELECT 1 FROM ratings WHERE rater_kind = 'llm'")) == 2 * n_items
    return peak / 1024


def plan_peak_kb(tmp_path: Path, server: JudgeServer, n_items: int) -> float:
    """The memory a whole plan (`plan_run`, every prompt rendered) of 2 x n_items calls holds."""
    store = Store(tmp_path / f"plan-{n_items}.duckdb", wait_s=20.0)
    seed(store, n_items=n_items)
    one = panel(judge("stream-plan", server))
    gc.collect()
    tracemalloc.start()
    try:
        plan = plan_run(store, one, load_rubric("likert-rag"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(plan.calls) == 2 * n_items
    return peak / 1024


def test_a_runs_memory_does_not_grow_with_its_plan(
    tmp_path: Path, server: JudgeServer, capsys: Any
) -> None:
    litellm_module()  # its import is no part of a run's memory
    small, big = 100, 400  # 200 and 800 calls, chunks of 50 targets
    whole = plan_peak_kb(tmp_path, server, big) - plan_peak_kb(tmp_path, server, small)
    grown = run_peak_kb(tmp_path, server, big) - run_peak_kb(tmp_path, server, small)
    capsys.readouterr()
    # What 600 more calls add to a whole plan, they must not add to a streamed run. A run
    # still grows: the prompt hashes (8 bytes a target) and, mostly, the in-process
    # loopback server's per-call stats (traced too): measured 650 KB against 2,917 KB for
    # the whole plan (2026-12-07); a run holding its whole plan would grow by more than both.
    print(f"whole plan grows {whole:.0f} KB; a streamed run grows {grown:.0f} KB")
    assert whole > 600  # the instrument sees what a whole plan holds (>= 1 KB a call)
    assert grown < whole / 2, (grown, whole)
