"""The load `bench.bench_protocol` puts on the store besides the labellers: a campaign for
some of them, the CLI import and the CLI judge run during the paced phase.

- `prepare`: before the servers start, on the store: `--judge-calls` answers for the judge
  (`bench_judge.seed`, dataset `bench`: each answer carries the rating the loopback server
  gives it) and, for the campaign's labellers, a pool of synthetic RAG answers (dataset
  `bench-campaign`, `bench_import`'s generator) and the campaign `bench-k` over all of them
  with overlap `--campaign-k`: every labeller of the campaign takes from the front of the
  same order, so each take meets the others' holds. The pool is sized so that it does not run
  out: every labeller's most saves (think times at their shortest) over k, plus one held
  answer each.
- `start_commands`: the CLI import and judge run (`start_import`, `start_judge`), each
  watched as it runs; once it has ended (`finish`), its exit status, its wall time and its CPU
  seconds (its workers' included), from the kernel's accounting of the ended process.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from bench.bench_judge import niced
from bench.bench_labelling import REPO_ROOT, _import

CAMPAIGN = "bench-k"
POOL_DATASET = "bench-campaign"
JUDGE_DATASET = "bench"  # the dataset `bench_judge.seed` writes
JUDGE_MODEL = "bench-judge"  # the model name the loopback server counts
JUDGE = f"openai/{JUDGE_MODEL}"  # the judge's name in the store
KEY_ENV = "BENCH_JUDGE_KEY"


def campaign_labellers(args: argparse.Namespace) -> int:
    """How many of the simulated labellers label in the campaign: `--campaign-share` of them
    (at least two, so that their holds meet; none with a share of 0)."""
    if args.campaign_share <= 0 or args.campaign_k < 1:
        return 0
    return min(args.labellers, max(2, round(args.campaign_share * args.labellers)))


def pool_size(args: argparse.Namespace) -> int:
    """Answers in the campaign: enough for every save its labellers can make, k to each."""
    n = campaign_labellers(args)
    shortest_think_s = max(0.5 * args.think_s, 0.2)
    most_saves = 1 + math.ceil(args.paced_s / shortest_think_s) + args.burst_saves
    return math.ceil(n * most_saves / args.campaign_k) + n


def prepare(store: Any, args: argparse.Namespace, work: Path) -> None:
    """The judge's answers and the campaign (see the module's docstring), on `store`."""
    if args.judge_calls:
        from bench.bench_judge import seed

        seed(store, args.judge_calls)
    if campaign_labellers(args):
        from bench.bench_import import generate_rag_jsonl
        from dashboard.campaigns.campaigns import create_campaign
        from dashboard.ingest import import_path
        from dashboard.judging import load_rubric

        size = pool_size(args)
        source = generate_rag_jsonl(work / "pool.jsonl", size, seed=11)
        import_path(store, source, dataset=POOL_DATASET, system="bench-pool")
        rubric = load_rubric("likert-rag")
        create_campaign(
            store,
            CAMPAIGN,
            rubric,
            dataset=POOL_DATASET,
            rule="random",
            size=size,
            seed=1,
            overlap=args.campaign_k,
        )


def start_import(address: str, args: argparse.Namespace, work: Path) -> subprocess.Popen[bytes]:
    """`judgeboard import` of `--import-records` synthetic RAG records into the store."""
    from bench.bench_import import generate_rag_jsonl

    source = generate_rag_jsonl(work / "import.jsonl", args.import_records)
    # at the servers' priority: on a file store the import holds the file while it writes,
    # and a niced holder starved of CPU keeps the pages waiting for it (it made a page give
    # up after its 10 s wait in a look at `--batch-nice 10` under load)
    return _import(address, source, work / "import.log")  # type: ignore[arg-type]


def start_judge(
    address: str, api_base: str, args: argparse.Namespace, work: Path
) -> subprocess.Popen[bytes]:
    """`judgeboard judge` of the `--judge-calls` answers of dataset `bench`, one judge at the
    loopback server, `--judge-workers` worker processes, `--judge-concurrency` in flight."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), KEY_ENV: "bench-key"}
    command = niced(args.batch_nice) + [sys.executable, "-m", "dashboard.cli", "--db", address]
    command += ["--wait", "600", "judge", "--panel", JUDGE, "--rubric", "likert-rag"]
    command += ["--dataset", JUDGE_DATASET]
    command += ["--api-base", api_base, "--api-key-env", KEY_ENV, "--no-progress"]
    command += ["--workers", str(args.judge_workers)]
    command += ["--concurrency", str(args.judge_concurrency), "--timeout", "60"]
    with open(work / "judge.log", "wb") as out:
        return subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=out, stderr=out)


def finish(process: subprocess.Popen[bytes]) -> tuple[int, float]:
    """Wait for the process to end: (its exit status, the CPU seconds it and the children it
    waited for used), as the kernel counted them."""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage.ru_utime + usage.ru_stime


async def _ended(process: Any, t0: float) -> dict[str, Any]:
    """A CLI command started with the paced phase, once it has ended: its exit status, its
    CPU seconds (its own, not the servers') and the seconds from the phase's start."""
    status, cpu_s = await asyncio.to_thread(finish, process)
    return {"status": status, "cpu_s": cpu_s, "wall_s": time.perf_counter() - t0}


def start_commands(
    stacked: dict[str, Any],
    args: argparse.Namespace,
    opened: AsyncExitStack,
    *,
    started: Callable[[int], None],
) -> dict[str, Any]:
    """The import and the judge run, started with the paced phase (`started` is told each
    one's PID); each watched as it runs (and killed, when the benchmark stops before they
    have ended)."""
    t0, work, address = time.perf_counter(), Path(stacked["work"]), stacked["store"]
    running: dict[str, Any] = {}
    if args.import_records:
        running["import"] = start_import(address, args, work)
    if args.judge_calls:
        running["judge"] = start_judge(address, stacked["judge_api"], args, work)
    for process in running.values():
        started(process.pid)
        opened.callback(lambda p=process: p.returncode is None and p.kill())
    return {name: asyncio.ensure_future(_ended(p, t0)) for name, p in running.items()}
