"""Each eval tool's file is known by its own reader and no other, and the files of the plain
formats by none (`dashboard.ingest.tools.tool_for`), so that a new reader cannot take over
another's files; and each reader is documented in docs/formats.md."""

from __future__ import annotations

import json
from pathlib import Path

from dashboard.ingest.tools import TOOLS, tool_for
from tests.ingest.conftest import rating_record, write_json, write_jsonl
from tests.paths import REPO_ROOT, TEST_DATA

MADE_BY = {
    "promptfoo": TEST_DATA / "promptfoo" / "results.json",
    "lm_eval": next((TEST_DATA / "lm_eval" / "EleutherAI__pythia-160m").glob("samples_gsm8k_*")),
}


def test_each_tools_file_is_its_own() -> None:
    for name, path in MADE_BY.items():
        assert [n for n, tool in TOOLS.items() if tool.detects(path)] == [name]


def test_plain_files_and_summaries_are_no_tools(tmp_path: Path) -> None:
    record = rating_record()
    plain = [
        write_jsonl(tmp_path / "ratings.jsonl", [record]),
        write_json(tmp_path / "ratings.json", [record]),
        write_jsonl(tmp_path / "one.json", [record]),
        # lm-eval's own summary beside its samples, and a samples name on other records.
        next((TEST_DATA / "lm_eval" / "EleutherAI__pythia-160m").glob("results_*.json")),
        write_jsonl(tmp_path / "samples_gsm8k_2026-01-01T00-00-00.000000.jsonl", [record]),
    ]
    # A summary holding results, but no promptfoo eval id.
    summary = tmp_path / "statistics.json"
    summary.write_text(json.dumps({"version": 3, "results": {"acc": 0.5}}, indent=1))
    for path in [*plain, summary]:
        assert tool_for(path) is None, path.name


def test_every_reader_is_documented() -> None:
    docs = (REPO_ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    for name in TOOLS:
        module = "inspect_log" if name == "inspect" else name
        assert f"dashboard.ingest.tools.{module}" in docs, name
