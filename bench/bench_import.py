"""Benchmark: importing RAG records and scoring them against their references (EM and F1),
with judgeboard's importer and scorer against a pandas + Python baseline.

    python -m bench.bench_import                   # 1,000,000 records (about 1.7 GB of JSONL)
    python -m bench.bench_import --records 100000  # a quick look
    python -m bench.bench_import --repeat 1        # one run of each path (default: 3, medians)

Both paths are measured in the same run, `--repeat` times each (alternating; the figures are
medians), each run in its own subprocess so that peak RSS is per path, on the same file, each
into a fresh DuckDB file:
- ours: `dashboard.ingest.import_path`, what `judgeboard import` runs: DuckDB's JSON reader into
  a staging table, SQL checks, content ids in SQL, INSERT … SELECT into items and responses,
  one transaction; then the reference scores of the new responses (`metrics.reference`:
  EM and F1 many at a time, `metrics/reference/reference_qa.py`);
- pandas: `pandas.read_json(lines=True)`, then the same work in Python: content ids by
  `dashboard.ids.content_id`, the items/responses split (items deduplicated), an insert of
  both frames into the same schema; then each response scored by the Python scorer
  (`reference.score_response`, `scoring.qa` one answer at a time) and its scores inserted.
The records are synthetic, about 1.7 KB each, generated fast and deterministically: a quarter
have two or three reference answers, a tenth answer with a reference in capitals (an exact
match after normalization), the others overlap their reference in part; one word in twenty
is not ASCII. After both runs every stored EM and F1 of one database is compared with the
other's: they must be equal to the last digit.
Goals: import plus scoring in under 15 s; the import alone at least 5x faster than pandas';
peak memory under 4 GB; the same numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

GOAL_RATIO = 5.0  # the import alone, against pandas'
GOAL_TOTAL_S = 15.0  # import plus reference scoring
GOAL_PEAK_MB = 4 * 1024
DATASET = "bench"
SYSTEM = "bench-system"


def _sentences(rng: random.Random) -> list[str]:
    """4,099 sentences of 40-52 words; a few words are not ASCII, a few are articles."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(2000)]
    words += ["the", "a", "an"] * 20 + [w[:-1] + "é" for w in words[:100]]
    words += [w + "ß" for w in words[100:200]]
    # No character of these needs escaping in JSON: no per-record json.dumps.
    return [
        " ".join(rng.choice(words) for _ in range(rng.randint(40, 52))).capitalize() + "."
        for _ in range(4099)
    ]


def _references(pool: list[str], i: int, b: int) -> str:
    """The `gt_answer` of record i: one reference, or for a quarter a list of two or three."""
    size = len(pool)
    if i % 4:
        return f'"{pool[b][:150]}"'
    more = [pool[b][:150], pool[b][:60], pool[(b + 5) % size][:40]][: 2 + i % 8 // 4]
    return "[" + ", ".join(f'"{r}"' for r in more) + "]"


def _answer(pool: list[str], i: int, a: int, b: int) -> str:
    """A tenth match a reference once normalized; the others share part of it."""
    if i % 10 == 0:
        return pool[b][:150].upper() + "!"
    return pool[b][20:100] + " " + pool[(a + b) % len(pool)][:80]


def generate_rag_jsonl(path: Path, records: int, *, seed: int = 7) -> Path:
    """`records` RAG records of about 1.7 KB each; the same bytes for the same arguments."""
    pool = _sentences(random.Random(seed))
    size = len(pool)
    with open(path, "w", encoding="utf-8", buffering=1 << 22) as handle:
        chunk = []
        for i in range(records):
            a, b, c = (i * 7919) % size, (i * 104729 + 13) % size, (i * 1299709 + 29) % size
            chunk.append(
                f'{{"question": "Question {i}: {pool[a][:70]}?", '
                f'"gt_answer": {_references(pool, i, b)}, '
                f'"gt_context": "{pool[c]}", "document": "doc-{i % 5000}.pdf", '
                f'"contexts": ["{pool[(a + 1) % size]}", "{pool[(b + 2) % size]}", '
                f'"{pool[(c + 3) % size]}"], "answer": "{_answer(pool, i, a, b)}"}}\n'
            )
            if len(chunk) == 10_000:
                handle.write("".join(chunk))
                chunk.clear()
        handle.write("".join(chunk))
    return path


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def run_ours(source: Path, db: Path) -> dict[str, float]:
    from dashboard.ingest import import_path
    from dashboard.ingest.runner import SCORING
    from dashboard.store import Store

    marks: dict[str, float] = {}

    def note(stage: str, fraction: float | None) -> None:
        if stage == SCORING:  # the import is committed: scoring starts
            marks.setdefault("scoring", time.perf_counter())

    start = time.perf_counter()
    report = import_path(Store(db), source, dataset=DATASET, system=SYSTEM, on_progress=note)
    seconds = time.perf_counter() - start
    import_s = marks.get("scoring", start + seconds) - start
    return {
        "seconds": seconds,
        "import_seconds": import_s,
        "score_seconds": seconds - import_s,
        "items": report.added["items"],
        "responses": report.added["responses"],
        "scored": report.scored,
    }


def run_pandas(source: Path, db: Path) -> dict[str, float]:
    import pandas as pd

    from dashboard.ids import content_id
    from dashboard.ingest.read_sql import bulk_write_settings
    from dashboard.store.connection import Database, transaction

    start = time.perf_counter()
    df = pd.read_json(source, lines=True)
    read_s = time.perf_counter() - start
    context = ["\n\n".join(c) if isinstance(c, list) else c for c in df["gt_context"]]
    references = [[g] if isinstance(g, str) else list(g) for g in df["gt_answer"]]
    task = ["open_qa_context" if c and c.strip() else "open_qa" for c in context]
    df["item_id"] = [
        content_id(DATASET, None, t, q, None, r, c, d, None, None, None, None)
        for t, q, r, c, d in zip(task, df["question"], references, context, df["document"])
    ]
    df["response_id"] = [content_id(i, SYSTEM, a) for i, a in zip(df["item_id"], df["answer"])]
    items = pd.DataFrame(
        {
            "item_id": df["item_id"],
            "dataset": DATASET,
            "task_type": task,
            "question": df["question"],
            "reference_answers": references,
            "reference_context": context,
            "document": df["document"],
        }
    )
    items = items.drop_duplicates("item_id")
    responses = pd.DataFrame(
        {
            "response_id": df["response_id"],
            "item_id": df["item_id"],
            "dataset": DATASET,
            "system": SYSTEM,
            "answer": df["answer"],
            "contexts": df["contexts"],
        }
    )
    # The same write settings as the importer: the comparison is of reading and shaping.
    with Database(db).connect() as con, bulk_write_settings(con), transaction(con):
        con.register("items_df", items)
        con.register("responses_df", responses)
        con.execute("INSERT INTO datasets VALUES ($d, NULL, NULL, now())", {"d": DATASET})
        con.execute(
            "INSERT INTO items (item_id, dataset, task_type, question, "
            "reference_answers, reference_context, document, created_utc) "
            "SELECT *, now() FROM items_df"
        )
        con.execute(
            "INSERT INTO responses (response_id, item_id, dataset, system, answer, "
            "contexts, created_utc) SELECT *, now() FROM responses_df"
        )
    import_s = time.perf_counter() - start
    scored = _score_in_python(db, df["response_id"], task, df["answer"], references)
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "import_seconds": import_s,
        "score_seconds": seconds - import_s,
        "read_seconds": read_s,
        "items": len(items),
        "responses": len(responses),
        "scored": scored,
    }


def _score_in_python(db: Path, ids: Any, tasks: Any, answers: Any, references: Any) -> int:
    """Each response through the Python scorer, one at a time, and its scores stored."""
    import pyarrow as pa

    from dashboard.metrics import reference
    from dashboard.metrics.registry import Case
    from dashboard.store.connection import Database, transaction

    rows = [
        (response_id, metric, value, reference.VERSION)
        for response_id, task, answer, refs in zip(ids, tasks, answers, references)
        for metric, value in reference.score_response(Case(task, answer, tuple(refs)))
    ]
    columns = list(zip(*rows))
    table = pa.table(dict(zip(("response_id", "metric", "value", "version"), map(list, columns))))
    with Database(db).connect() as con, transaction(con):
        con.register("scores_df", table)
        con.execute("INSERT INTO auto_scores SELECT * FROM scores_df")
    return len(ids)


def compare_scores(ours: Path, base: Path) -> tuple[int, int]:
    """(stored scores compared, how many differ or are missing on one side): every EM and F1
    of the two databases, matched by response and metric, compared for equality."""
    from dashboard.store.connection import Database

    with Database(ours).connect() as con:
        con.execute("ATTACH $path AS base (READ_ONLY)", {"path": str(base)})
        compared, differ = con.execute("""
            SELECT count(*), count(*) FILTER (WHERE o.value IS DISTINCT FROM b.value)
            FROM auto_scores o FULL JOIN base.auto_scores b USING (response_id, metric)
            """).fetchone()
    return compared, differ


def child(path_name: str, source: Path, db: Path) -> None:
    """Run one path and print its measures as one JSON line."""
    cpu = time.process_time()
    result = (run_ours if path_name == "ours" else run_pandas)(source, db)
    result["peak_rss_mb"] = _peak_rss_mb()
    # every thread's CPU time: on a busy machine the wall time grows, this much less
    result["cpu_seconds"] = time.process_time() - cpu
    result["load_average"] = os.getloadavg()[0]  # the machine's, over the last minute
    print(json.dumps(result), flush=True)


def settle() -> None:
    """Flush dirty pages (the generated file, the previous path's database) to disk, so that
    neither path pays for the other's writeback."""
    os.sync()


def measure(path_name: str, source: Path, workdir: Path) -> dict[str, float]:
    """One run of a path into a fresh database (the previous run's is removed)."""
    db = workdir / f"{path_name}.duckdb"
    for stale in (db, db.with_name(db.name + ".wal")):
        stale.unlink(missing_ok=True)
    settle()
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        path_name,
        str(source),
        str(db),
    ]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO_ROOT, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{path_name} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _line(name: str, run: dict[str, float]) -> None:
    print(
        f"{name + ':':16}import {run['import_seconds']:.1f} s + scoring "
        f"{run['score_seconds']:.1f} s = {run['seconds']:.1f} s, "
        f"peak {run['peak_rss_mb']:,.0f} MB, CPU {run['cpu_seconds']:.1f} s, "
        f"load {run['load_average']:.1f}",
        flush=True,
    )


def _report(ours: dict[str, float], base: dict[str, float], same: tuple[int, int]) -> bool:
    """Print the ratios; whether every goal is met."""
    import_ratio = base["import_seconds"] / ours["import_seconds"]
    score_ratio = base["score_seconds"] / ours["score_seconds"]
    total_ratio = base["seconds"] / ours["seconds"]
    compared, differ = same
    print(
        f"ratios: import {import_ratio:.1f}x, scoring {score_ratio:.1f}x, "
        f"together {total_ratio:.1f}x; scores compared {compared:,}, different {differ:,}",
        flush=True,
    )
    met = (
        ours["seconds"] < GOAL_TOTAL_S
        and import_ratio >= GOAL_RATIO
        and ours["peak_rss_mb"] < GOAL_PEAK_MB
        and differ == 0
        and compared > 0
    )
    print(
        f"goals: import + scoring < {GOAL_TOTAL_S:g} s, import >= {GOAL_RATIO:g}x pandas, "
        f"peak < {GOAL_PEAK_MB:,} MB, the same numbers: {'met' if met else 'MISSED'}",
        flush=True,
    )
    return met


def median_run(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each figure's median over the runs (the figures of one path)."""
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def _measure_both(source: Path, workdir: Path, repeat: int) -> tuple[dict, dict]:
    """Each path `repeat` times, alternating so that a busy moment hits both; the medians."""
    runs: dict[str, list[dict[str, float]]] = {"ours": [], "pandas": []}
    for n in range(1, repeat + 1):
        for name, done in runs.items():
            done.append(measure(name, source, workdir))
            _line(f"{name} {n}" if repeat > 1 else name, done[-1])
    return median_run(runs["ours"]), median_run(runs["pandas"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each path (medians)")
    parser.add_argument("--dir", type=Path, default=None, help="work directory (default: temp)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--child", nargs=3, metavar=("PATH", "SOURCE", "DB"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], Path(args.child[1]), Path(args.child[2]))
        return 0
    workdir = Path(tempfile.mkdtemp(prefix="bench-import-", dir=args.dir))
    try:
        source = generate_rag_jsonl(workdir / "rag.jsonl", args.records)
        size_mb = source.stat().st_size / 2**20
        print(f"{args.records:,} records, {size_mb:,.0f} MB in {source}", flush=True)
        ours, base = _measure_both(source, workdir, max(1, args.repeat))
        if args.repeat > 1:
            _line("ours, median", ours)
            _line("pandas, median", base)
        same = compare_scores(workdir / "ours.duckdb", workdir / "pandas.duckdb")
        met = _report(ours, base, same)
        if args.json:
            args.json.write_text(
                json.dumps(
                    {
                        "records": args.records,
                        "size_mb": size_mb,
                        "repeat": args.repeat,
                        "ours": ours,
                        "pandas": base,
                        "scores_compared": same[0],
                        "scores_different": same[1],
                    },
                    indent=2,
                )
                + "\n",
                encoding="utf-8",
            )
        return 0 if met else 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
