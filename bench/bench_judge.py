"""Benchmark: the judge runner against the loopback server, next to its ceilings and a baseline.

    python -m bench.bench_judge            # 10,000 calls, 50 ms latency, concurrency 128

Measured in one run, each against its own server process (so that the server's CPU does not
count against the client's):
- the runner: wall time, calls/s and CPU per call (this process's CPU, all threads), for
  `--calls` judge calls through `plan_run` + `run_plan` into a real DuckDB file;
- the ideal: calls x latency / concurrency;
- LiteLLM's single-process CPU ceiling: bare `litellm.acompletion` calls with the same
  prompts, `--concurrency` in flight, against a zero-latency server (no runner, no database);
- the NVIDIA notebook's sequential loop: a plain for-loop of synchronous `litellm.completion`
  calls, one at a time, on a slice of `--slice` of the same prompts, extrapolated to `--calls`;
- a second run of the same plan: it must make zero HTTP requests;
- the runner with a Router judge over two deployments (`--router-calls` calls), for the
  Router's own CPU cost per call;
- the runner over `--workers` worker processes (`judge --workers N`), on the same prompts
  for a judge of another name (so that nothing is cached): calls/s from when every worker is
  ready (their LiteLLM import is counted apart, `workers_start_s`), CPU per call of this
  process and its workers together (the workers' start included);
- a bare `openai.AsyncOpenAI` client on the same prompts at zero latency, for reference.
The goals: the runner reaches at least 80 % of the lower of the ideal rate and the ceiling;
N workers reach 2.0x the bare LiteLLM single-process ceiling on 2 cores (issue 33).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from bench.proc_cpu import process_cpu_s  # noqa: E402
from dashboard.ids import content_id  # noqa: E402
from dashboard.judging import load_rubric, plan_run, run_plan  # noqa: E402
from dashboard.judging.llm import litellm_module  # noqa: E402
from dashboard.judging.panel import Judge, Panel  # noqa: E402
from dashboard.judging.plan import RunPlan  # noqa: E402
from dashboard.store import Store  # noqa: E402
from dashboard.types import Item, Response  # noqa: E402

KEY_ENV = "BENCH_JUDGE_KEY"
_SERVER_PIDS: dict[str, int] = {}  # api_base -> the PID of the server process behind it


@dataclass(frozen=True)
class Measure:
    calls: int
    wall_s: float
    cpu_s: float

    @property
    def rate(self) -> float:
        return self.calls / self.wall_s

    @property
    def cpu_ms_per_call(self) -> float:
        return 1000 * self.cpu_s / self.calls


# The loopback servers: `lean` (one asyncio loop, the default here) and `threaded` (the test
# suite's scriptable server, a thread per connection, about 0.4 ms of its CPU a call).
SERVERS = {"lean": "tests.support.lean_judge_server", "threaded": "tests.support.judge_server"}


def niced(nice: int) -> list[str]:
    """The prefix that starts a command at CPU priority `nice` (none for 0): batch work on
    the servers' cores, as an operator runs it beside an interactive server."""
    return ["nice", "-n", str(nice)] if nice else []


@contextmanager
def judge_server(latency_ms: float, *, server: str = "threaded", nice: int = 0) -> Iterator[str]:
    """The loopback server (`SERVERS`) in its own process (at `nice`, when it is not 0);
    yields its api_base."""
    api_base = ""
    process = subprocess.Popen(
        [
            *niced(nice),
            sys.executable,
            "-m",
            SERVERS[server],
            "--port",
            "0",
            "--latency-ms",
            str(latency_ms),
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        if not line.startswith("listening "):
            raise RuntimeError(f"judge server did not start: {line!r}")
        api_base = line.removeprefix("listening ")
        _SERVER_PIDS[api_base] = process.pid
        yield api_base
    finally:
        _SERVER_PIDS.pop(api_base, None)
        process.terminate()
        process.wait(timeout=30)


def server_pid(api_base: str) -> int:
    """The PID of the server process behind `api_base`."""
    return _SERVER_PIDS[api_base]


def server_cpu_s(api_base: str) -> float:
    """CPU seconds the server process behind `api_base` has used so far (all its threads)."""
    return process_cpu_s(server_pid(api_base))


def server_requests(api_base: str, model: str) -> int:
    with urllib.request.urlopen(api_base.removesuffix("/v1") + "/stats", timeout=10) as reply:
        return int(json.load(reply).get(model, {}).get("requests", 0))


def seed(store: Store, n: int) -> None:
    """n responses: n/2 items answered by two systems, each answer with its marker."""
    items, responses = [], []
    for i in range((n + 1) // 2):
        question = f"Benchmark question {i}: which value does record {i} hold?"
        item = Item(
            content_id("bench", question),
            "bench",
            "open_qa",
            question,
            (f"Record {i} holds {i * 3}.",),
            f"Record {i} holds the value {i * 3}.",
        )
        items.append(item)
        for s, system in enumerate(("sys-a", "sys-b")):
            if len(responses) < n:
                answer = f"{system}: record {i} holds {i * 3 + s}. <rate={1 + (i + s) % 5}>"
                responses.append(
                    Response(
                        content_id(item.item_id, system), item.item_id, "bench", system, answer
                    )
                )
    store.add_items(items, responses)


def measure_runner(
    store: Store, judge: Judge, *, limit: int | None = None
) -> tuple[Measure, RunPlan, float]:
    """(the run, its plan, seconds the plan took); `limit` keeps the plan's first calls."""
    rubric = load_rubric("likert-rag")
    planned = time.perf_counter()
    plan = plan_run(store, Panel("bench", (judge,)), rubric)
    if limit is not None:
        plan = dataclasses.replace(plan, calls=plan.calls[:limit])
    plan_s = time.perf_counter() - planned
    cpu, wall = time.process_time(), time.perf_counter()
    summary = asyncio.run(run_plan(store, plan))
    measure = Measure(summary.calls_made, time.perf_counter() - wall, time.process_time() - cpu)
    if summary.failures:
        raise RuntimeError(f"{summary.failures} calls failed: {summary.judges[0].last_error}")
    return measure, plan, plan_s


def children_cpu_s() -> float:
    """CPU seconds of the child processes that ended and were waited for (the workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure_workers(store: Store, judge: Judge, *, workers: int) -> tuple[Measure, float, float]:
    """(the run over `workers` processes, seconds from its start until every worker was
    ready, CPU seconds of this process alone); the run's CPU is this process's and the
    workers' together."""
    plan = plan_run(store, Panel("bench", (judge,)), load_rubric("likert-rag"))
    cpu, children, wall = time.process_time(), children_cpu_s(), time.perf_counter()
    summary = asyncio.run(run_plan(store, plan, workers=workers))
    total_s = time.perf_counter() - wall
    parent_s = time.process_time() - cpu
    cpu_s = parent_s + children_cpu_s() - children
    if summary.failures:
        raise RuntimeError(f"{summary.failures} calls failed: {summary.judges[0].last_error}")
    return Measure(summary.calls_made, summary.wall_s, cpu_s), total_s - summary.wall_s, parent_s


def measure_openai(
    api_base: str, prompts: Sequence[Sequence[Mapping[str, str]]], *, calls: int, concurrency: int
) -> Measure:
    """A bare AsyncOpenAI client at zero latency, same prompts: the reference below LiteLLM."""
    import httpx
    import openai

    async def main() -> None:
        client = openai.AsyncOpenAI(
            api_key=os.environ[KEY_ENV],
            base_url=api_base,
            max_retries=0,
            timeout=60,
            http_client=httpx.AsyncClient(limits=httpx.Limits(max_connections=concurrency)),
        )
        remaining = list(range(calls))

        async def worker() -> None:
            while remaining:
                messages = prompts[remaining.pop() % len(prompts)]
                await client.chat.completions.create(
                    model="openai-bare",
                    messages=list(messages),  # type: ignore[arg-type]
                    temperature=0.0,
                    max_tokens=512,
                )

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        await client.close()

    cpu, wall = time.process_time(), time.perf_counter()
    asyncio.run(main())
    return Measure(calls, time.perf_counter() - wall, time.process_time() - cpu)


def measure_ceiling(
    api_base: str, prompts: Sequence[Sequence[Mapping[str, str]]], *, calls: int, concurrency: int
) -> Measure:
    """Bare LiteLLM at zero latency, on the runner's own prompts: one process's CPU bound."""
    litellm = litellm_module()

    async def main() -> None:
        remaining = list(range(calls))

        async def worker() -> None:
            while remaining:
                messages = prompts[remaining.pop() % len(prompts)]
                await litellm.acompletion(
                    model="openai/ceiling",
                    messages=list(messages),
                    api_base=api_base,
                    api_key=os.environ[KEY_ENV],
                    num_retries=0,
                    timeout=60,
                    temperature=0.0,
                    max_tokens=512,
                )

        await asyncio.gather(*(worker() for _ in range(concurrency)))

    cpu, wall = time.process_time(), time.perf_counter()
    asyncio.run(main())
    return Measure(calls, time.perf_counter() - wall, time.process_time() - cpu)


def measure_sequential(api_base: str, prompts: Sequence[Sequence[Mapping[str, str]]]) -> Measure:
    """The NVIDIA notebook's loop: one synchronous request after another, same prompts."""
    litellm = litellm_module()
    cpu, wall = time.process_time(), time.perf_counter()
    for messages in prompts:
        litellm.completion(
            model="openai/sequential",
            api_base=api_base,
            messages=list(messages),
            api_key=os.environ[KEY_ENV],
            num_retries=0,
            timeout=60,
            temperature=0.1,
            max_tokens=200,
        )
    return Measure(len(prompts), time.perf_counter() - wall, time.process_time() - cpu)


def report(
    args: argparse.Namespace,
    runner: Measure,
    ceiling: Measure,
    sequential: Measure,
    rerun: tuple[int, int, float],
    plan_s: float,
) -> dict[str, object]:
    ideal_s = args.calls * args.latency_ms / 1000 / args.concurrency
    ideal_rate = args.calls / ideal_s
    target_rate = min(ideal_rate, ceiling.rate)
    sequential_s = sequential.wall_s * args.calls / sequential.calls
    rows = {
        "calls": args.calls,
        "latency_ms": args.latency_ms,
        "concurrency": args.concurrency,
        "cpus": os.cpu_count(),
        "plan_s": round(plan_s, 2),
        "runner_wall_s": round(runner.wall_s, 2),
        "runner_calls_per_s": round(runner.rate, 1),
        "runner_cpu_ms_per_call": round(runner.cpu_ms_per_call, 2),
        "ideal_wall_s": round(ideal_s, 2),
        "ideal_calls_per_s": round(ideal_rate, 1),
        "ceiling_calls_per_s": round(ceiling.rate, 1),
        "ceiling_cpu_ms_per_call": round(ceiling.cpu_ms_per_call, 2),
        "sequential_slice": sequential.calls,
        "sequential_calls_per_s": round(sequential.rate, 1),
        "sequential_extrapolated_s": round(sequential_s, 1),
        "speedup_over_sequential": round(sequential_s / runner.wall_s, 1),
        "share_of_ideal": round(runner.rate / ideal_rate, 3),
        "share_of_ceiling": round(runner.rate / ceiling.rate, 3),
        "share_of_goal_bound": round(runner.rate / target_rate, 3),
        "goal_met": runner.rate >= 0.8 * target_rate,
        "rerun_http_requests": rerun[0],
        "rerun_cached": rerun[1],
        "rerun_wall_s": round(rerun[2], 2),
    }
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="judge runner benchmark")
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--slice", type=int, default=100, help="sequential baseline calls")
    parser.add_argument("--ceiling-calls", type=int, default=3000)
    parser.add_argument(
        "--router-calls",
        type=int,
        default=2000,
        help="calls through a Router judge over two deployments",
    )
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 2, help="worker processes (N)"
    )
    parser.add_argument(
        "--server",
        choices=sorted(SERVERS),
        default="lean",
        help="the loopback server: lean (asyncio) or threaded (tests.support.judge_server)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    os.environ.setdefault(KEY_ENV, "bench-key")
    litellm_module()  # the 3-second import stays out of every measurement
    with (
        tempfile.TemporaryDirectory() as tmp,
        judge_server(args.latency_ms, server=args.server) as api_base,
    ):
        store = Store(Path(tmp) / "bench.duckdb")
        seed(store, args.calls)
        judge = Judge(
            name="bench",
            model="openai/bench",
            api_base=api_base,
            api_key_env=KEY_ENV,
            concurrency=args.concurrency,
            timeout_s=60,
        )
        server_ms: dict[str, float] = {}
        served = server_cpu_s(api_base)
        runner, plan, plan_s = measure_runner(store, judge)
        server_ms["runner"] = 1000 * (server_cpu_s(api_base) - served) / runner.calls
        before = server_requests(api_base, "bench")
        again, replan, _ = measure_runner(store, judge)
        rerun = (server_requests(api_base, "bench") - before, replan.calls_cached, again.wall_s)
        router = Judge(
            name="router",
            model="pool",
            concurrency=args.concurrency,
            timeout_s=60,
            model_list=tuple(
                {
                    "model_name": "pool",
                    "litellm_params": {
                        "model": f"openai/replica-{i}",
                        "api_base": api_base,
                        "api_key": f"os.environ/{KEY_ENV}",
                    },
                }
                for i in (1, 2)
            ),
        )
        served = server_cpu_s(api_base)
        routed, _, _ = measure_runner(store, router, limit=args.router_calls)
        server_ms["router"] = 1000 * (server_cpu_s(api_base) - served) / routed.calls
        served = server_cpu_s(api_base)
        pooled, workers_start_s, parent_s = measure_workers(
            store,
            dataclasses.replace(judge, name="bench-n", model="openai/bench-n"),
            workers=args.workers,
        )
        server_ms["workers"] = 1000 * (server_cpu_s(api_base) - served) / pooled.calls
        prompts = [spec.messages for spec in plan.calls[: args.slice]]
        sequential = measure_sequential(api_base, prompts)
    with judge_server(0, server=args.server) as fast:
        served = server_cpu_s(fast)
        ceiling = measure_ceiling(
            fast,
            [spec.messages for spec in plan.calls[:1000]],
            calls=args.ceiling_calls,
            concurrency=args.concurrency,
        )
        server_ms["ceiling"] = 1000 * (server_cpu_s(fast) - served) / ceiling.calls
        served = server_cpu_s(fast)
        bare = measure_openai(
            fast,
            [spec.messages for spec in plan.calls[:1000]],
            calls=args.ceiling_calls,
            concurrency=args.concurrency,
        )
        server_ms["openai"] = 1000 * (server_cpu_s(fast) - served) / bare.calls
    figures = report(args, runner, ceiling, sequential, rerun, plan_s)
    figures["server"] = args.server
    figures["workers"] = args.workers
    figures["workers_calls"] = pooled.calls
    figures["workers_start_s"] = round(workers_start_s, 2)
    figures["workers_calls_per_s"] = round(pooled.rate, 1)
    figures["workers_cpu_ms_per_call"] = round(pooled.cpu_ms_per_call, 2)
    figures["workers_parent_cpu_ms_per_call"] = round(1000 * parent_s / pooled.calls, 2)
    figures["openai_calls_per_s"] = round(bare.rate, 1)
    figures["openai_cpu_ms_per_call"] = round(bare.cpu_ms_per_call, 2)
    figures["one_worker_over_ceiling"] = round(runner.rate / ceiling.rate, 2)
    figures["workers_over_ceiling"] = round(pooled.rate / ceiling.rate, 2)
    figures["openai_over_ceiling"] = round(bare.rate / ceiling.rate, 2)
    figures["workers_goal_met"] = pooled.rate >= 2.0 * ceiling.rate
    figures["router_calls"] = routed.calls
    figures["router_calls_per_s"] = round(routed.rate, 1)
    figures["router_cpu_ms_per_call"] = round(routed.cpu_ms_per_call, 2)
    for phase, ms in server_ms.items():  # the loopback server's own CPU, not the client's
        figures[f"server_cpu_ms_per_call_{phase}"] = round(ms, 2)
    width = max(map(len, figures))
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
