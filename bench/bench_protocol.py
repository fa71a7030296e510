"""Benchmark: labelling measured at the server, with simulated labellers that speak Streamlit's
own protocol (no browser), on the embedded store and on PostgreSQL behind nginx.

    python -m bench.bench_protocol                          # both stores, 20 labellers
    python -m bench.bench_protocol --stores postgresql --labellers 50
    python -m bench.bench_protocol --labellers 3 --paced-s 10 --burst-saves 2   # a look

A browser costs the server's machine more CPU than the server does (the last labelling
benchmark's 20 Chromium browsers used 0.73 of the 0.85 CPU-seconds a save cost), so the load
here comes from `bench/streamlit_client.py`: each simulated labeller is one Streamlit session
over `/_stcore/stream`, with its own identity (`annotator` in its query string) and its own
queue (random order, its own seed) on the sample's eo-rag answers; a save is one rerun
message with the rating and the form's submit, timed until the run that drew the next answer
has finished. One real Chromium labeller (`bench/labelling_sessions.py`) is timed end to end.

For each store (embedded: one `judgeboard serve` on a DuckDB file; postgresql: a PostgreSQL
server of its own, as the tests start it, and two replicas behind Debian's nginx with the
shipped config, `tests/support/nginx.py`), three phases on the same servers:
1. baseline: one simulated labeller alone, `--baseline-saves` saves back to back;
2. paced: every simulated labeller saves once per `--think-s` (0.5-1.5 x) for `--paced-s`
   seconds while the Chromium labeller saves with a 1 s think time, and `judgeboard import`
   of `--import-records` synthetic RAG records (as `bench_import` makes them; 0: none) runs
   into the same store: p50/p95 of both;
3. burst: every simulated labeller makes `--burst-saves` saves back to back: saves per
   second at saturation.
The CPU of the server processes (the replicas, nginx, PostgreSQL's processes) is read from
/proc for each phase and given per save. Every figure is also given as a ratio of the
baseline's. Afterwards every confirmed save is checked in the store: exactly one row of that
person on that answer, and no other rows of the benchmark's people.
Goal: p95 of the simulated round trips and of the Chromium save-and-next under 1 s while
paced. Exit status 1 when a goal or the check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import AsyncExitStack, ExitStack, contextmanager
from pathlib import Path
from typing import Any

from bench.bench_labelling import percentile
from bench.labelling_sessions import serve
from bench.proc_cpu import CpuByGroup, tree_cpu_s
from bench.streamlit_client import AnnotateSession, Save

DATASET = "eo-rag"
SIM = "bench-proto-{:03d}"
CHROMIUM_PERSON = "bench-proto-chromium"
GOAL_P95_S = 1.0


@contextmanager
def stack(store: str, work: Path) -> Iterator[dict[str, Any]]:
    """The store and its servers: {"url": what labellers open, "store": the store's address,
    "pids": the server processes, "outside": the PostgreSQL server's PID (not our child)}."""
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
        made.close()
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
        yield {"url": url, "store": address, "pids": pids, "outside": outside, "work": work}


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
        if think_s:
            await asyncio.sleep(think_s * rng.uniform(0.5, 1.5))
        done.append(await session.save_and_next(str(1 + rng.randrange(5))))
    return done


async def _chromium(page: Any, until: float) -> list[float]:
    """The Chromium labeller's save-and-next, one after a 1 s think, until `until`."""
    from bench.labelling_sessions import save_and_next as browser_save

    seconds: list[float] = []
    while time.time() < until or not seconds:
        await asyncio.sleep(1.0)
        saved = await browser_save(page, CHROMIUM_PERSON, str(1 + len(seconds) % 5))
        seconds.append(saved.seconds)
    return seconds


class _ServerCpu:
    """The CPU seconds of the server processes, read from /proc between two moments."""

    def __init__(self, stacked: dict[str, Any]) -> None:
        self.stacked = stacked
        self.cpu: CpuByGroup | None = None
        self.outside_before = 0.0

    def start(self) -> float:
        self.cpu = CpuByGroup(rest="clients").__enter__()
        for pid in self.stacked["pids"]:
            self.cpu.group("server", pid)
        if self.stacked["outside"]:
            self.outside_before = tree_cpu_s(self.stacked["outside"])
        return time.perf_counter()

    def stop(self) -> dict[str, float]:
        """CPU seconds since `start`: the dashboards (with nginx), and PostgreSQL's."""
        assert self.cpu is not None
        self.cpu.__exit__(None, None, None)
        used = {"dashboard": self.cpu.seconds().get("server", 0.0)}
        if self.stacked["outside"]:
            used["postgresql"] = tree_cpu_s(self.stacked["outside"]) - self.outside_before
        return used


def _start_import(
    stacked: dict[str, Any], args: argparse.Namespace, cpu: _ServerCpu
) -> subprocess.Popen[bytes] | None:
    """`judgeboard import` of `--import-records` synthetic RAG records into the store, started
    with the paced phase (its CPU is its own, not the servers')."""
    if not args.import_records:
        return None
    from bench.bench_import import generate_rag_jsonl
    from bench.bench_labelling import _import

    work = Path(stacked["work"])
    source = generate_rag_jsonl(work / "import.jsonl", args.import_records)
    process = _import(stacked["store"], source, work / "import.log")  # type: ignore[arg-type]
    assert cpu.cpu is not None
    cpu.cpu.group("import", process.pid)
    return process


async def _phases(stacked: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """Open every session (and the Chromium page) first, then measure the three phases."""
    from playwright.async_api import async_playwright

    from bench.labelling_sessions import CHROMIUM, CHROMIUM_ARGS, open_annotate

    url, cpu, found = stacked["url"], _ServerCpu(stacked), {}
    people = range(args.labellers + 1)  # 0: the baseline's labeller
    sessions = [
        AnnotateSession(url, SIM.format(n), dataset=DATASET, seed=n, cookie=SIM.format(n))
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
        found["baseline"] = (base, time.perf_counter() - started, cpu.stop())

        until = time.time() + args.paced_s
        started = cpu.start()
        importing = _start_import(stacked, args, cpu)
        paced = [
            _labelling(s, r, saves=None, until=until, think_s=args.think_s)
            for s, r in zip(sessions[1:], rngs[1:])
        ]
        chromium, *sims = await asyncio.gather(_chromium(page, until), *paced)
        found["paced"] = (sims, time.perf_counter() - started, cpu.stop())
        found["chromium"] = chromium
        if importing is not None:  # waited for after the phase: it runs while they label
            status = await asyncio.to_thread(importing.wait)
            found["import"] = {"records": args.import_records, "status": status}

        started = cpu.start()
        burst = [
            _labelling(s, r, saves=args.burst_saves, until=None, think_s=0)
            for s, r in zip(sessions[1:], rngs[1:])
        ]
        sims = await asyncio.gather(*burst)
        found["burst"] = (sims, time.perf_counter() - started, cpu.stop())
    return found


def _figures(
    saves: list[Save], wall_s: float, cpu_s: dict[str, float], *, also_saved: int = 0
) -> dict[str, Any]:
    """Round trips, saves a second and the servers' CPU a save (`also_saved`: the Chromium
    labeller's saves in the same phase, which the servers also worked for)."""
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
    }


def _check(address: str, saves: dict[str, list[Save]]) -> dict[str, int]:
    """Every confirmed save is one row of that person on that answer; nothing else."""
    from dashboard.store import Store

    made = Store(address, wait_s=60)
    try:
        with made.connection() as con:
            rows = con.execute(
                "SELECT rater, response_id, count(*) FROM ratings WHERE rater LIKE 'bench-proto-%'"
                " AND rater <> ? GROUP BY ALL",
                [CHROMIUM_PERSON],
            ).fetchall()
    finally:
        made.close()
    found = {(rater, response): count for rater, response, count in rows}
    confirmed = {(p, s.response_id) for p, done in saves.items() for s in done}
    n_saves = sum(len(done) for done in saves.values())
    return {
        "saves": n_saves,
        "rows": sum(found.values()),
        "lost": len(confirmed - set(found)),
        "duplicated": sum(1 for c in found.values() if c > 1) + n_saves - len(confirmed),
        "unexpected": len(set(found) - confirmed),
    }


def run_store(store: str, args: argparse.Namespace) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory(prefix="bench-protocol-") as folder,
        stack(store, Path(folder)) as stacked,
    ):
        found = asyncio.run(_phases(stacked, args))
        by_person = {SIM.format(n): list(done) for n, done in enumerate(found["warm"])}
        by_person[SIM.format(0)] += found["baseline"][0]
        for phase in ("paced", "burst"):
            for n, done in enumerate(found[phase][0], start=1):
                by_person[SIM.format(n)] += done
        check = _check(stacked["store"], by_person)
    base, wall, cpu = found["baseline"]
    chromium = found["chromium"]
    return {
        "store": store,
        "replicas": 1 if store == "embedded" else 2,
        "labellers": args.labellers,
        "think_s": args.think_s,
        "baseline": _figures(base, wall, cpu),
        "paced": _figures(
            [s for d in found["paced"][0] for s in d], *found["paced"][1:], also_saved=len(chromium)
        ),
        "burst": _figures([s for d in found["burst"][0] for s in d], *found["burst"][1:]),
        "chromium": {
            "n": len(chromium),
            "p50_s": statistics.median(chromium),
            "p95_s": percentile(chromium, 95),
        },
        "import": found.get("import"),
        "check": check,
    }


def _split(figures: dict[str, Any]) -> str:
    by = figures["cpu_per_save_by"]
    return f" ({', '.join(f'{k} {v:.3f}' for k, v in by.items())})" if len(by) > 1 else ""


def report(result: dict[str, Any]) -> list[str]:
    base = result["baseline"]
    lines = [
        f"{result['store']} ({result['replicas']} server(s)), {result['labellers']} simulated "
        f"labellers; baseline, one alone: p50 {base['p50_s']:.3f} s, p95 {base['p95_s']:.3f} s, "
        f"{base['saves_per_s']:.1f} saves/s, CPU {base['cpu_per_save_s']:.3f} s a save"
        f"{_split(base)}, load {base['load_1m']:.1f}"
    ]
    for phase in ("paced", "burst"):
        got = result[phase]
        lines.append(
            f"  {phase}: {got['n']} saves ({got['waited']} waited for the file), "
            f"p50 {got['p50_s']:.3f} s "
            f"({got['p50_s'] / base['p50_s']:.2f}x), p95 {got['p95_s']:.3f} s "
            f"({got['p95_s'] / base['p50_s']:.2f}x the baseline's p50), "
            f"{got['saves_per_s']:.1f} saves/s ({got['saves_per_s'] / base['saves_per_s']:.2f}x),"
            f" CPU {got['cpu_per_save_s']:.3f} s a save "
            f"({got['cpu_per_save_s'] / base['cpu_per_save_s']:.2f}x){_split(got)}, "
            f"load {got['load_1m']:.1f}"
        )
    chromium, check, imported = result["chromium"], result["check"], result["import"]
    if imported is not None:
        lines.append(
            f"  a CLI import of {imported['records']:,} records started with the paced phase:"
            f" exit status {imported['status']}"
        )
    lines.append(
        f"  Chromium labeller while paced: {chromium['n']} saves, p50 {chromium['p50_s']:.3f} s"
        f" ({chromium['p50_s'] / base['p50_s']:.2f}x), p95 {chromium['p95_s']:.3f} s"
    )
    lines.append(
        f"  check: {check['saves']} confirmed saves, {check['rows']} rows, {check['lost']} lost,"
        f" {check['duplicated']} duplicated, {check['unexpected']} unexpected"
    )
    return lines


def passed(result: dict[str, Any]) -> bool:
    check = result["check"]
    clean = check["lost"] == check["duplicated"] == check["unexpected"] == 0
    fast = max(result["paced"]["p95_s"], result["chromium"]["p95_s"]) < GOAL_P95_S
    imported = result["import"] is None or result["import"]["status"] == 0
    return clean and check["saves"] == check["rows"] and fast and imported


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_protocol")
    parser.add_argument("--stores", default="embedded,postgresql")
    parser.add_argument("--labellers", type=int, default=20)
    parser.add_argument("--think-s", type=float, default=5.0)
    parser.add_argument("--paced-s", type=float, default=40.0)
    parser.add_argument("--baseline-saves", type=int, default=10)
    parser.add_argument("--burst-saves", type=int, default=3)
    parser.add_argument("--import-records", type=int, default=5000)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse(argv)
    results = []
    for store in args.stores.split(","):
        results.append(run_store(store, args))
        print("\n".join(report(results[-1])), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0 if all(passed(r) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
