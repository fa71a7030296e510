"""Benchmark: save-and-next on the Annotate page, in a real browser, alone and 20 at once.

    python -m bench.bench_labelling [load]    # 20 labellers at once + a CLI import, on the sample
    python -m bench.bench_labelling single    # one labeller, on the sample
    python -m bench.bench_labelling single --items 250000   # ... on the 1M-response database
    python -m bench.bench_labelling load --sessions 2 --saves 3 --import-records 2000  # a look
    python -m bench.bench_labelling load --baseline  # first with the file opened each time

One dashboard (`streamlit run`, 127.0.0.1) serves one database; one headless Chromium holds
one context per labeller, each its own annotator (named in the sidebar's Annotator box, the
identity the app uses with no users file), each on its own seeded random queue. Every
labeller saves `--saves` answers by keys (a digit, then Enter) after a think time of 0.5-1.5
x `--think-s`; see `bench/labelling_sessions.py` for what one save-and-next measures.

- `load`: the labellers work at once on a copy of the bundled sample while `judgeboard
  import` of another file (`--import-records` synthetic RAG records, as `bench_import` makes
  them) runs into the same database, started once the labellers have made a fifth of their
  saves; the saves that overlapped it (from its process's start to its end) are counted.
- `single`: one labeller, no import; on the sample, or with `--items N` on the dashboard
  benchmark's database (`bench/dashboard_fixture.py`: N items x 4 systems = 4N responses,
  16N judge ratings; 250,000 items = 1M responses), or on `--db PATH` (copied).

Afterwards the server is stopped, the journal (saves made while the import held the file)
applied, and every save checked in the database: each is exactly one human rating of that
person on that answer, and the benchmark's people have no other rows (nothing lost, nothing
duplicated). While the labellers work, the CPU seconds of the server, the browser and the
import are read from `/proc` (`bench/proc_cpu.py`) and reported beside what the cores had;
the server writes its own part of each run (`bench/timed_server.py`), reported beside the
save-and-next the browser saw. With `--baseline` the same run is made twice, first with the
dashboard opening the file for each unit of work (`JUDGEBOARD_KEEP_WARM_S=0`), and the
second is given as ratios of the first.
Goals: p95 < 1 s with 20 labellers; p95 < 0.5 s alone on the sample and
< 1 s on the 1M-response database. Exit status 1 when a goal or the check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import timed_server
from bench.labelling_sessions import (
    CHROMIUM,
    CHROMIUM_ARGS,
    KEY_TIMEOUT_MS,
    REPO_ROOT,
    STEP_TIMEOUT_MS,
    Save,
    label,
    open_annotate,
    serve,
)
from bench.proc_cpu import CpuByGroup

PERSON = "bench-labeller-{:02d}"
# The dashboard opening the file for each unit of work (dashboard/settings.py).
BASELINE_ENV = {"JUDGEBOARD_KEEP_WARM_S": "0"}
IMPORT_DATASET = "bench-import"
GOALS_S = {"load": 1.0, "sample": 0.5, "large": 1.0}


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil(n q / 100), at least 1
    return ordered[int(rank) - 1]


def prepare(args: argparse.Namespace, work: Path) -> Path:
    """The database the benchmark serves: a copy of --db, else built here."""
    from dashboard.store import Store

    target = work / "labelling.duckdb"
    if args.db is not None:
        shutil.copyfile(args.db, target)
        return target
    store = Store(target, wait_s=60)
    if args.items:
        from bench.dashboard_fixture import build

        print(f"building {args.items:,} items x 4 systems ...", file=sys.stderr)
        build(store, n_items=args.items, log=lambda line: print(line, file=sys.stderr))
    else:
        from dashboard.ingest.sample import ensure_sample

        for _ in ensure_sample(store):
            pass
    return target


def _import(db: Path, source: Path, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    command = [sys.executable, "-m", "dashboard.cli", "--db", str(db), "--wait", "600"]
    command += ["import", str(source), "--dataset", IMPORT_DATASET, "--system", "bench-import"]
    with open(log, "wb") as out:
        return subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=out, stderr=out)


class _Importer:
    """The CLI import run into the served database while the labellers work: when it
    started and when its process really ended (watched as it runs, not after the labellers)."""

    def __init__(self, db: Path, source: Path | None, log: Path, cpu: CpuByGroup) -> None:
        self.db, self.source, self.log, self.cpu = db, source, log, cpu
        self.process: subprocess.Popen[bytes] | None = None
        self.started: float | None = None
        self.ended: asyncio.Future[float] | None = None

    def start(self) -> None:
        assert self.source is not None
        self.process = _import(self.db, self.source, self.log)
        self.cpu.group("import", self.process.pid)
        self.started = time.monotonic()
        self.ended = asyncio.ensure_future(self._watch(self.process))

    @staticmethod
    async def _watch(process: subprocess.Popen[bytes]) -> float:
        await asyncio.to_thread(process.wait)
        return time.monotonic()

    async def result(self, saves: list[Save], *, records: int, t0: float) -> dict[str, Any]:
        """The import's figures; the saves that overlapped it (Enter before its end, next
        answer after its start) with their p95."""
        if self.process is None or self.ended is None or self.started is None:
            return {"records": records, "status": None, "saves_during": 0}
        ended = await self.ended
        text = self.log.read_text(encoding="utf-8", errors="replace")
        during = [s for s in saves if s.started < ended and s.started + s.seconds > self.started]
        return {
            "records": records,
            "status": self.process.returncode,
            "started_s": self.started - t0,
            "wall_s": ended - self.started,
            "saves_during": len(during),
            "p95_during_s": percentile([s.seconds for s in during], 95) if during else None,
            "tail": text.strip().splitlines()[-2:],
        }


async def _sessions(
    url: str, server_pid: int, args: argparse.Namespace, db: Path, work: Path
) -> tuple[list[Save], dict[str, Any]]:
    from playwright.async_api import async_playwright

    source = None
    if args.import_records:
        from bench.bench_import import generate_rag_jsonl

        source = generate_rag_jsonl(work / "import.jsonl", args.import_records)
    people = [PERSON.format(n) for n in range(args.sessions)]
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            pages = await asyncio.gather(
                *(open_annotate(browser, url, p, seed=n) for n, p in enumerate(people))
            )
            with CpuByGroup(rest="browser") as cpu:
                cpu.group("server", server_pid)
                own = resource.getrusage(resource.RUSAGE_SELF)
                importer = _Importer(db, source, work / "import.log", cpu)
                # the import starts once the labellers are under way (a fifth of the saves
                # made), so that it runs while they label rather than before their first save
                start_at = max(1, args.sessions * args.saves // 5) if source is not None else 0
                made = 0

                def saved() -> None:
                    nonlocal made
                    made += 1
                    if made == start_at:
                        importer.start()

                started = time.monotonic()
                done = await asyncio.gather(
                    *(
                        label(page, person, args.saves, args.think_s, seed=n, on_save=saved)
                        for n, (page, person) in enumerate(zip(pages, people, strict=True))
                    )
                )
                wall = time.monotonic() - started
                after = resource.getrusage(resource.RUSAGE_SELF)
        finally:
            await browser.close()
    saves = [save for session, _ in done for save in session]
    stuck = [found for _, found in done if found is not None]
    run: dict[str, Any] = {
        "wall_s": wall,
        "t0_monotonic": started,  # the origin of the seconds below and of the server's runs
        "import": None,
        "stuck": [s.__dict__ for s in stuck],
        # digits that rated nothing within KEY_TIMEOUT_MS (then pressed again), with the page
        "keys_lost": [
            {"person": s.person, "response_id": s.response_id, "state": s.key_lost}
            for s in saves
            if s.key_lost is not None
        ],
        # CPU seconds while the labellers worked, by process (the benchmark's own: the
        # labellers' scripts and the sampling), against the cores x the wall time
        "cpu_s": {
            **cpu.seconds(),
            "benchmark": after.ru_utime + after.ru_stime - own.ru_utime - own.ru_stime,
        },
        "cpu_available_s": wall * (os.cpu_count() or 1),
        # each save: seconds from the labellers' start to its Enter, its seconds, journal
        "saves": [
            [round(s.started - started, 3), round(s.seconds, 3), s.pending]
            for s in sorted(saves, key=lambda s: s.started)
        ],
    }
    if source is not None:
        run["import"] = await importer.result(saves, records=args.import_records, t0=started)
    return saves, run


def server_part(saves: list[Save], runs: list[timed_server.Run], *, t0: float) -> dict[str, Any]:
    """The server's part of the runs asked for while the labellers saved (from the first
    Enter to the last next answer), from `bench/timed_server.py`: each from the server's
    reading of the request to its queueing of the run's end (`p50_s`, ...), and the part of
    that spent before the run started (`wait_p50_s`, `wait_p95_s`). A labeller only saves
    meanwhile, so the `n` runs the page asked for are the saves' (`n` against the saves
    says so); fragments' own runs, such as the once-a-second look of a page that found the
    file held by the import, are only counted (`fragment_runs`). `runs` keeps each run
    (when it was asked for, from `t0`; its seconds; its kind), to set beside the saves."""
    first = min((s.started for s in saves), default=0.0)
    last = max((s.started + s.seconds for s in saves), default=-1.0)
    inside = [run for run in runs if first <= run.asked <= last]
    fragments = sum(run.kind == "fragment" for run in inside)
    pages = [run for run in inside if run.kind == "page"]
    if not pages:
        return {"n": 0, "fragment_runs": fragments}
    waits = [run.started - run.asked for run in pages]
    seconds = [run.ended - run.asked for run in pages]
    return {
        "n": len(seconds),
        "fragment_runs": fragments,
        "p50_s": statistics.median(seconds),
        "p95_s": percentile(seconds, 95),
        "max_s": max(seconds),
        "wait_p50_s": statistics.median(waits),
        "wait_p95_s": percentile(waits, 95),
        "runs": [
            [round(run.asked - t0, 3), round(run.ended - run.asked, 3), run.kind] for run in inside
        ],
    }


def check(
    db: Path, saves: list[Save], people: list[str], stuck: list[dict[str, str]]
) -> dict[str, Any]:
    """Apply the journal, then compare the database's rows of the benchmark's people with
    the saves: each save exactly one row, no row that is not a save (a save that never
    showed the next answer may have one row, or none: counted apart)."""
    from dashboard.store import Store

    store = Store(db, wait_s=60)
    applied = store.apply_pending()
    with store.connection() as con:
        rows = con.execute(
            "SELECT rater, response_id, count(*) FROM ratings "
            "WHERE rater_kind = 'human' AND list_contains(?, rater) GROUP BY ALL",
            [people],
        ).fetchall()
    found = {(rater, response): n for rater, response, n in rows}
    made: dict[tuple[str, str], int] = {}
    for save in saves:
        made[(save.person, save.response_id)] = made.get((save.person, save.response_id), 0) + 1
    lost = [key for key in made if key not in found]
    duplicated = [key for key, n in found.items() if n > 1 or made.get(key, 0) > 1]
    unconfirmed = {(s["person"], s["response_id"]) for s in stuck}
    unexpected = [key for key in found if key not in made and key not in unconfirmed]
    duplicated += [key for key in unconfirmed if found.get(key, 0) > 1]
    return {
        "saves": len(saves),
        "rows": sum(found.values()),
        "journal_applied": applied,
        "lost": len(lost),
        "duplicated": len(duplicated),
        "unexpected": len(unexpected),
        "unconfirmed": len(unconfirmed),
        "unconfirmed_stored": sum(1 for key in unconfirmed if key in found),
        "ok": not lost and not duplicated and not unexpected and not unconfirmed,
    }


def run(args: argparse.Namespace, *, env: dict[str, str] | None = None) -> dict[str, Any]:
    """One benchmark run; `env` is added to the server's environment."""
    with tempfile.TemporaryDirectory(prefix="judgeboard-labelling-") as tmp:
        work = Path(tmp)
        db = prepare(args, work)
        served = serve(db, work / "streamlit.log", timings=work / "runs.tsv", env=env)
        with served as (url, pid):
            saves, session_run = asyncio.run(_sessions(url, pid, args, db, work))
        runs = timed_server.read(work / "runs.tsv")
        session_run["server_runs"] = server_part(saves, runs, t0=session_run["t0_monotonic"])
        people = [PERSON.format(n) for n in range(args.sessions)]
        checked = check(db, saves, people, session_run["stuck"])
        with_size = _sizes(db)
    seconds = [s.seconds for s in saves]
    return {
        "mode": args.mode,
        "sessions": args.sessions,
        "saves_each": args.saves,
        "think_s": args.think_s,
        "database": with_size,
        "n": len(seconds),
        "p50_s": statistics.median(seconds),
        "p95_s": percentile(seconds, 95),
        "max_s": max(seconds),
        "pending": sum(s.pending for s in saves),
        "run": session_run,
        "check": checked,
        "load_average": os.getloadavg(),
    }


def _sizes(db: Path) -> dict[str, int]:
    from dashboard.store import Store

    with Store(db, wait_s=60).connection() as con:
        responses, ratings = con.execute(
            "SELECT (SELECT count(*) FROM responses), (SELECT count(*) FROM ratings)"
        ).fetchone() or (0, 0)
    return {"responses": int(responses), "ratings": int(ratings)}


def _goal(result: dict[str, Any]) -> float:
    if result["mode"] == "load":
        return GOALS_S["load"]
    return GOALS_S["large" if result["database"]["responses"] > 100_000 else "sample"]


def report(result: dict[str, Any]) -> list[str]:
    db = result["database"]
    lines = [
        f"{result['mode']}: {result['sessions']} labeller(s) x {result['saves_each']} saves, "
        f"think time {result['think_s']:g} s, on {db['responses']:,} responses / "
        f"{db['ratings']:,} ratings",
        f"save-and-next: n = {result['n']}, p50 {result['p50_s']:.3f} s, "
        f"p95 {result['p95_s']:.3f} s, max {result['max_s']:.3f} s "
        f"(goal p95 < {_goal(result):g} s); {result['pending']} saves went to the journal",
    ]
    if (imported := result["run"]["import"]) and imported["status"] is None:
        lines.append(f"import of {imported['records']:,} records: never started")
    elif imported:
        during = imported["p95_during_s"]
        lines.append(
            f"import of {imported['records']:,} records: started {imported['started_s']:.1f} s "
            f"into the labelling, took {imported['wall_s']:.1f} s, exit {imported['status']}; "
            f"{imported['saves_during']} saves overlapped it"
            + (f" (their p95 {during:.3f} s)" if during is not None else "")
        )
    run = result["run"]
    if (server := run.get("server_runs") or {}).get("n"):
        lines.append(
            f"the server's part (request read -> the run's end queued): n = {server['n']} runs "
            f"of the page for {result['n']} saves (and {server['fragment_runs']} of a "
            "fragment's own, not in the figures), "
            f"p50 {server['p50_s']:.3f} s, p95 {server['p95_s']:.3f} s, max "
            f"{server['max_s']:.3f} s; of it, before the run started: p50 "
            f"{server['wait_p50_s']:.3f} s, p95 {server['wait_p95_s']:.3f} s"
        )
    lines.append(
        f"digits that rated nothing within {KEY_TIMEOUT_MS / 1000:g} s (pressed again): "
        f"{len(run['keys_lost'])}"
        + "".join(
            f"\n  {lost['person']} on {lost['response_id']}: {lost['state']}"
            for lost in run["keys_lost"]
        )
    )
    used = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in run["cpu_s"].items())
    lines.append(
        f"CPU while the labellers worked: {used}, of {run['cpu_available_s']:.0f} s "
        f"({os.cpu_count()} cores x {run['wall_s']:.1f} s)"
    )
    if result["n"] and (cpu_a_save := sum(run["cpu_s"].values()) / result["n"]):
        # what the machine could do at most at this CPU a save, all of it on these cores
        lines.append(
            f"pace: {result['n'] / run['wall_s']:.2f} saves a second; {cpu_a_save:.2f} s of "
            f"CPU a save, all processes, so at most "
            f"{run['cpu_available_s'] / run['wall_s'] / cpu_a_save:.2f} saves a second here"
        )
    c = result["check"]
    lines.append(
        f"database check: {c['saves']} saves, {c['rows']} rows (the check applied "
        f"{c['journal_applied']} left in the journal); lost {c['lost']}, "
        f"duplicated {c['duplicated']}, unexpected {c['unexpected']}: "
        f"{'ok' if c['ok'] else 'FAILED'}"
    )
    if c["unconfirmed"]:
        lines.append(
            f"{c['unconfirmed']} save(s) never showed the next answer within "
            f"{STEP_TIMEOUT_MS / 1000:.0f} s ({c['unconfirmed_stored']} of them stored); "
            f"the page then showed: {result['run']['stuck'][0]['state']}"
        )
    load = ", ".join(f"{x:.1f}" for x in result["load_average"])
    lines.append(f"load average at the end: {load}")
    return lines


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", nargs="?", default="load", choices=("load", "single"))
    parser.add_argument("--sessions", type=int, help="labellers (load: 20, single: 1)")
    parser.add_argument("--saves", type=int, default=15, help="saves per labeller")
    parser.add_argument("--think-s", type=float, help="think time (load: 1 s, single: 0)")
    parser.add_argument("--import-records", type=int, help="load: records imported (20,000)")
    parser.add_argument("--items", type=int, help="build the 1M benchmark database at N items")
    parser.add_argument("--db", type=Path, help="a database to copy and serve")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="first run the same with the file opened for each unit of work "
        "(JUDGEBOARD_KEEP_WARM_S=0), then as served, and print the ratios",
    )
    args = parser.parse_args(argv)
    load = args.mode == "load"
    args.sessions = args.sessions or (20 if load else 1)
    args.think_s = (1.0 if load else 0.0) if args.think_s is None else args.think_s
    if args.import_records is None:
        args.import_records = 20_000 if load else 0
    return args


def _cpu_a_save(result: dict[str, Any]) -> float:
    return sum(result["run"]["cpu_s"].values()) / max(1, result["n"])


def compared(baseline: dict[str, Any], result: dict[str, Any]) -> str:
    """The run as served against the baseline run of the same command, as ratios."""
    ratios = [
        f"{name} {result[key] / baseline[key]:.2f}x ({baseline[key]:.3f} -> {result[key]:.3f} s)"
        for name, key in (("p50", "p50_s"), ("p95", "p95_s"))
    ]
    before, after = _cpu_a_save(baseline), _cpu_a_save(result)
    ratios.append(f"CPU a save {after / before:.2f}x ({before:.3f} -> {after:.3f} s)")
    return "as served against the baseline run: " + ", ".join(ratios)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    figures: dict[str, Any] = {}
    if args.baseline:
        print("the baseline run: " + ", ".join(f"{k}={v}" for k, v in BASELINE_ENV.items()))
        figures["baseline"] = run(args, env=BASELINE_ENV)
        for line in report(figures["baseline"]):
            print("  " + line)
        print("the run as served:")
    result = figures["served"] = run(args)
    for line in report(result):
        print(("  " if args.baseline else "") + line)
    if args.baseline:
        print(compared(figures["baseline"], result))
    if args.json:
        kept = figures if args.baseline else result
        args.json.write_text(json.dumps(kept, indent=1) + "\n", encoding="utf-8")
    return 0 if result["check"]["ok"] and result["p95_s"] < _goal(result) else 1


if __name__ == "__main__":
    sys.exit(main())
