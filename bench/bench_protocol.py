"""Benchmark: labelling measured at the server, with simulated labellers that speak Streamlit's
own protocol (no browser), on the embedded store and on PostgreSQL behind nginx.

    python -m bench.bench_protocol                          # both stores, 20 labellers
    python -m bench.bench_protocol --stores postgresql --labellers 50
    python -m bench.bench_protocol --labellers 3 --paced-s 10 --burst-saves 2 \
        --import-records 500 --judge-calls 300                 # a look

A browser costs the server's machine more CPU than the server does (the last labelling
benchmark's 20 Chromium browsers used 0.73 of the 0.85 CPU-seconds a save cost), so the load
here comes from `bench/streamlit_client.py`: each simulated labeller is one Streamlit session
over `/_stcore/stream`, with its own identity (`annotator` in its query string). A share of
them (`--campaign-share`, default half) label in one campaign (`bench/protocol_load.py`:
`campaign=bench-k`, overlap `--campaign-k`, on a pool of synthetic RAG answers), taking from
the front of the same order, so that their holds meet; the others (and the baseline's
labeller) each have their own queue (random order, its own seed) on the sample's eo-rag
answers. A save is one rerun message with the rating and the form's submit, timed until the
run that drew the next answer has finished. One real Chromium labeller
(`bench/labelling_sessions.py`, its own queue) is timed end to end.

For each store (embedded: one `judgeboard serve` on a DuckDB file; postgresql: a PostgreSQL
server of its own, as the tests start it, and two replicas behind Debian's nginx with the
shipped config, `tests/support/nginx.py`), three phases on the same servers:
1. baseline: one simulated labeller alone, `--baseline-saves` saves back to back;
2. paced: every simulated labeller saves once per `--think-s` (0.5-1.5 x) for `--paced-s`
   seconds, and so does the Chromium labeller (`--chromium-think-s` to change its pace);
   meanwhile
   `judgeboard import` of `--import-records` synthetic RAG records (as `bench_import` makes
   them; 0: none) and `judgeboard judge` of `--judge-calls` answers against the loopback
   judge server (`tests/support/judge_server.py`, `--judge-latency-ms`; 0: none) run into
   the same store, each waited for after the phase: p50/p95 of the labellers (and of the
   campaign's and the own queues' apart), the two commands' exit status and CPU. The judge
   run and the loopback judge server (the lean one: a stand-in for a provider elsewhere)
   run at `--batch-nice` (default 10; 0: the servers' priority), as an operator runs batch
   work beside an interactive server; the import runs at the servers' priority (on a file
   store it holds the file while it writes, and a starved holder keeps the pages waiting);
3. burst: every simulated labeller makes `--burst-saves` saves back to back: saves per
   second at saturation.
The CPU of the server processes (the replicas, nginx, PostgreSQL's processes) is read from
/proc for each phase and given per save, and so is what the rest of the machine's 2 cores
did meanwhile (`cores`: CPU seconds a second of the servers, the batch work, Chromium and
this process's simulated labellers), since all of it shares the servers' cores. Every
figure is also given as a ratio of the baseline's. Afterwards, in the store
(`bench/protocol_checks.py`): every confirmed save is exactly one row of that person on
that answer, and no other rows of the benchmark's people; no answer of the campaign has
more than k labels (`over_k`; `answers_at_k` says how many reached k); no judge call was
made twice (the server's requests and completions per prompt against the distinct calls of
`judge_calls`).
Goal: p95 of the simulated round trips and of the Chromium save-and-next under 1 s while
paced. Exit status 1 when a goal or a check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import AsyncExitStack, ExitStack, contextmanager
from pathlib import Path
from typing import Any

from bench import protocol_load as load
from bench.bench_labelling import percentile
from bench.labelling_sessions import serve
from bench.proc_cpu import CpuByGroup, tree_cpu_s
from bench.protocol_checks import campaign_check, judge_check, saves_check
from bench.protocol_report import passed, report
from bench.streamlit_client import AnnotateSession, Save

DATASET = "eo-rag"
SIM = "bench-proto-{:03d}"
CHROMIUM_PERSON = "bench-proto-chromium"


@contextmanager
def stack(store: str, work: Path, args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    """The store and its servers: {"url": what labellers open, "store": the store's address,
    "pids": the server processes, "outside": the PostgreSQL server's PID (not our child),
    "judge_api": the loopback judge server's api_base (None: no judge run), "batch": its PID}."""
    from dashboard.ingest.sample import ensure_sample
    from dashboard.store import Store

    with ExitStack() as stop:
        outside: int | None = None
        if store == "embedded":
            address: str = str(work / "bench.duckdb")
        else:
            from tests.support.postgres import PostgresServer

            server = PostgresServer().start()
            stop.callback(server.stop)
            address, outside = server.create(), server.pid
        made = Store(address, wait_s=60)
        for _ in ensure_sample(made):
            pass
        load.prepare(made, args, work)  # the judge's answers, the campaign and its pool
        made.close()
        judge_api, batch = None, []
        if args.judge_calls:
            from bench.bench_judge import judge_server, server_pid

            judge_api = stop.enter_context(
                judge_server(args.judge_latency_ms, server="lean", nice=args.batch_nice)
            )
            batch.append(server_pid(judge_api))
        n_replicas = 1 if store == "embedded" else 2
        # `serve` takes the store's address as JUDGEBOARD_DB takes it: a file or a URL
        logs = [work / f"{store}-{n}.log" for n in range(n_replicas)]
        served = [stop.enter_context(serve(address, log)) for log in logs]  # type: ignore[arg-type]
        pids = [pid for _, pid in served]
        url = served[0][0]
        if store != "embedded":
            from tests.support.nginx import NginxProxy

            proxy = NginxProxy([int(base.rsplit(":", 1)[1]) for base, _ in served]).start()
            stop.callback(proxy.stop)
            assert proxy.process is not None
            url = proxy.url
            pids.append(proxy.process.pid)
        yield {
            "url": url,
            "store": address,
            "pids": pids,
            "outside": outside,
            "work": work,
            "judge_api": judge_api,
            "batch": batch,
        }


async def _labelling(
    session: AnnotateSession,
    rng: random.Random,
    *,
    saves: int | None,
    until: float | None,
    think_s: float,
) -> list[Save]:
    """One simulated labeller's saves: `saves` of them, or until the wall clock `until`."""
    done: list[Save] = []
    while (saves is None or len(done) < saves) and (until is None or time.time() < until):
        if session.item is None:  # nothing left for them (a campaign's pool ran out)
            break
        if think_s:
            await asyncio.sleep(think_s * rng.uniform(0.5, 1.5))
        done.append(await session.save_and_next(str(1 + rng.randrange(5))))
    return done


async def _chromium(page: Any, until: float, think_s: float) -> list[float]:
    """The Chromium labeller's save-and-next, each after a think of `think_s` (0.5-1.5 x, as
    a simulated labeller's), until `until`."""
    from bench.labelling_sessions import save_and_next as browser_save

    rng = random.Random(CHROMIUM_PERSON)
    seconds: list[float] = []
    while time.time() < until or not seconds:
        await asyncio.sleep(think_s * rng.uniform(0.5, 1.5))
        saved = await browser_save(page, CHROMIUM_PERSON, str(1 + len(seconds) % 5))
        seconds.append(saved.seconds)
    return seconds


class _ServerCpu:
    """The CPU seconds of the server processes, read from /proc between two moments, and
    what the whole machine spent meanwhile (`machine`, in cores: CPU seconds a second)."""

    def __init__(self, stacked: dict[str, Any]) -> None:
        self.stacked = stacked
        self.cpu: CpuByGroup | None = None
        self.outside_before = 0.0
        self.own_before = 0.0
        self.started = 0.0
        self.batch: list[int] = list(stacked["batch"])  # the judge server's, the commands'
        self.machine: dict[str, float] = {}

    def start(self) -> float:
        # the rest of our descendants: Chromium and the driver that runs it
        self.cpu = CpuByGroup(rest="chromium").__enter__()
        for pid in self.stacked["pids"]:
            self.cpu.group("server", pid)
        for pid in self.batch:
            self.cpu.group("batch", pid)
        if self.stacked["outside"]:
            self.outside_before = tree_cpu_s(self.stacked["outside"])
        self.own_before = time.process_time()
        self.started = time.perf_counter()
        return self.started

    def batch_started(self, pid: int) -> None:
        """A batch command (the import, the judge run) started during the phase."""
        self.batch.append(pid)
        if self.cpu is not None:
            self.cpu.group("batch", pid)

    def stop(self) -> dict[str, float]:
        """CPU seconds since `start`: the dashboards (with nginx), and PostgreSQL's."""
        assert self.cpu is not None
        self.cpu.__exit__(None, None, None)
        wall = time.perf_counter() - self.started
        seconds = self.cpu.seconds()
        used = {"dashboard": seconds.get("server", 0.0)}
        if self.stacked["outside"]:
            used["postgresql"] = tree_cpu_s(self.stacked["outside"]) - self.outside_before
        everything = {
            **used,
            "batch": seconds.get("batch", 0.0),  # the import, the judge run and its server
            "chromium": seconds.get("chromium", 0.0),
            "simulated": time.process_time() - self.own_before,  # this process's sessions
        }
        self.machine = {name: s / wall for name, s in everything.items()}
        return used


async def _phases(stacked: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """Open every session (and the Chromium page) first, then measure the three phases."""
    from playwright.async_api import async_playwright

    from bench.labelling_sessions import CHROMIUM, CHROMIUM_ARGS, open_annotate

    url, cpu, found = stacked["url"], _ServerCpu(stacked), {}
    people = range(args.labellers + 1)  # 0: the baseline's labeller
    in_campaign = range(1, 1 + load.campaign_labellers(args))
    sessions = [
        AnnotateSession(url, SIM.format(n), dataset=DATASET, seed=n, cookie=SIM.format(n))
        if n not in in_campaign
        else AnnotateSession(
            url,
            SIM.format(n),
            dataset=load.POOL_DATASET,
            cookie=SIM.format(n),
            campaign=load.CAMPAIGN,
        )
        for n in people
    ]
    rngs = [random.Random(n) for n in people]
    async with async_playwright() as playwright, AsyncExitStack() as opened:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        opened.push_async_callback(browser.close)
        page = await open_annotate(browser, url, CHROMIUM_PERSON, seed=999)
        for session in sessions:
            await opened.enter_async_context(session)
        # warm: the first save of each session stays out of the figures
        warm = [_labelling(s, r, saves=1, until=None, think_s=0) for s, r in zip(sessions, rngs)]
        found["warm"] = await asyncio.gather(*warm)

        started = cpu.start()
        base = await _labelling(
            sessions[0], rngs[0], saves=args.baseline_saves, until=None, think_s=0
        )
        found["baseline"] = (base, time.perf_counter() - started, cpu.stop(), cpu.machine)

        until = time.time() + args.paced_s
        started = cpu.start()
        commands = load.start_commands(stacked, args, opened, started=cpu.batch_started)
        paced = [
            _labelling(s, r, saves=None, until=until, think_s=args.think_s)
            for s, r in zip(sessions[1:], rngs[1:])
        ]
        think = args.think_s if args.chromium_think_s is None else args.chromium_think_s
        chromium, *sims = await asyncio.gather(_chromium(page, until, think), *paced)
        found["paced"] = (sims, time.perf_counter() - started, cpu.stop(), cpu.machine)
        found["chromium"] = chromium
        for name, ended in commands.items():  # waited for after the phase
            found[name] = await ended

        started = cpu.start()
        burst = [
            _labelling(s, r, saves=args.burst_saves, until=None, think_s=0)
            for s, r in zip(sessions[1:], rngs[1:])
        ]
        sims = await asyncio.gather(*burst)
        found["burst"] = (sims, time.perf_counter() - started, cpu.stop(), cpu.machine)
    found["ran_out"] = sum(1 for n in in_campaign if sessions[n].item is None)
    return found


def _figures(
    saves: list[Save],
    wall_s: float,
    cpu_s: dict[str, float],
    machine: dict[str, float],
    *,
    also_saved: int = 0,
) -> dict[str, Any]:
    """Round trips, saves a second, the servers' CPU a save (`also_saved`: the Chromium
    labeller's saves in the same phase, which the servers also worked for) and the cores
    each part of the machine used (`machine`)."""
    seconds = [s.seconds for s in saves]
    return {
        "n": len(saves),
        "waited": sum(1 for s in saves if s.waited),  # the page waited (a busy file) first
        "p50_s": statistics.median(seconds),
        "p95_s": percentile(seconds, 95),
        "saves_per_s": (len(saves) + also_saved) / wall_s,
        "cpu_per_save_s": sum(cpu_s.values()) / (len(saves) + also_saved),
        "cpu_per_save_by": {k: v / (len(saves) + also_saved) for k, v in cpu_s.items()},
        "load_1m": os.getloadavg()[0],  # the machine is shared: its load as the phase ended
        "cores": machine,
    }


def _modes(sims: list[list[Save]], n_campaign: int) -> dict[str, Any]:
    """A phase's round trips of the campaign's labellers and of the own queues' apart."""
    found = {}
    for mode, share in (("campaign", sims[:n_campaign]), ("own_queue", sims[n_campaign:])):
        seconds = [s.seconds for done in share for s in done]
        if seconds:
            found[mode] = {
                "labellers": len(share),
                "n": len(seconds),
                "p50_s": statistics.median(seconds),
                "p95_s": percentile(seconds, 95),
            }
    return found


def _checks(stacked: dict[str, Any], args: argparse.Namespace, found: dict[str, Any]) -> None:
    """The store's checks (`protocol_checks`), into `found`: the saves, the campaign's k and
    the judge's calls."""
    by_person = {SIM.format(n): list(done) for n, done in enumerate(found["warm"])}
    by_person[SIM.format(0)] += found["baseline"][0]
    for phase in ("paced", "burst"):
        for n, done in enumerate(found[phase][0], start=1):
            by_person[SIM.format(n)] += done
    address = stacked["store"]
    found["check"] = saves_check(
        address, by_person, like="bench-proto-%", leave_out=CHROMIUM_PERSON
    )
    n_campaign = load.campaign_labellers(args)
    people = range(1, 1 + n_campaign)
    if n_campaign:
        found["campaign"] = {
            "name": load.CAMPAIGN,
            "labellers": n_campaign,
            **campaign_check(address, load.CAMPAIGN, args.campaign_k),
            "refused": sum(s.refused for n in people for s in by_person[SIM.format(n)]),
            "ran_out": found["ran_out"],  # labellers the campaign had nothing left for
        }
    if "judge" in found:
        judged = judge_check(address, load.JUDGE, stacked["judge_api"], load.JUDGE_MODEL)
        found["judge"] = {"planned": args.judge_calls, **judged, **found["judge"]}


def run_store(store: str, args: argparse.Namespace) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory(prefix="bench-protocol-") as folder,
        stack(store, Path(folder), args) as stacked,
    ):
        found = asyncio.run(_phases(stacked, args))
        _checks(stacked, args, found)
    base, wall, cpu, machine = found["baseline"]
    chromium, n_campaign = found["chromium"], load.campaign_labellers(args)
    imported = found.get("import")
    return {
        "store": store,
        "replicas": 1 if store == "embedded" else 2,
        "labellers": args.labellers,
        "think_s": args.think_s,
        "baseline": _figures(base, wall, cpu, machine),
        "paced": {
            **_figures(
                [s for d in found["paced"][0] for s in d],
                *found["paced"][1:],
                also_saved=len(chromium),
            ),
            "by_mode": _modes(found["paced"][0], n_campaign),
        },
        "burst": {
            **_figures([s for d in found["burst"][0] for s in d], *found["burst"][1:]),
            "by_mode": _modes(found["burst"][0], n_campaign),
        },
        "chromium": {
            "n": len(chromium),
            "p50_s": statistics.median(chromium),
            "p95_s": percentile(chromium, 95),
        },
        "import": None if imported is None else {"records": args.import_records, **imported},
        "judge": found.get("judge"),
        "campaign": found.get("campaign"),
        "check": found["check"],
    }


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_protocol")
    parser.add_argument("--stores", default="embedded,postgresql")
    parser.add_argument("--labellers", type=int, default=20)
    parser.add_argument("--think-s", type=float, default=5.0)
    parser.add_argument("--paced-s", type=float, default=120.0)
    parser.add_argument("--baseline-saves", type=int, default=10)
    parser.add_argument("--burst-saves", type=int, default=3)
    parser.add_argument("--import-records", type=int, default=5000)
    add = parser.add_argument
    add(
        "--chromium-think-s",
        type=float,
        help="the Chromium labeller's think time (0.5-1.5 x; default: --think-s, as the "
        "simulated labellers')",
    )
    # 5,000 calls at 100 ms, 5 in flight: 50 calls/s at best, 100 s of the paced phase's 120 s
    add("--judge-calls", type=int, default=5000, help="judge calls while paced (0: none)")
    add("--judge-latency-ms", type=float, default=100.0, help="the judge server's latency")
    add("--judge-concurrency", type=int, default=5, help="the judge's calls in flight")
    add("--judge-workers", type=int, default=1, help="`judge --workers`")
    add("--campaign-share", type=float, default=0.5, help="labellers in the campaign (0: none)")
    add("--campaign-k", type=int, default=2, help="the campaign's overlap k")
    add(
        "--batch-nice",
        type=int,
        default=10,
        help="CPU priority (nice) of the judge run and the loopback judge server: batch work "
        "beside the servers (0: the servers' own)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse(argv)
    results = []
    for store in args.stores.split(","):
        settings = {k: v for k, v in vars(args).items() if k != "json"}
        results.append({**run_store(store, args), "settings": settings})
        print("\n".join(report(results[-1])), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0 if all(passed(r) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
