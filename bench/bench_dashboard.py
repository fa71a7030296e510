"""Benchmark: every dashboard page's script run on 1,000,000 responses and 4,000,000 ratings.

    python -m bench.bench_dashboard                 # build the database, then time the pages
    python -m bench.bench_dashboard --db PATH --reuse   # time again on a database built before
    python -m bench.bench_dashboard --db postgresql://USER@HOST:PORT/DB --reuse
        # the same pages on a PostgreSQL store (filled with `judgeboard copy PATH URL`)

Steps, each in its own process so that its peak memory (ru_maxrss) is its own:
1. build: `bench/dashboard_fixture.py` writes the rows with SQL (a fixture generator), then
   `reference.refresh_auto_scores` scores every response once (EM/F1 many at a time, MCQA
   and the hallucination verdict in Python), as an import would; both are timed apart;
2. one process per page: AppTest runs the page (`dashboard/app.py` routed to it, the sidebar
   at "All datasets") - cold (the first run after the process starts: imports and empty
   caches), cache-cold (`st.cache_data` cleared, as after a write: modules loaded), and warm
   (the median of three more runs);
3. writes: with the Overview and Calibration open and warm, `Store.add_ratings` of a human
   override of a judge rating (as Annotate writes it), then the next run of each page, which
   recomputes (the cache key is the database's row counts). Repeated `--writes` times.
Goals: every page under 2 s, a write under 200 ms, peak memory under 3 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
PAGES = ("overview", "failures", "annotate", "pairwise", "calibration", "run_judges", "data")
GOAL_PAGE_S, GOAL_WRITE_MS, GOAL_RSS_MB = 2.0, 200.0, 3072.0


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def _timed(work: Any) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def _is_url(db: str) -> bool:
    from dashboard.settings import is_server_url

    return is_server_url(db)


def child_build(db: str, n_items: int) -> dict[str, Any]:
    from bench.dashboard_fixture import build
    from dashboard.metrics import reference
    from dashboard.store import Store

    store = Store(db, wait_s=60)
    steps = build(store, n_items=n_items, log=lambda line: print(line, file=sys.stderr))
    scored = {}
    steps["auto scores"] = _timed(lambda: scored.update(n=reference.refresh_auto_scores(store)))
    with store.connection() as con:
        counts = dict(
            con.execute("""
            SELECT 'responses', count(*) FROM responses UNION ALL
            SELECT 'judge ratings', count(*) FROM ratings WHERE rater_kind = 'llm' UNION ALL
            SELECT 'human ratings', count(*) FROM ratings WHERE rater_kind = 'human' UNION ALL
            SELECT 'items', count(*) FROM items UNION ALL
            SELECT 'preferences', count(*) FROM preferences""").fetchall()
        )
    return {
        "steps_s": steps,
        "scored": scored["n"],
        "counts": counts,
        "rss_mb": _rss_mb(),
        "file_mb": 0.0 if _is_url(db) else Path(db).stat().st_size / 2**20,
    }


def _app(page: str) -> Any:
    from streamlit.testing.v1 import AppTest

    from dashboard.settings import app_script, pages_dir

    app = AppTest.from_file(str(app_script()), default_timeout=900)
    app.switch_page((pages_dir() / f"{page}.py").relative_to(app_script().parent).as_posix())
    return app


def _run(app: Any) -> float:
    seconds = _timed(app.run)
    if app.exception:
        raise RuntimeError(f"the page raised: {app.exception[0].message}")
    return seconds


def clear_caches() -> None:
    """Every read cold again: Streamlit's data cache and the results a large database's
    pages keep to show while it changes (`dashboard.ui.earlier`)."""
    import streamlit as st

    from dashboard.ui import earlier

    st.cache_data.clear()
    earlier.forget()


def figures_age(app: Any, ended: float) -> float | None:
    """How old the oldest figures on the page were (seconds), when it said some were of a
    moment ago; None when all were of the database as it was."""
    for caption in app.caption:
        found = re.search(r"Some figures are as of (\d\d):(\d\d):(\d\d)", caption.value)
        if found:
            h, m, s = map(int, found.groups())
            now = time.localtime(ended)
            shown = time.mktime((*now[:3], h, m, s, 0, 0, -1))
            return max(0.0, ended - shown)
    return None


def child_page(page: str, quick: bool = False) -> dict[str, Any]:
    app = _app(page)
    cold = _run(app)
    if not quick:
        clear_caches()
    cache_cold = None if quick else _run(app)
    warm = statistics.median(_run(app) for _ in range(3))
    return {
        "page": page,
        "cold_s": cold,
        "cache_cold_s": cache_cold,
        "warm_s": warm,
        "rss_mb": _rss_mb(),
    }


def _override_targets(db: str, n: int) -> list[tuple[str, str]]:
    """(judge j1's rating id, its response) on responses no person has rated yet."""
    from dashboard.store import Store

    with Store(db).connection() as con:  # a fixture lookup, like the build
        return con.execute(
            """
            SELECT g.rating_id, g.response_id FROM current_ratings g
            WHERE g.rater = 'j1' AND g.value IS NOT NULL AND g.response_id IN (
                SELECT response_id FROM responses WHERE dataset = 'bench-rag'
                ORDER BY response_id DESC LIMIT 1000)
              AND NOT EXISTS (SELECT 1 FROM ratings h WHERE h.response_id = g.response_id
                              AND h.rater_kind = 'human')
            ORDER BY g.rating_id LIMIT ?""",
            [n],
        ).fetchall()


def child_writes(db: str, n: int) -> dict[str, Any]:
    from dashboard.ids import new_id
    from dashboard.store import Store
    from dashboard.types import Rating

    apps = {page: _app(page) for page in ("overview", "calibration")}
    for app in apps.values():
        _run(app)
    store = Store(db, wait_s=10)
    writes_ms, refresh = [], {page: [] for page in apps}
    for rating_id, response_id in _override_targets(db, n):
        override = Rating(
            new_id(),
            response_id,
            "human",
            "bench-annotator",
            "likert-rag",
            "1",
            1.0,
            1.0,
            5.0,
            comment="the judge missed it",
            overrides=rating_id,
        )
        writes_ms.append(1000 * _timed(lambda o=override: store.add_ratings([o])))
        for page, app in apps.items():
            refresh[page].append(_run(app))
    return {"write_ms": writes_ms, "refresh_s": refresh, "rss_mb": _rss_mb()}


def _child(args: list[str]) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "bench.bench_dashboard", *args],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _report(
    build: dict[str, Any] | None, pages: list[dict[str, Any]], writes: dict[str, Any]
) -> list[str]:
    lines = []
    if build:
        lines.append(
            "build: "
            + ", ".join(f"{k} {v:.1f} s" for k, v in build["steps_s"].items())
            + f"; {build['scored']:,} responses auto-scored; file "
            f"{build['file_mb']:,.0f} MB; peak RSS {build['rss_mb']:,.0f} MB"
        )
        lines.append("rows: " + ", ".join(f"{k} {v:,}" for k, v in build["counts"].items()))
    lines.append(f"{'page':<12} {'cold':>8} {'cache-cold':>11} {'warm':>8} {'peak RSS':>10}")
    for p in pages:
        cache_cold = "-" if p["cache_cold_s"] is None else f"{p['cache_cold_s']:.2f}s"
        lines.append(
            f"{p['page']:<12} {p['cold_s']:>7.2f}s {cache_cold:>11} "
            f"{p['warm_s']:>7.3f}s {p['rss_mb']:>8,.0f}MB"
        )
    w = writes["write_ms"] or [float("nan")]
    lines.append(
        f"override write: median {statistics.median(w):.0f} ms, max {max(w):.0f} ms "
        f"({len(writes['write_ms'])} writes)"
    )
    for page, runs in writes["refresh_s"].items():
        if runs:
            lines.append(
                f"{page} after the write: median {statistics.median(runs):.2f} s, "
                f"max {max(runs):.2f} s"
            )
    worst_page = max((max(p["cold_s"], p["cache_cold_s"] or 0.0) for p in pages), default=0.0)
    worst_rss = max([p["rss_mb"] for p in pages] + [writes["rss_mb"]])
    lines.append(
        f"goals: slowest page {worst_page:.2f} s (< {GOAL_PAGE_S} s), slowest write "
        f"{max(w):.0f} ms (< {GOAL_WRITE_MS:.0f} ms), peak RSS of the dashboard "
        f"{worst_rss:,.0f} MB (< {GOAL_RSS_MB:,.0f} MB)"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--db", help="database file or postgresql:// URL (default: a temporary file)"
    )
    parser.add_argument("--reuse", action="store_true", help="time an existing --db")
    parser.add_argument("--items", type=int, default=250_000, help="items (x4 responses)")
    parser.add_argument("--writes", type=int, default=5)
    parser.add_argument("--pages", nargs="*", default=list(PAGES), choices=PAGES)
    parser.add_argument(
        "--quick", action="store_true", help="time each page cold and warm only (no cache-cold)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, rest = args.child[0], args.child[1:]
        os.environ["JUDGEBOARD_DB"] = str(args.db)
        result = (
            child_build(args.db, int(rest[0]))
            if kind == "build"
            else child_writes(args.db, int(rest[0]))
            if kind == "writes"
            else child_page(rest[0], quick=rest[1:] == ["quick"])
        )
        print(json.dumps(result))
        return 0
    folder = None if args.db else tempfile.TemporaryDirectory(prefix="judgeboard-bench-")
    db = args.db or str(Path(folder.name) / "bench.duckdb")
    build = None
    if not args.reuse:
        if _is_url(db):
            parser.error("a PostgreSQL store is filled with `judgeboard copy FILE URL`: --reuse")
        if Path(db).exists():
            parser.error(f"{db} exists; pass --reuse to time it, or remove it")
        print(f"building {db} ...", file=sys.stderr)
        build = _child(["--db", str(db), "--child", "build", str(args.items)])
    pages = []
    for page in args.pages:
        print(f"timing {page} ...", file=sys.stderr)
        quick = ["quick"] if args.quick else []
        pages.append(_child(["--db", str(db), "--child", "page", page, *quick]))
    writes = (
        _child(["--db", str(db), "--child", "writes", str(args.writes)])
        if args.writes
        else {"write_ms": [], "refresh_s": {}, "rss_mb": 0.0}
    )
    for line in _report(build, pages, writes):
        print(line)
    if args.json:
        args.json.write_text(
            json.dumps({"build": build, "pages": pages, "writes": writes}, indent=1)
        )
    if folder:
        folder.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
