"""The bundled sample, the shared fixtures built on it, and progress reporting."""

from __future__ import annotations

import threading
from pathlib import Path

from dashboard.ingest import import_path
from dashboard.ingest.sample import BASELINE_RUNS, ensure_sample, sample_requests
from dashboard.settings import sample_manifest
from dashboard.store import Store
from tests.ingest.conftest import Writer, query, snapshot


def test_sample_store_holds_every_manifest_dataset(sample_store: Store) -> None:
    datasets = {d.name for d in sample_store.list_datasets()}
    assert datasets == {r.dataset for r in sample_requests()}
    # Labels in the ratings file land on responses the answer files created.
    assert query(
        sample_store, "SELECT count(*) FROM ratings r ANTI JOIN responses s USING (response_id)"
    ) == [(0,)]


def test_ensure_sample_is_a_no_op_when_datasets_exist(sample_store: Store) -> None:
    before = snapshot(sample_store)
    assert list(ensure_sample(sample_store)) == []
    assert snapshot(sample_store) == before


def test_ensure_sample_loads_an_empty_store_and_says_so(store: Store) -> None:
    lines = list(ensure_sample(store))
    assert lines[0].startswith("loading the bundled sample")
    loaded = len(sample_requests()) + 1
    assert lines[loaded].startswith("sample loaded: datasets ")
    # every answer scored against its references: 3 systems x (40 + 12 + 12 + 6) items
    assert lines[loaded + 1] == "  scored 210 answers against their references"
    # then one line per run of the offline baseline judge, each of which made calls
    judged = lines[loaded + 2 :]
    assert len(judged) == len(BASELINE_RUNS)
    assert all(
        line.startswith("  baseline judge on ") and not line.endswith(" 0 calls") for line in judged
    )
    assert sample_manifest().is_file()


def test_sample_store_copies_are_independent(
    sample_store: Store, sample_db_path: Path, write: Writer
) -> None:
    rows = [{"question": "extra", "answer": "a"}]
    import_path(sample_store, write("extra.jsonl", rows), dataset="extra", system="s")
    pristine = Store(sample_db_path)
    assert "extra" not in {d.name for d in pristine.list_datasets()}


def test_progress_is_reported_on_the_callers_thread(store: Store, write: Writer) -> None:
    calls: list[tuple[str, float | None, str]] = []
    rows = [{"question": f"q{i}", "answer": "a" * 200} for i in range(20_000)]
    path = write("many.jsonl", rows)
    import_path(
        store,
        path,
        system="s",
        on_progress=lambda stage, f: calls.append((stage, f, threading.current_thread().name)),
    )
    stages = [c[0] for c in calls]
    assert stages[0] == "reading many.jsonl" and stages[-1] == "done"
    # The import commits, then scores what it added against the references, then is done.
    committed = stages.index("committing")
    assert set(stages[committed + 1 : -1]) == {"scoring answers against references"}
    assert all(f is None or 0.0 <= f <= 1.0 for _, f, _ in calls)
    assert {c[2] for c in calls} == {threading.current_thread().name}
