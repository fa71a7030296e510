"""Benchmark: importing RAG records with judgeboard's importer against a pandas baseline.

    python -m bench.bench_import                   # 1,000,000 records (about 1.7 GB of JSONL)
    python -m bench.bench_import --records 100000  # a quick look

Both paths are measured in the same run, each in its own subprocess so that peak RSS is
per path, on the same file, each into a fresh DuckDB file:
- ours: `dashboard.ingest.import_path` (DuckDB's JSON reader into a staging table, SQL checks,
  content ids in SQL, INSERT … SELECT into items and responses, one transaction);
- pandas: `pandas.read_json(lines=True)`, then the same work in Python: content ids by
  `dashboard.ids.content_id`, the items/responses split (items deduplicated), and an insert of
  both frames into the same schema.
The records are synthetic, about 1.7 KB each, generated fast and deterministically.
Goal: ours at least 5x faster than pandas, with peak memory under 4 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

GOAL_RATIO = 5.0
GOAL_PEAK_MB = 4 * 1024
DATASET = "bench"
SYSTEM = "bench-system"


def generate_rag_jsonl(path: Path, records: int, *, seed: int = 7) -> Path:
    """`records` RAG records of about 1.7 KB each; the same bytes for the same arguments."""
    rng = random.Random(seed)
    words = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
        for _ in range(2000)
    ]
    # JSON-escaped sentences, picked by index arithmetic: no per-record json.dumps.
    pool = [
        json.dumps(
            " ".join(rng.choice(words) for _ in range(rng.randint(40, 52))).capitalize() + "."
        )[1:-1]
        for _ in range(4099)
    ]
    size = len(pool)
    with open(path, "w", encoding="utf-8", buffering=1 << 22) as handle:
        chunk = []
        for i in range(records):
            a, b, c = (i * 7919) % size, (i * 104729 + 13) % size, (i * 1299709 + 29) % size
            chunk.append(
                f'{{"question": "Question {i}: {pool[a][:70]}?", "gt_answer": "{pool[b][:150]}", '
                f'"gt_context": "{pool[c]}", "document": "doc-{i % 5000}.pdf", '
                f'"contexts": ["{pool[(a + 1) % size]}", "{pool[(b + 2) % size]}", '
                f'"{pool[(c + 3) % size]}"], "answer": "{pool[(a + b) % size][:160]}"}}\n'
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
    from dashboard.store import Store

    start = time.perf_counter()
    report = import_path(Store(db), source, dataset=DATASET, system=SYSTEM)
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "items": report.added["items"],
        "responses": report.added["responses"],
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
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "read_seconds": read_s,
        "items": len(items),
        "responses": len(responses),
    }


def child(path_name: str, source: Path, db: Path) -> None:
    """Run one path and print its measures as one JSON line."""
    result = (run_ours if path_name == "ours" else run_pandas)(source, db)
    result["peak_rss_mb"] = _peak_rss_mb()
    print(json.dumps(result), flush=True)


def settle() -> None:
    """Flush dirty pages (the generated file, the previous path's database) to disk, so that
    neither path pays for the other's writeback."""
    os.sync()


def measure(path_name: str, source: Path, workdir: Path) -> dict[str, float]:
    settle()
    db = workdir / f"{path_name}.duckdb"
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
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
        ours = measure("ours", source, workdir)
        print(f"ours:   {ours['seconds']:.1f} s, peak {ours['peak_rss_mb']:,.0f} MB", flush=True)
        base = measure("pandas", source, workdir)
        print(
            f"pandas: {base['seconds']:.1f} s (read_json {base['read_seconds']:.1f} s), "
            f"peak {base['peak_rss_mb']:,.0f} MB",
            flush=True,
        )
        ratio = base["seconds"] / ours["seconds"]
        met = ratio >= GOAL_RATIO and ours["peak_rss_mb"] < GOAL_PEAK_MB
        print(
            f"ratio:  {ratio:.1f}x (goal: >= {GOAL_RATIO:g}x, peak < {GOAL_PEAK_MB:,} MB): "
            f"{'met' if met else 'MISSED'}",
            flush=True,
        )
        if args.json:
            args.json.write_text(
                json.dumps(
                    {
                        "records": args.records,
                        "size_mb": size_mb,
                        "ours": ours,
                        "pandas": base,
                        "ratio": ratio,
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
