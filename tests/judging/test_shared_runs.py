"""Several `judgeboard judge` processes share one run on a PostgreSQL store (real processes,
a real PostgreSQL server, the loopback judge server): no call is made twice, the ratings are
those of a one-process run, and a process killed mid-run leaves its claims to another once
their lease runs out."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import psycopg

from dashboard.judging import BackgroundLoop, load_panel, load_rubric, plan_run, run_plan
from dashboard.store import Store
from tests.judging.conftest import KEY_ENV, SECRET_KEY, query, seed
from tests.paths import REPO_ROOT
from tests.support.judge_server import JudgeServer, ModelScript


def write_panel(path: Path, server: JudgeServer, judges: tuple[str, ...]) -> Path:
    listed = "".join(f'\n[[judges]]\nname = "{n}"\nmodel = "openai/{n}"\n' for n in judges)
    path.write_text(
        f'name = "shared"\n[defaults]\napi_base = "{server.url}"\n'
        f'api_key_env = "{KEY_ENV}"\nconcurrency = 2\ntimeout_s = 30\nretry_base_s = 0.01\n'
        + listed,
        encoding="utf-8",
    )
    return path


def judge_command(url: str, panel: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "dashboard.cli",
        "--db",
        url,
        "judge",
        "--panel",
        str(panel),
        "--rubric",
        "likert-rag",
        "--no-progress",
        *extra,
    ]


def environment(**extra: str) -> dict[str, str]:
    return {**os.environ, KEY_ENV: SECRET_KEY, "PYTHONPATH": str(REPO_ROOT), **extra}


def ratings(store: Store) -> dict[tuple[str, str], float]:
    rows = query(store, "SELECT response_id, rater, value FROM current_ratings")
    return {(r["response_id"], r["rater"]): r["value"] for r in rows}


def completions(server: JudgeServer, judges: tuple[str, ...]) -> dict[str, Counter[str]]:
    return {j: server.stats(j).completed_prompts for j in judges}


def test_three_processes_share_one_run_and_make_each_call_once(
    pg_url: str, server: JudgeServer, loop: BackgroundLoop, tmp_path: Path
) -> None:
    judges = ("share-a", "share-b")
    for name in judges:
        server.script(name, ModelScript(latency_ms=80))
    panel_path = write_panel(tmp_path / "panel.toml", server, judges)
    panel, rubric = load_panel(panel_path), load_rubric("likert-rag")
    one = Store(tmp_path / "one.duckdb", wait_s=30.0)  # the same answers, judged by one process
    seed(one, n_items=20)  # 40 responses x 2 judges = 80 calls
    loop.run(run_plan(one, plan_run(one, panel, rubric)))
    before = {j: server.stats(j).requests for j in judges}
    done_before = completions(server, judges)

    store = Store(pg_url, wait_s=30.0)
    data = seed(store, n_items=20)
    assert plan_run(store, panel, rubric).calls_needed == 80
    # Two one-process runs and one over two spawned workers, started together.
    runs = [
        subprocess.Popen(
            judge_command(pg_url, panel_path, "--workers", workers),
            env=environment(),
            cwd=REPO_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for workers in ("1", "1", "2")
    ]
    for process in runs:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, out + err
    for name in judges:
        assert server.stats(name).requests - before[name] == 40  # each planned call once
        made = completions(server, (name,))[name] - done_before[name]
        assert sum(made.values()) == 40 and max(made.values()) == 1
    calls = query(
        store,
        "SELECT count(*) AS n, count(DISTINCT cache_key) AS keys, count(DISTINCT run_id) AS runs "
        "FROM judge_calls WHERE status = 'ok'",
    )
    assert calls == [{"n": 80, "keys": 80, "runs": 3}]  # every process made some of them
    assert ratings(store) == ratings(one)
    assert all(ratings(store)[(r, "share-a")] == v for r, v in data.expected.items())
    again = subprocess.run(
        judge_command(pg_url, panel_path),
        env=environment(),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert again.returncode == 0, again.stderr
    assert {j: server.stats(j).requests - before[j] for j in judges} == dict.fromkeys(judges, 40)
    store.close()


def test_the_claims_of_a_killed_process_are_made_by_another_after_their_lease(
    pg_url: str, server: JudgeServer, tmp_path: Path
) -> None:
    judges = ("lease-a", "lease-b")
    for name in judges:  # every request hangs: the first process holds its claims, and dies
        server.script(name, ModelScript(hang_from=1))
    panel_path = write_panel(tmp_path / "panel.toml", server, judges)
    store = Store(pg_url, wait_s=30.0)
    data = seed(store, n_items=10)  # 20 responses x 2 judges = 40 calls
    lease = environment(JUDGEBOARD_CLAIM_LEASE_S="4")
    first = subprocess.Popen(
        judge_command(pg_url, panel_path, "--workers", "1"),
        env=lease,
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        hanging = server.wait_for(
            lambda: all(server.stats(j).hanging == 2 for j in judges), timeout_s=120
        )
        assert hanging, first.stderr.read() if first.poll() is not None else "no request hung"
    finally:
        first.kill()
        first.communicate(timeout=60)
    with psycopg.connect(pg_url) as con:
        held = con.execute(
            "SELECT owner, count(*) FROM call_claims WHERE owner IS NOT NULL AND NOT done "
            "GROUP BY owner"
        ).fetchall()
    assert len(held) == 1 and held[0][1] == 8  # 2 judges x concurrency 2 x 2 calls a claim
    dead = held[0][0]
    for name in judges:
        server.script(name, ModelScript(latency_ms=5))
    server.release_hangs()
    done_before = completions(server, judges)

    second = subprocess.run(
        judge_command(pg_url, panel_path, "--workers", "1"),
        env=lease,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert second.returncode == 0, second.stdout + second.stderr
    for name in judges:
        made = completions(server, (name,))[name] - done_before[name]
        assert sum(made.values()) == 20 and max(made.values()) == 1
    with psycopg.connect(pg_url) as con:
        claims = con.execute("SELECT owner, done FROM call_claims").fetchall()
    assert len(claims) == 40 and all(done for _, done in claims)
    assert {owner for owner, _ in claims} == {claims[0][0]} != {dead}  # the second made all
    calls = query(store, "SELECT count(DISTINCT cache_key) AS keys FROM judge_calls")
    assert calls == [{"keys": 40}]
    assert all(ratings(store)[(r, "lease-a")] == v for r, v in data.expected.items())
    store.close()
