"""The CLI and the dashboard on one database file at the same time.

`judgeboard import` runs in a subprocess on a file big enough to hold the database for a few
seconds, while threads of this process do what dashboard sessions do: add ratings (which go to
the spool while the file is held) and read. Nothing may crash, every rating must arrive, and the
import must be complete.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from bench.bench_import import generate_rag_jsonl
from dashboard.ingest import import_path
from dashboard.store import Store
from dashboard.types import Rating
from tests.paths import REPO_ROOT

BIG_RECORDS = 200_000  # about 340 MB of JSONL: a few seconds of import on this machine
WRITERS = 3
WRITES_AFTER_IMPORT = 5
ENTRY = "import sys; from dashboard.cli import main; sys.exit(main())"
T0 = datetime(2024, 1, 1)


def _wait_until_importing(process: subprocess.Popen[str]) -> Callable[[], str]:
    """Block until the CLI reports it is reading (it then holds the database); keep draining
    its stderr afterwards so that it never blocks on a full pipe."""
    assert process.stderr is not None
    seen = ""
    while "reading big.jsonl" not in seen:
        char = process.stderr.read(1)
        if not char:
            raise AssertionError(f"the import ended before it read: {seen}")
        seen += char
    rest: list[str] = []
    drain = threading.Thread(target=lambda: rest.append(process.stderr.read()), daemon=True)
    drain.start()
    return lambda: (drain.join(), seen + "".join(rest))[1]


def test_cli_import_and_dashboard_threads_share_the_file(tmp_path: Path) -> None:
    db = tmp_path / "shared.duckdb"
    store = Store(db, wait_s=600)  # reads wait for as long as the import holds the file
    seed = tmp_path / "seed.jsonl"
    seed.write_text("".join(f'{{"question": "q{i}", "answer": "a{i}"}}\n' for i in range(20)))
    import_path(store, seed, dataset="seed", system="s")
    with store.connection() as con:
        response_ids = [r[0] for r in con.execute("SELECT response_id FROM responses").fetchall()]
    big = generate_rag_jsonl(tmp_path / "big.jsonl", BIG_RECORDS)

    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            ENTRY,
            "--db",
            str(db),
            "--wait",
            "600",
            "import",
            str(big),
            "--dataset",
            "big",
            "--system",
            "s",
            "--no-score",
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stderr = _wait_until_importing(process)

    written: list[str] = []
    spooled: list[Path] = []
    reads: list[int] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def writer(k: int) -> None:
        after = 0
        i = 0
        while after < WRITES_AFTER_IMPORT:
            if process.poll() is not None:
                after += 1
            rating = Rating(
                f"t{k}-{i}",
                response_ids[(k + i) % len(response_ids)],
                "human",
                f"rater-{k}",
                "likert",
                "1",
                float(1 + i % 5),
                1,
                5,
                created_utc=T0 + timedelta(seconds=i),
            )
            result = store.add_ratings([rating], wait_s=0.2)
            with lock:
                written.append(rating.rating_id)
                if result.pending is not None:
                    spooled.append(result.pending)
            i += 1
            threading.Event().wait(0.05)  # pacing, as a person clicking; not a timing check

    def reader() -> None:
        while process.poll() is None:
            datasets = store.list_datasets()
            with lock:
                reads.append(len(datasets))
        reads.append(len(store.list_datasets()))

    def guarded(target: Callable[..., None], *args: int) -> Callable[[], None]:
        def run() -> None:
            try:
                target(*args)
            except BaseException as error:  # noqa: BLE001 (reported below, with the others)
                errors.append(error)

        return run

    threads = [threading.Thread(target=guarded(writer, k)) for k in range(WRITERS)]
    threads.append(threading.Thread(target=guarded(reader)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out, _ = process.communicate()
    messages = stderr()

    assert errors == []
    assert process.returncode == 0, messages
    assert f"{BIG_RECORDS:,} records as rag into big" in out
    assert spooled, "no write found the file held: the import was too short to test anything"
    store.apply_pending()
    with store.connection() as con:
        stored = [r[0] for r in con.execute("SELECT rating_id FROM ratings").fetchall()]
        big_items = con.execute("SELECT count(*) FROM items WHERE dataset = 'big'").fetchone()[0]
        big_responses = con.execute(
            "SELECT count(*) FROM responses WHERE dataset = 'big'"
        ).fetchone()[0]
    assert sorted(stored) == sorted(written)  # every rating once: none lost, none doubled
    assert (big_items, big_responses) == (BIG_RECORDS, BIG_RECORDS)
    assert not store.spool.ready_files()
    assert reads and reads[-1] == 2
