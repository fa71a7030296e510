"""`python -m bench` (`make bench`): run every benchmark in turn, each in its own process.

Each one prints a table with ratios against a baseline measured in the same run; the figures
and commands are collected in docs/benchmarks.md. Pass names to run only some:
`python -m bench scoring judge`.
"""

from __future__ import annotations

import subprocess
import sys

BENCHES = {
    "scoring": "bench.bench_scoring",
    "import": "bench.bench_import",
    "judge": "bench.bench_judge",
    "dashboard": "bench.bench_dashboard",
    "corrected": "bench.bench_corrected",
    "labelling": "bench.bench_labelling",
    "protocol": "bench.bench_protocol",
    "integrity": "bench.bench_integrity",
    "huge_record": "bench.bench_huge_record",
}


def main(argv: list[str]) -> int:
    chosen = argv or list(BENCHES)
    unknown = [name for name in chosen if name not in BENCHES]
    if unknown:
        print(f"unknown benchmark(s) {unknown}; choose from {list(BENCHES)}", file=sys.stderr)
        return 2
    failed = []
    for name in chosen:
        print(f"\n=== bench {name}: python -m {BENCHES[name]}", flush=True)
        if subprocess.call([sys.executable, "-m", BENCHES[name]]) != 0:
            failed.append(name)
    if failed:
        print(f"\nbenchmarks that missed a goal or failed: {failed}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
