"""`python -m bench.bench_huge_record`: what a record past the size limit costs to refuse.

Each case runs `judgeboard import` in a child process and reads its wall time and peak memory
(getrusage of the child):
- baseline: a one-record JSONL file;
- refused: a JSONL file whose one line is `--gb` GB (a sparse file: its bytes are a hole),
  refused by the record-size scan at the default 64 MB limit;
- read by DuckDB: a real `--read-mb` MB record with the limit raised past it, to show what
  DuckDB spends on a record it is let read (the cost the limit keeps away).

    python -m bench.bench_huge_record --gb 2 --read-mb 256
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

_PROBE = (
    "import resource, subprocess, sys, time\n"
    "t = time.monotonic()\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "print(time.monotonic() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\n"
    "print(done.stderr.strip()[-300:] or done.stdout.strip()[-300:])\n"
)


def _measure(work: Path, path: Path, *extra: str) -> tuple[float, float, str]:
    command = [sys.executable, "-m", "dashboard.cli", "--db", str(work / "bench.duckdb")]
    command += ["import", str(path), "--no-score", "--no-progress", *extra]
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, *command], capture_output=True, text=True, check=True
    ).stdout
    first, _, said = out.partition("\n")
    wall_s, peak_mb = (float(x) for x in first.split())
    return wall_s, peak_mb, said.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=2.0, help="the refused line's size")
    parser.add_argument("--read-mb", type=int, default=256, help="the read record's size")
    args = parser.parse_args(argv)
    record = {"question": "q", "system": "s", "answer": "a"}
    with tempfile.TemporaryDirectory(prefix="jb-huge-") as folder:
        work = Path(folder)
        small = work / "small.jsonl"
        small.write_text(json.dumps(record) + "\n")
        huge = work / "huge.jsonl"
        with open(huge, "wb") as handle:
            handle.write(b'{"question": "')
            handle.truncate(int(args.gb * 1024**3))
        read = work / "read.jsonl"
        with open(read, "w") as handle:
            handle.write('{"question": "q", "system": "s", "answer": "')
            for _ in range(args.read_mb):
                handle.write("x" * 1024 * 1024)
            handle.write('"}\n')
        rows = [
            ("baseline: 1 small record", *_measure(work, small)),
            (f"refused: one {args.gb:g} GB line, limit 64 MB", *_measure(work, huge)),
            (
                f"read by DuckDB: one {args.read_mb} MB record, limit raised",
                *_measure(work, read, "--max-record-mb", str(args.read_mb * 2)),
            ),
        ]
    base_mb = rows[0][2]
    print(f"{'case':<48} {'wall s':>7} {'peak MB':>8} {'x base mem':>10}")
    for name, wall_s, peak_mb, _ in rows:
        print(f"{name:<48} {wall_s:>7.2f} {peak_mb:>8.0f} {peak_mb / base_mb:>10.2f}")
    print(f"refusal said: {rows[1][3]}")
    refused_ok = "longer than 64 MB" in rows[1][3] and rows[1][2] - base_mb < 64
    print(f"goal (refused early, memory within 64 MB of the baseline): {refused_ok}")
    return 0 if refused_ok else 1


if __name__ == "__main__":
    sys.exit(main())
