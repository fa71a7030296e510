"""What importing an eval tool's file would add, counted by the importer itself: the file is
imported into a store of its own in a temporary folder, which is then removed. The Data page's
preview shows these counts, so that they are the import's by construction and cannot drift
from what `judgeboard import` (and the page's Import button) then adds."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from dashboard.ingest.detect import is_generic
from dashboard.ingest.runner import import_path
from dashboard.ingest.tools import TOOLS, RecordCounts, tool_for
from dashboard.store import Store

# The dataset a file whose name says nothing of its data goes into (the page asks for one;
# the counts do not depend on its name), and the model folder lm-eval samples stand in.
DRY_DATASET = "dry-run"
DRY_MODEL = "dry-run-model"


def _placed(path: Path, folder: Path) -> Path:
    """The file linked (else copied) into `folder`, in a model folder for lm-eval samples
    (which take their model from it, and an upload has none)."""
    inside = folder / DRY_MODEL if tool_for(path) is TOOLS["lm_eval"] else folder / "file"
    inside.mkdir()
    placed = inside / path.name
    try:
        os.link(path, placed)
    except OSError:
        shutil.copyfile(path, placed)
    return placed


def import_counts(path: Path) -> RecordCounts:
    """The records the importer reads from the file and the items, responses and ratings it
    adds to an empty store. IngestError (naming the file as the importer does) when the
    importer refuses the file; nothing outside the temporary folder is written."""
    folder = Path(tempfile.mkdtemp(prefix="judgeboard-dry-run-"))
    try:
        placed = _placed(path, folder)
        store = Store(folder / "dry-run.duckdb")
        try:
            report = import_path(store, placed, dataset=DRY_DATASET if is_generic(path) else None)
        finally:
            store.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    added = report.added
    records = sum(f.records for f in report.files)
    return RecordCounts(records, added["items"], added["responses"], added["ratings"])
