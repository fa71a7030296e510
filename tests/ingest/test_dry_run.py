"""The Data page's preview of an eval tool's file counts what the importer itself adds
(`dashboard.ingest.dry_run.import_counts`): for an Inspect log, promptfoo results and lm-eval
samples, the preview's counts equal those of the upload's real import into an empty store,
and the rows that store then holds. A file with an exact duplicate record shows why counting
the reader's records was not enough: the importer drops the duplicate, and so does the
preview."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from dashboard.ingest import uploads
from dashboard.ingest.tools import TOOLS, count_records
from dashboard.store import Store
from tests.ingest.conftest import query
from tests.ingest.inspect_logs import make_inspect_log
from tests.paths import TEST_DATA

PROMPTFOO = TEST_DATA / "promptfoo" / "results.json"
LM_EVAL = next((TEST_DATA / "lm_eval" / "EleutherAI__pythia-160m").glob("samples_gsm8k_*.jsonl"))
HELD = """SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM responses),
    (SELECT count(*) FROM ratings)"""


def _preview_then_import(store: Store, name: str, data: bytes) -> tuple[tuple[int, ...], ...]:
    """The preview's counts, the real import's (records, added items, responses, ratings),
    and what the store holds after it."""
    staged = uploads.stage_upload(name, io.BytesIO(data))
    try:
        counts = uploads.preview(staged).counts
        assert counts is not None
        result = uploads.import_staged(
            store, staged, dataset="tool", system="EleutherAI/pythia-160m"
        )
    finally:
        uploads.discard(staged)
    report = result.report
    added = report.added
    imported = (
        sum(f.records for f in report.files),
        added["items"],
        added["responses"],
        added["ratings"],
    )
    previewed = (counts.records, counts.items, counts.responses, counts.ratings)
    return previewed, imported, (imported[0], *query(store, HELD)[0])


@pytest.mark.parametrize("tool", ["inspect", "promptfoo", "lm_eval"])
def test_the_preview_counts_what_the_import_adds(store: Store, tmp_path: Path, tool: str) -> None:
    path = {
        "inspect": lambda: make_inspect_log(tmp_path / "logs"),
        "promptfoo": lambda: PROMPTFOO,
        "lm_eval": lambda: LM_EVAL,
    }[tool]()
    previewed, imported, held = _preview_then_import(store, path.name, path.read_bytes())
    assert previewed == imported == held
    assert previewed[1] > 0 and previewed[3] > 0


def test_a_duplicate_record_is_counted_as_the_importer_drops_it(store: Store) -> None:
    lines = LM_EVAL.read_text(encoding="utf-8").splitlines()
    data = "\n".join([*lines, lines[-1]]).encode()
    previewed, imported, held = _preview_then_import(store, LM_EVAL.name, data)
    assert previewed == imported == held
    # gsm8k: 3 documents x 2 filters, one exact_match each; the 7th line repeats the 6th.
    assert previewed == (7, 3, 6, 6)
    # What the reader's records alone would have said: the repeated rating counted twice.
    duplicated = Path(uploads.stage_upload(LM_EVAL.name, io.BytesIO(data)).path)
    try:
        by_reader = count_records(TOOLS["lm_eval"].records(duplicated))
    finally:
        uploads.discard(uploads.StagedUpload(duplicated))
    assert (by_reader.records, by_reader.ratings) == (7, 7)
