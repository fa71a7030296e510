"""Benchmark: the dashboard's pages while a 50,000-call judge run writes to the same file.

    python -m bench.bench_load --db PATH    # PATH: a database of bench_dashboard (--db keeps it)
    python -m bench.bench_load              # builds one first (several minutes)

The database is a copy of the dashboard benchmark's (1,000,000 responses, 4,000,000 judge
ratings), plus 50,000 responses to judge (dataset "bench", as `bench_judge` seeds them). In
one run:
1. quiet: one process, as the Streamlit server is, runs every page through AppTest, round
   after round, with the data cache cleared before each run: what a page costs after the
   data changed (*cache-cold*); then once more without clearing (*warm*);
2. under load: the loopback judge server (50 ms a call) in its own process, and
   `judgeboard judge` with concurrency 128 in another, judging the 50,000 responses through
   real LiteLLM; meanwhile the same pages run round after round in a fresh process, caches
   NOT cleared (the run's merges change the data every 1.5 s, which is what a person sees).
   Only page runs that ended before the judge run did count.
Each page under load is reported against its quiet cache-cold time in the same run. Goal:
every page under 2 s under load (the slowest run of each page).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
PAGES = ("overview", "failures", "annotate", "pairwise", "calibration", "run_judges", "data")
GOAL_S = 2.0
KEY_ENV = "BENCH_LOAD_KEY"
MODEL = "load"


def child_pages(db: Path, *, rounds: int, clear: bool, stop_file: Path | None) -> dict[str, Any]:
    """Run every page `rounds` times (or, with `stop_file`, until it appears); each run's
    seconds and the wall-clock time it ended."""
    from bench.bench_dashboard import _app, _run, clear_caches, figures_age

    apps = {page: _app(page) for page in PAGES}
    for app in apps.values():
        _run(app)  # imports and the first reads stay out of the figures
    runs: dict[str, list[tuple[float, float, float | None]]] = {page: [] for page in PAGES}
    warm: dict[str, float] = {}
    done = 0
    while done < rounds and not (stop_file and stop_file.exists()):
        for page, app in apps.items():
            if clear:
                clear_caches()
            seconds = _run(app)
            ended = time.time()
            runs[page].append((seconds, ended, figures_age(app, ended)))
        done += 1
    if clear:  # each page twice in a row: the second run finds its reads cached
        warm = {page: (_run(app), _run(app))[1] for page, app in apps.items()}
    return {"runs": runs, "warm": warm}


def _child(db: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "JUDGEBOARD_DB": str(db)}
    return subprocess.Popen(
        [sys.executable, "-m", "bench.bench_load", "--db", str(db), "--child", *args],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )


def _result(process: subprocess.Popen[str]) -> dict[str, Any]:
    out, _ = process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"a benchmark process failed ({process.returncode})")
    return json.loads(out.strip().splitlines()[-1])


def _prepare(base: Path, work: Path, n_calls: int) -> None:
    from bench.bench_judge import seed
    from dashboard.store import Store

    shutil.copyfile(base, work)
    seed(Store(work, wait_s=60), n_calls)


def _panel(path: Path, api_base: str, concurrency: int) -> Path:
    path.write_text(
        f"""name = "load"
[[judges]]
name = "{MODEL}"
model = "openai/{MODEL}"
api_base = "{api_base}"
api_key_env = "{KEY_ENV}"
concurrency = {concurrency}
timeout_s = 120
""",
        encoding="utf-8",
    )
    return path


def _requests(api_base: str) -> int:
    with urllib.request.urlopen(api_base.removesuffix("/v1") + "/stats", timeout=10) as reply:
        return int(json.load(reply).get(MODEL, {}).get("completed", 0))


def _judge(db: Path, panel: Path) -> subprocess.Popen[str]:
    env = {**os.environ, KEY_ENV: "bench-key", "PYTHONPATH": str(REPO_ROOT)}
    command = [sys.executable, "-m", "dashboard.cli", "--db", str(db), "--wait", "600"]
    command += ["judge", "--panel", str(panel), "--rubric", "likert-rag", "--dataset", "bench"]
    return subprocess.Popen(
        [*command, "--no-progress"],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def _under_load(
    db: Path, folder: Path, *, latency_ms: float, concurrency: int, calls: int
) -> dict[str, Any]:
    from bench.bench_judge import judge_server

    stop = folder / "run-ended"
    with judge_server(latency_ms) as api_base:
        judge = _judge(db, _panel(folder / "panel.toml", api_base, concurrency))
        while _requests(api_base) == 0:  # planning 50,000 prompts comes first
            if judge.poll() is not None:
                raise RuntimeError("the judge run ended before its first call")
            time.sleep(0.2)
        started = time.time()
        pages = _child(db, "pages", "1000000", "--keep-cache", "--stop-file", str(stop))
        judge_out, _ = judge.communicate()
        ended = time.time()
        stop.touch()
        completed = _requests(api_base)
    loads = _result(pages)["runs"]
    counted = {p: [s for s, at, _ in runs if at <= ended] for p, runs in loads.items()}
    # how old the figures of a page were, on the runs that showed some of a moment ago
    ages = {
        p: [a for _, at, a in runs if at <= ended and a is not None] for p, runs in loads.items()
    }
    return {
        "runs": counted,
        "earlier_ages_s": ages,
        "judge_wall_s": ended - started,
        "judge_calls": completed,
        "judge_status": judge.returncode,
        "judge_summary": judge_out.strip().splitlines()[-3:],
        "calls_planned": calls,
    }


def _report(quiet: dict[str, Any], load: dict[str, Any]) -> list[str]:
    lines = [
        f"judge run: {load['judge_calls']:,} calls in {load['judge_wall_s']:.0f} s "
        f"({load['judge_calls'] / load['judge_wall_s']:.0f} calls/s) while the pages ran; "
        f"exit status {load['judge_status']}",
        f"{'page':<12} {'quiet cold':>11} {'quiet warm':>11} {'load median':>12} "
        f"{'load max':>9} {'runs':>5} {'max/cold':>9}",
    ]
    for page in PAGES:
        cold = statistics.median(s for s, _, _ in quiet["runs"][page])
        runs = load["runs"][page] or [float("nan")]
        lines.append(
            f"{page:<12} {cold:>10.2f}s {quiet['warm'][page]:>10.3f}s "
            f"{statistics.median(runs):>11.2f}s {max(runs):>8.2f}s {len(load['runs'][page]):>5} "
            f"{max(runs) / cold:>8.1f}x"
        )
    worst = max(max(r or [float("inf")]) for r in load["runs"].values())
    lines.append(f"slowest page under load: {worst:.2f} s (goal < {GOAL_S:.0f} s)")
    for page in PAGES:
        ages = load.get("earlier_ages_s", {}).get(page) or []
        if ages:
            lines.append(
                f"{page}: {len(ages)} of {len(load['runs'][page])} runs showed figures of a "
                f"moment ago, median {statistics.median(ages):.0f} s old, at most {max(ages):.0f} s"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="the dashboard benchmark's database (copied)")
    parser.add_argument("--calls", type=int, default=50_000)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--quiet-rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--keep-cache", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--stop-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        result = child_pages(
            args.db,
            rounds=int(args.child[1]),
            clear=not args.keep_cache,
            stop_file=args.stop_file,
        )
        print(json.dumps(result))
        return 0
    with tempfile.TemporaryDirectory(prefix="judgeboard-load-") as tmp:
        folder = Path(tmp)
        base = args.db
        if base is None:
            base = folder / "base.duckdb"
            from bench.bench_dashboard import _child as build_child

            print(f"building {base} ...", file=sys.stderr)
            build_child(["--db", str(base), "--child", "build", "250000"])
        work = folder / "load.duckdb"
        print("copying the database and seeding the responses to judge ...", file=sys.stderr)
        _prepare(base, work, args.calls)
        print("timing the pages on the quiet database ...", file=sys.stderr)
        quiet = _result(_child(work, "pages", str(args.quiet_rounds)))
        print("timing the pages while the judge run writes ...", file=sys.stderr)
        load = _under_load(
            work,
            folder,
            latency_ms=args.latency_ms,
            concurrency=args.concurrency,
            calls=args.calls,
        )
    for line in _report(quiet, load):
        print(line)
    if args.json:
        args.json.write_text(json.dumps({"quiet": quiet, "load": load}, indent=1) + "\n")
    worst = max(max(r or [float("inf")]) for r in load["runs"].values())
    return 0 if worst < GOAL_S else 1


if __name__ == "__main__":
    sys.exit(main())
