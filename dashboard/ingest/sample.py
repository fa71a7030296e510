"""The bundled sample: loaded into an empty database so the dashboard has something to show.

`data/sample/manifest.toml` lists the files (path, dataset, format, optional system). They are
imported in one transaction, so a sample is either all there or not there at all. Then the
offline baseline judge (a heuristic, see `data/panels/offline.toml`) rates them through the
same LiteLLM runner as any real judge, so a first start opens on a rated dashboard.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path

from dashboard.ingest import ImportRequest, import_requests
from dashboard.settings import sample_manifest
from dashboard.store import Store

# What the baseline judge rates in the sample: (dataset, rubric, pairwise systems or None).
BASELINE_RUNS: tuple[tuple[str, str, tuple[str, str] | None], ...] = (
    ("eo-rag", "likert-rag", None),
    ("eo-conversational", "likert-rag", None),
    ("eo-rag", "pairwise", ("eo-rag-large", "eo-rag-small")),
    ("eo-rag", "pairwise", ("eo-rag-large", "keyword-baseline")),
    ("eo-rag", "pairwise", ("eo-rag-small", "keyword-baseline")),
)
BASELINE_PANEL = "offline"


def sample_requests(manifest: Path | None = None) -> list[ImportRequest]:
    """The manifest's files (the bundled sample's by default) as import requests."""
    manifest = manifest or sample_manifest()
    with open(manifest, "rb") as handle:
        entries = tomllib.load(handle).get("file", [])
    return [
        ImportRequest(
            manifest.parent / entry["path"],
            dataset=entry.get("dataset"),
            system=entry.get("system"),
            fmt=entry.get("format"),
        )
        for entry in entries
    ]


def ensure_sample(store: Store, *, manifest: Path | None = None) -> Iterator[str]:
    """Import the sample (the bundled one by default) when the database has no dataset; yield
    what happens, line by line.

    Yields nothing when datasets already exist. Raises IngestError if a sample file is bad.
    """
    if store.list_datasets():
        return
    manifest = manifest or sample_manifest()
    requests = sample_requests(manifest)
    yield f"loading the bundled sample ({len(requests)} files) into {store.location}"
    report = import_requests(store, requests)
    for f in report.files:
        added = ", ".join(f"{n} {table}" for table, n in f.added.items() if n) or "nothing"
        yield f"  {Path(f.file).relative_to(manifest.parent)} -> {', '.join(f.datasets)}: {added}"
    yield f"sample loaded: datasets {', '.join(report.datasets)}"
    yield f"  scored {report.scored} answers against their references"
    yield from rate_sample(store)


def rate_sample(store: Store) -> Iterator[str]:
    """Rate the sample with the offline baseline judge; yield one line per run."""
    from dashboard.judging import run_judges  # imports LiteLLM: only when judging

    for dataset, rubric, pair in BASELINE_RUNS:
        summary = run_judges(store, BASELINE_PANEL, rubric, dataset=dataset, pairwise=pair)
        what = f"{pair[0]} vs {pair[1]}" if pair else rubric
        made = sum(j.calls_made for j in summary.judges)
        yield f"  baseline judge on {dataset} ({what}): {made} calls"
