"""Takes and saves of one campaign on PostgreSQL, from several processes at once.

A campaign of `--answers` synthetic RAG answers (overlap `--k`) on a store that also holds
about `--ratings` ratings (judges' ratings of the same answers, and people's outside the
campaign); `--processes` labellers, each its own process, take an answer
(`campaigns.assign`) and save a label of it (`annotation.rate`) in a loop until the
campaign has nothing left for them or `--seconds` ran out. Printed as JSON: takes per
second over the whole run, and each take's and save's wall time (p50, p95), and the store's
check: no answer over k.

    python -m bench.bench_takes --processes 10
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.bench_labelling import REPO_ROOT

CAMPAIGN = "takes"

_LABELLER = """
import json, sys, time
from dashboard.campaigns import campaigns
from dashboard.review import annotation
from dashboard.store import Store
url, person, start, until = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
store = Store(url, wait_s=120.0)
store.list_datasets()  # attached before the start
time.sleep(max(0.0, start - time.time()))
takes, saves, refused = [], [], 0
while time.time() < until:
    t0 = time.perf_counter()
    taken = campaigns.assign(store, "takes", person)
    t1 = time.perf_counter()
    takes.append(t1 - t0)
    if taken is None:
        break
    chosen = annotation.Provenance(taken.selection, taken.inclusion_probability, "takes", True)
    try:
        annotation.rate(store, taken.response_id, annotator=person, rubric="likert-rag",
                        rubric_version="1", value=3.0, scale=(1, 5), provenance=chosen)
    except annotation.LabelRefused:
        refused += 1
    saves.append(time.perf_counter() - t1)
print(json.dumps({"takes": takes, "saves": saves, "refused": refused}))
"""


def seed(url: str, args: argparse.Namespace, work: Path) -> None:
    """The answers, the other ratings and the campaign."""
    from bench.bench_import import generate_rag_jsonl
    from dashboard.campaigns.campaigns import create_campaign
    from dashboard.ingest import import_path
    from dashboard.judging import load_rubric
    from dashboard.store import Store
    from tests.builders import rating

    store = Store(url, wait_s=120.0)
    source = generate_rag_jsonl(work / "pool.jsonl", args.answers, seed=11)
    import_path(store, source, dataset="pool", system="pool")
    with store.connection() as con:
        ids = [r[0] for r in con.execute("SELECT response_id FROM responses").fetchall()]
    resp = [_Resp(i) for i in ids]
    rows = []
    for n in range(args.ratings):
        r = resp[n % len(resp)]
        kind, rater = ("human", f"other-{n % 7}") if n % 5 == 0 else ("llm", f"judge-{n % 6}")
        rows.append(rating(r, rater, float(1 + n % 5), kind=kind, minutes=n))  # type: ignore[arg-type]
    store.add_ratings(rows)
    rubric = load_rubric("likert-rag")
    create_campaign(
        store, CAMPAIGN, rubric, dataset="pool", rule="random", size=args.answers, overlap=args.k
    )
    store.close()


class _Resp:
    def __init__(self, response_id: str) -> None:
        self.response_id = response_id


def _quantile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q * 100) - 1] if len(values) > 1 else 0.0


def run(args: argparse.Namespace) -> dict[str, Any]:
    from dashboard.store import Store
    from tests.support.postgres import PostgresServer

    server = PostgresServer().start()
    try:
        with tempfile.TemporaryDirectory() as work:
            url = server.create()
            seed(url, args, Path(work))
            start = time.time() + 8.0
            until = start + args.seconds
            people = [
                subprocess.Popen(
                    [sys.executable, "-c", _LABELLER, url, f"p{n}", str(start), str(until)],
                    cwd=REPO_ROOT,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                for n in range(args.processes)
            ]
            found = []
            for process in people:
                out, err = process.communicate(timeout=args.seconds + 600)
                if process.returncode != 0:
                    raise SystemExit(err)
                found.append(json.loads(out.strip().splitlines()[-1]))
            ended = time.time()
            store = Store(url, wait_s=120.0)
            with store.connection() as con:
                over = con.execute(
                    "SELECT count(*) FROM (SELECT response_id FROM current_ratings "
                    "WHERE campaign = ? AND value IS NOT NULL GROUP BY response_id "
                    "HAVING count(DISTINCT rater) > ?)",
                    [CAMPAIGN, args.k],
                ).fetchone()[0]
                labels = con.execute(
                    "SELECT count(*) FROM current_ratings WHERE campaign = ?", [CAMPAIGN]
                ).fetchone()[0]
            store.close()
    finally:
        server.stop()
    takes = [t for f in found for t in f["takes"]]
    saves = [t for f in found for t in f["saves"]]
    wall = min(ended, until) - start
    return {
        "processes": args.processes,
        "answers": args.answers,
        "k": args.k,
        "takes": len(takes),
        "takes_per_s": round(len(takes) / wall, 1),
        "take_p50_ms": round(1000 * statistics.median(takes), 1),
        "take_p95_ms": round(1000 * _quantile(takes, 0.95), 1),
        "save_p50_ms": round(1000 * statistics.median(saves), 1),
        "save_p95_ms": round(1000 * _quantile(saves, 0.95), 1),
        "refused": sum(f["refused"] for f in found),
        "labels": labels,
        "over_k": over,
        "wall_s": round(wall, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=10)
    parser.add_argument("--answers", type=int, default=300)
    parser.add_argument("--ratings", type=int, default=2000)
    parser.add_argument("--k", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args(argv)
    print(json.dumps(run(args), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
