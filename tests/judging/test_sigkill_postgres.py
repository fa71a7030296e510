"""A `judgeboard judge` on a PostgreSQL store, killed with SIGKILL midway, resumes with the same
command: every answer is rated once, no call is paid for twice but those in flight at the kill,
and `metrics --json` is that of a run never interrupted.

Real processes throughout: the CLI (one process, and `--workers 2`), a real PostgreSQL server,
the loopback judge server. What may be made twice, precisely: a request the server had
received but not answered when the process died (it hangs, see below). Such a call was never
paid for (no completion was delivered), and the resumed run makes it once. Every completion
the server delivered before the kill is in the run's journal or the store, so the resume
never asks for it again: over both runs each prompt gets exactly one completion, and the
server's request count is the plan's plus the requests hanging at the kill.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest

from dashboard.store import Store
from dashboard.store.claims import _STORED_OK as STORED_OK
from dashboard.store.journal import read_batches
from tests.judging.conftest import KEY_ENV, SECRET_KEY, query, seed
from tests.paths import REPO_ROOT
from tests.support.judge_server import JudgeServer, ModelScript
from tests.support.postgres import PostgresServer

CONCURRENCY = 2  # per judge: the calls in flight at once, over every worker
N_ITEMS = 10  # 20 answers x 2 judges = 40 calls
LEASE_S = "4"  # a dead process's claims are free again after 4 s (10 minutes by default)


def write_panel(path: Path, server: JudgeServer, judges: tuple[str, ...]) -> Path:
    listed = "".join(f'\n[[judges]]\nname = "{n}"\nmodel = "openai/{n}"\n' for n in judges)
    path.write_text(
        f'name = "killable"\n[defaults]\napi_base = "{server.url}"\n'
        f'api_key_env = "{KEY_ENV}"\nconcurrency = {CONCURRENCY}\ntimeout_s = 30\n'
        "retry_base_s = 0.01\n" + listed,
        encoding="utf-8",
    )
    return path


def cli(url: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "dashboard.cli", "--db", url, *args]


def judge_command(url: str, panel: Path, workers: str) -> list[str]:
    return cli(
        url, "judge", "--panel", str(panel), "--rubric", "likert-rag", "--no-progress",
        "--workers", workers,
    )  # fmt: skip


ENV = {
    **os.environ,
    KEY_ENV: SECRET_KEY,
    "PYTHONPATH": str(REPO_ROOT),
    "JUDGEBOARD_CLAIM_LEASE_S": LEASE_S,
}


def recorded_calls(store: Store) -> dict[str, set[str]]:
    """The ok calls of each judge that survive the process: merged into the store, or in a
    journal of the spool (open, or closed and not yet merged). By call id, so that a file
    being merged while this reads is not counted twice."""
    found: dict[str, set[str]] = {}
    # Through psycopg: a store connection would merge the live process's closed journals.
    with psycopg.connect(store.url) as con:
        for judge, call_id in con.execute(
            "SELECT judge, call_id FROM judge_calls WHERE status = 'ok'"
        ):
            found.setdefault(judge, set()).add(call_id)
    spool = store.path.parent / (store.path.name + ".pending")
    for path in [*spool.glob("*.open"), *spool.glob("*.jsonl")]:
        try:
            batches = read_batches(path)  # a line still being written is skipped
        except FileNotFoundError:
            continue  # merged meanwhile: its rows are in the store
        for batch in batches:
            for row in batch.rows if batch.table == "judge_calls" else ():
                if row["status"] == "ok":
                    found.setdefault(row["judge"], set()).add(row["call_id"])
    return found


def settled(store: Store, server: JudgeServer, judges: tuple[str, ...]) -> bool:
    """Every judge's next requests hang (one per slot), and every completion the server
    delivered is recorded: nothing the process was paid for is still only in its memory."""
    if not all(server.stats(j).hanging == CONCURRENCY for j in judges):
        return False
    recorded = recorded_calls(store)
    return all(len(recorded.get(j, ())) == server.stats(j).completed for j in judges)


def metrics_json(url: str) -> dict[str, Any]:
    done = subprocess.run(
        cli(url, "metrics", "--json", "--rubric", "likert-rag"),
        env=ENV, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


# Three CLI runs, each spawning its workers: over pytest's 600 s on a loaded machine.
@pytest.mark.timeout(1500)
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_killed_run_on_postgresql_resumes_and_pays_for_nothing_twice(
    workers: str,
    pg_server: PostgresServer,
    pg_template: str,
    server: JudgeServer,
    tmp_path: Path,
) -> None:
    judges = (f"pgkill{workers}-a", f"pgkill{workers}-b")  # the server's counters are shared
    # The first judge answers 8 calls over 4 s or more, then hangs; the second answers 4 at
    # once, then hangs: the run's merges (every 1.5 s) store the second's calls and mark their
    # claims done before the kill, while the first's last calls are in the journal only.
    server.script(judges[0], ModelScript(latency_ms=1000, hang_from=9))
    server.script(judges[1], ModelScript(latency_ms=5, hang_from=5))
    panel = write_panel(tmp_path / "panel.toml", server, judges)
    url = pg_server.create(pg_template)
    store = Store(url, wait_s=30.0)
    data = seed(store, n_items=N_ITEMS)
    command = judge_command(url, panel, workers)

    process = subprocess.Popen(
        command, env=ENV, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        ready = server.wait_for(lambda: settled(store, server, judges), timeout_s=300)
        assert ready, (
            process.stderr.read() if process.poll() is not None else str(recorded_calls(store))
        )
    finally:
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=60)
    killed = {j: server.stats(j) for j in judges}
    assert {j: s.completed for j, s in killed.items()} == {judges[0]: 8, judges[1]: 4}
    in_flight = {j: s.hanging for j, s in killed.items()}  # received, never answered
    assert in_flight == dict.fromkeys(judges, CONCURRENCY)
    requests_before = {j: s.requests for j, s in killed.items()}
    assert requests_before == {j: killed[j].completed + in_flight[j] for j in judges}
    with psycopg.connect(url) as con:  # the dead process still holds the claims it made
        claims = con.execute("SELECT owner, done FROM call_claims WHERE owner IS NOT NULL")
        held = claims.fetchall()
    (dead,) = {owner for owner, _ in held}  # one process claimed, for its workers too
    assert sum(not done for _, done in held) >= sum(in_flight.values())
    assert sum(done for _, done in held) >= killed[judges[1]].completed  # merged, then done

    for name in judges:
        server.script(name, ModelScript(latency_ms=5))
    server.release_hangs()  # the dead process's requests end without a completion
    resumed = subprocess.run(
        command, env=ENV, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr

    planned = 2 * N_ITEMS  # answers per judge
    for name in judges:
        stats = server.stats(name)
        assert stats.completed == planned  # both runs together: each answer once
        assert max(stats.completed_prompts.values()) == 1  # no completion bought twice
        assert len(stats.completed_prompts) == planned
        # Made twice: only the requests hanging at the kill, each asked once more.
        assert stats.requests == planned + in_flight[name]
    rows = query(
        store,
        "SELECT response_id, rater, count(*) AS n, max(value) AS value FROM current_ratings "
        "GROUP BY ALL",
    )
    assert len(rows) == 2 * planned and all(r["n"] == 1 for r in rows)
    assert all(r["value"] == data.expected[r["response_id"]] for r in rows)
    ok = query(store, "SELECT count(*) AS n FROM judge_calls WHERE status = 'ok'")
    assert ok == [{"n": 2 * planned}]
    with psycopg.connect(url) as con:
        after = con.execute(f"SELECT c.owner, c.done, {STORED_OK} FROM call_claims c").fetchall()
    # Every call's claim is done, but those the dead process made and journaled and the
    # resume merged (nobody made them again, so nobody marked them): their calls are stored.
    assert len(after) == 2 * planned
    assert all(done or (owner == dead and stored) for owner, done, stored in after)
    store.close()

    # The same answers judged by a run never interrupted, on a database of its own.
    whole_url = pg_server.create(pg_template)
    whole = Store(whole_url, wait_s=30.0)
    seed(whole, n_items=N_ITEMS)
    whole.close()
    uninterrupted = subprocess.run(
        judge_command(whole_url, panel, workers),
        env=ENV, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert uninterrupted.returncode == 0, uninterrupted.stderr
    resumed_metrics = metrics_json(url)
    assert resumed_metrics["metrics"]  # something to compare
    assert resumed_metrics == metrics_json(whole_url)
