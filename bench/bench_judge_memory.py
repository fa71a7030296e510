"""Benchmark: the peak memory of `judgeboard judge` as its plan grows (issue 33).

    python -m bench.bench_judge_memory --calls 20000 80000
    python -m bench.bench_judge_memory --calls 20000 80000 --baseline 20000
    python -m bench.bench_judge_memory --calls 40000 1000000 --plan-only   # the plan alone

For each size N: a fresh DuckDB file with N answers (`bench_judge.seed`), the loopback
OpenAI-compatible server in its own process (`--latency-ms`, low by default), and
`judgeboard judge` run as a child process with a streamed plan (the default). Reported per
size: the child's peak RSS (`ru_maxrss` from `wait4`), the peak RSS of the child and its
worker processes together (polled from /proc), calls made, calls/s and CPU a call (user and
system, the child and the workers it reaped). The answers are seeded by a process of their
own: on Linux a child's `ru_maxrss` starts from its parent's high-water mark (fork copies
it, exec keeps it), so seeding in this process made the judge's figure this process's
seeding peak (2,016.9 MB for 1,000,000 answers, whatever the judge did). `floor_mb` is this
process's own high-water mark when the judge starts: the judge's figure cannot be lower.
`--flush-every S` sets the judge's merge interval (its hidden option; 1.5 s by default).
The baseline: the same command with `--plan-chunk 0` (the plan rendered whole, as before
issue 33) at the sizes of `--baseline`, measured in the same run; the ratios say how much
less a streamed run holds.
With `--plan-only`, the command stops after its plan (`judge --plan-only`, no call made): the
memory of counting the plan alone.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from bench.bench_judge import KEY_ENV, judge_server  # noqa: E402

PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


@dataclass(frozen=True)
class Run:
    calls: int
    streamed: bool
    wall_s: float
    peak_rss_mb: float  # the judge process (its ru_maxrss; never below `floor_mb`)
    peak_tree_mb: float  # the judge process and its workers, polled
    calls_made: int
    cpu_s: float  # user and system CPU of the judge process and the workers it reaped
    floor_mb: float  # this process's own high-water mark as the judge started

    @property
    def cpu_ms_per_call(self) -> float:
        return 1000 * self.cpu_s / max(self.calls_made, 1)

    @property
    def rate(self) -> float:
        return self.calls_made / self.wall_s


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * PAGE_KB
    except (OSError, IndexError, ValueError):
        return 0


def _children(pid: int) -> list[int]:
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as text:
                found += [int(child) for child in text.read().split()]
    except OSError:
        pass
    return found


def _poll_tree(pid: int, done: threading.Event, peak: list[int]) -> None:
    """The highest sum of RSS over the process and its descendants, every 0.2 s."""
    while not done.wait(0.2):
        tree, stack = 0, [pid]
        while stack:
            current = stack.pop()
            tree += _rss_kb(current)
            stack += _children(current)
        peak[0] = max(peak[0], tree)


def made(output: str) -> int:
    """Calls made, from the summary's row of the judge (`made` is its first number)."""
    for line in output.split("summary:")[-1].splitlines():
        fields = line.split()
        if fields[:1] == ["openai/bench"]:
            return int(fields[1])
    raise RuntimeError(f"no summary row in the output:\n{output[-2000:]}")


def _seed_apart(path: Path, calls: int) -> None:
    """`bench_judge.seed` of `calls` answers into a new file, in a process of its own (see
    the module's docstring: this process's high-water mark is the judge's floor)."""
    code = (
        "import sys; from pathlib import Path; from bench.bench_judge import seed; "
        "from dashboard.store import Store; store = Store(Path(sys.argv[1])); "
        "seed(store, int(sys.argv[2])); store.close()"
    )
    subprocess.run([sys.executable, "-c", code, str(path), str(calls)], cwd=REPO_ROOT, check=True)


def measure(calls: int, args: argparse.Namespace, *, streamed: bool) -> Run:
    with tempfile.TemporaryDirectory() as tmp, judge_server(args.latency_ms) as api_base:
        _seed_apart(Path(tmp) / "bench.duckdb", calls)
        command = [
            sys.executable,
            "-m",
            "dashboard.cli",
            "--db",
            str(Path(tmp) / "bench.duckdb"),
            "judge",
            "--panel",
            "openai/bench",
            "--rubric",
            "likert-rag",
            "--api-base",
            api_base,
            "--api-key-env",
            KEY_ENV,
            "--concurrency",
            str(args.concurrency),
            "--no-progress",
            *(["--workers", str(args.workers)] if args.workers else []),
            *(["--plan-chunk", str(args.plan_chunk)] if streamed and args.plan_chunk else []),
            *([] if streamed else ["--plan-chunk", "0"]),
            *(["--plan-only"] if args.plan_only else []),
            *(["--flush-every", str(args.flush_every)] if args.flush_every else []),
        ]
        env = {**os.environ, KEY_ENV: "bench-key"}
        started = time.perf_counter()
        floor_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        with tempfile.TemporaryFile("w+") as out:
            child = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=out, text=True)
            done, peak = threading.Event(), [0]
            poller = threading.Thread(target=_poll_tree, args=(child.pid, done, peak))
            poller.start()
            _, status, usage = os.wait4(child.pid, 0)
            child.returncode = os.waitstatus_to_exitcode(status)
            done.set()
            poller.join()
            out.seek(0)
            output = out.read()
        wall_s = time.perf_counter() - started
        if child.returncode != 0:
            raise RuntimeError(f"judge exited {child.returncode}:\n{output[-2000:]}")
        calls_made = 0 if args.plan_only else made(output)
        cpu_s = usage.ru_utime + usage.ru_stime
        return Run(
            calls,
            streamed,
            wall_s,
            usage.ru_maxrss / 1024,
            peak[0] / 1024,
            calls_made,
            cpu_s,
            floor_mb,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="judge memory benchmark")
    parser.add_argument("--calls", type=int, nargs="+", default=[20_000, 80_000])
    parser.add_argument("--baseline", type=int, nargs="*", default=[], metavar="CALLS")
    parser.add_argument("--latency-ms", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--workers", type=int, default=None, help="default: the CLI's")
    parser.add_argument(
        "--plan-chunk", type=int, default=None, help="targets a chunk (default: the CLI's 5,000)"
    )
    parser.add_argument(
        "--plan-only", action="store_true", help="stop after the plan: its memory alone"
    )
    parser.add_argument(
        "--flush-every",
        type=float,
        default=None,
        help="seconds between the judge's merges into DuckDB (default: the runner's 1.5)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    runs = []
    for calls, streamed in [*((n, True) for n in args.calls), *((n, False) for n in args.baseline)]:
        runs.append(measure(calls, args, streamed=streamed))
        print(runs[-1], flush=True)  # each size as it ends: a long run keeps what it measured
    figures: dict[str, object] = {}
    for run in runs:
        name = f"{'streamed' if run.streamed else 'whole'}_{run.calls}"
        figures[f"{name}_peak_rss_mb"] = round(run.peak_rss_mb, 1)
        figures[f"{name}_peak_tree_rss_mb"] = round(run.peak_tree_mb, 1)
        figures[f"{name}_floor_mb"] = round(run.floor_mb, 1)
        figures[f"{name}_calls_made"] = run.calls_made
        if not args.plan_only:
            figures[f"{name}_calls_per_s"] = round(run.rate, 1)
            figures[f"{name}_cpu_ms_per_call"] = round(run.cpu_ms_per_call, 2)
        figures[f"{name}_wall_s"] = round(run.wall_s, 1)
    streamed = {r.calls: r for r in runs if r.streamed}
    for run in runs:
        if not run.streamed and run.calls in streamed:
            ratio = run.peak_rss_mb / streamed[run.calls].peak_rss_mb
            figures[f"whole_over_streamed_rss_{run.calls}"] = round(ratio, 2)
    if len(streamed) >= 2:
        small, big = min(streamed), max(streamed)
        growth = streamed[big].peak_rss_mb - streamed[small].peak_rss_mb
        figures["streamed_rss_growth_mb"] = round(growth, 1)
        figures["streamed_rss_growth_kb_per_1k_calls"] = round(
            1024 * growth / ((big - small) / 1000), 1
        )
    width = max(map(len, figures))
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
