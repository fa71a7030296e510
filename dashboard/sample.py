"""The bundled sample: loaded into an empty database so the dashboard has something to show.

`data/sample/manifest.toml` lists the files (path, dataset, format, optional system). They are
imported in one transaction, so a sample is either all there or not there at all.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path

import dashboard
from dashboard.ingest import ImportRequest, import_requests
from dashboard.store import Store

DATA_DIR = Path(dashboard.__file__).resolve().parents[1] / "data"
SAMPLE_DIR = DATA_DIR / "sample"
MANIFEST = SAMPLE_DIR / "manifest.toml"


def sample_requests(manifest: Path = MANIFEST) -> list[ImportRequest]:
    """The manifest's files as import requests."""
    with open(manifest, "rb") as handle:
        entries = tomllib.load(handle).get("file", [])
    return [ImportRequest(manifest.parent / entry["path"], dataset=entry.get("dataset"),
                          system=entry.get("system"), fmt=entry.get("format"))
            for entry in entries]


def ensure_sample(store: Store, *, manifest: Path = MANIFEST) -> Iterator[str]:
    """Import the sample when the database has no dataset; yield what happens, line by line.

    Yields nothing when datasets already exist. Raises IngestError if a sample file is bad.
    """
    if store.list_datasets():
        return
    requests = sample_requests(manifest)
    yield f"loading the bundled sample ({len(requests)} files) into {store.path}"
    report = import_requests(store, requests)
    for f in report.files:
        added = ", ".join(f"{n} {table}" for table, n in f.added.items() if n) or "nothing"
        yield f"  {Path(f.file).relative_to(manifest.parent)} -> {', '.join(f.datasets)}: {added}"
    yield f"sample loaded: datasets {', '.join(report.datasets)}"

