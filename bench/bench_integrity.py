"""`python -m bench integrity`: the long versions of the integrity stress (docs/faults.md).

Two parts, each over many runs, printing what every run found:

- `race` (bench/integrity_race.py): labellers of one campaign, a committer, imports, judge
  runs, a reader and a plain DuckDB holder on one file, then a full read-back. Goal: 0 damaged
  files, 0 lost acknowledged saves or commits, 0 answers past their overlap, in every run.
- `open` : the root cause alone. Processes commit in a loop, each opening and closing the file
  for every commit; once through plain `duckdb.connect` (the baseline: DuckDB's own lock only)
  and once through judgeboard's store (the lock file first). Lost commits are counted per run.

    python -m bench.bench_integrity race --runs 200 --seconds 30
    python -m bench.bench_integrity open --runs 10 --seconds 15 --processes 4
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.integrity_race import RaceConfig, run, sample_database


def _race(args: argparse.Namespace) -> int:
    config = RaceConfig(
        labellers=args.labellers, size=args.size, overlap=args.overlap, seconds=args.seconds
    )
    bad, totals = 0, {"saves": 0, "refused": 0, "commits": 0, "imports": 0, "judge_runs": 0}
    with tempfile.TemporaryDirectory(prefix="jb-race-") as work:
        template = sample_database(Path(work) / "sample.duckdb")
        for n in range(1, args.runs + 1):
            result = run(Path(work) / f"run-{n}", config, template=template)
            shutil.rmtree(Path(work) / f"run-{n}", ignore_errors=True)
            totals["saves"] += result.saves_acked
            totals["refused"] += result.saves_refused
            totals["commits"] += result.commits_acked
            totals["imports"] += result.imports
            totals["judge_runs"] += result.judge_runs
            flag = "ok" if result.ok else "FAILED"
            print(
                f"run {n:3d}: {flag}  {result.wall_s:5.1f} s  saves {result.saves_acked:3d} "
                f"(refused {result.saves_refused})  commits {result.commits_acked:4d}  "
                f"imports {result.imports}  judge runs {result.judge_runs}  "
                f"damaged {'yes' if result.damaged else 'no'}  lost saves "
                f"{len(result.saves_lost)}  lost commits {result.commits_lost}  over k "
                f"{len(result.over_k)}",
                flush=True,
            )
            if not result.ok:
                bad += 1
                print(result.as_json(), flush=True)
    print(f"\n{args.runs} runs of {args.seconds:g} s: {bad} with a finding; totals {totals}")
    return 1 if bad else 0


def _commits(path: str, through_store: bool, deadline: float, me: int, out: Any) -> None:
    import duckdb

    from dashboard.store.connection import Database

    database = Database(path, wait_s=30) if through_store else None
    acked, n = [], 0
    while time.time() < deadline:
        try:
            if database is not None:
                with database.connect() as con:
                    con.execute(
                        "INSERT INTO t SELECT ?, ?, range, repeat('x', 200) FROM range(?)",
                        [me, n, 1 + n % 50],
                    )
            else:
                con = duckdb.connect(path)
                try:
                    con.execute(
                        "INSERT INTO t SELECT ?, ?, range, repeat('x', 200) FROM range(?)",
                        [me, n, 1 + n % 50],
                    )
                finally:
                    con.close()
            acked.append(n)
        except duckdb.Error:
            time.sleep(random.uniform(0, 0.005))  # held by another: try again
        n += 1
    out.put((me, acked))


def _open_run(work: Path, *, through_store: bool, processes: int, seconds: float) -> dict:
    from dashboard.store.connection import Database

    path = str(work / ("store.duckdb" if through_store else "plain.duckdb"))
    with Database(path).connect() as con:  # judgeboard's schema, plus the bench's table
        con.execute("CREATE TABLE t (p INTEGER, n INTEGER, k BIGINT, pad VARCHAR)")
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    deadline = time.time() + seconds
    procs = [
        ctx.Process(target=_commits, args=(path, through_store, deadline, i, out))
        for i in range(processes)
    ]
    for p in procs:
        p.start()
    acked = dict(out.get(timeout=seconds + 120) for _ in procs)
    for p in procs:
        p.join()
    try:
        with Database(path).connect() as con:
            have = set(con.execute("SELECT DISTINCT p, n FROM t").fetchall())
        lost = sum(1 for me, ns in acked.items() for n in ns if (me, n) not in have)
        damaged = None
    except Exception as error:  # noqa: BLE001 (a damaged file is the finding)
        lost, damaged = -1, f"{type(error).__name__}: {error}"[:300]
    return {"commits": sum(map(len, acked.values())), "lost": lost, "damaged": damaged}


def _open(args: argparse.Namespace) -> int:
    import duckdb

    print(f"DuckDB {duckdb.__version__}; {args.processes} processes, {args.seconds:g} s a run")
    found = {"plain duckdb.connect": [], "judgeboard store": []}
    with tempfile.TemporaryDirectory(prefix="jb-open-") as work:
        for n in range(1, args.runs + 1):
            for label, through_store in (
                ("plain duckdb.connect", False),
                ("judgeboard store", True),
            ):
                folder = Path(work) / f"{n}-{int(through_store)}"
                folder.mkdir()
                figures = _open_run(
                    folder,
                    through_store=through_store,
                    processes=args.processes,
                    seconds=args.seconds,
                )
                found[label].append(figures)
                print(f"run {n:3d} {label:22s} {json.dumps(figures)}", flush=True)
    for label, runs in found.items():
        with_loss = sum(1 for r in runs if r["lost"] != 0 or r["damaged"])
        commits = sum(r["commits"] for r in runs)
        lost = sum(max(0, r["lost"]) for r in runs)
        print(
            f"{label:22s}: {with_loss} of {len(runs)} runs lost commits or the file "
            f"({lost} of {commits} commits lost)"
        )
    return 1 if any(r["lost"] or r["damaged"] for r in found["judgeboard store"]) else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_integrity")
    sub = parser.add_subparsers(dest="part")
    race = sub.add_parser("race", help="the contended campaign, many runs")
    race.add_argument("--runs", type=int, default=5)
    race.add_argument("--seconds", type=float, default=30.0)
    race.add_argument("--labellers", type=int, default=6)
    race.add_argument("--size", type=int, default=30)
    race.add_argument("--overlap", type=int, default=3)
    opened = sub.add_parser("open", help="commits through plain DuckDB and through the store")
    opened.add_argument("--runs", type=int, default=5)
    opened.add_argument("--seconds", type=float, default=15.0)
    opened.add_argument("--processes", type=int, default=4)
    args = parser.parse_args(argv or ["race"])
    if args.part is None:
        args = parser.parse_args(["race", *argv])
    return _race(args) if args.part == "race" else _open(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
