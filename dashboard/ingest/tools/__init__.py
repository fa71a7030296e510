"""Readers for the files of eval tools, each turned into records of the `ratings` format that
the importer reads from a temporary copy: Inspect AI logs, promptfoo results and
lm-evaluation-harness samples. `tool_for(path)` says which tool wrote a file, from its name
and its first bytes, before any reader parses it; the CLI's import and the Data page's upload
both ask it."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dashboard.ingest.tools import inspect_log, lm_eval, promptfoo


@dataclass(frozen=True)
class Tool:
    """An eval tool whose files are imported as it wrote them."""

    title: str
    detects: Callable[[Path], bool]
    records: Callable[[Path], list[dict[str, Any]]]


TOOLS: dict[str, Tool] = {
    "promptfoo": Tool(
        "a promptfoo results file", promptfoo.is_promptfoo_results, promptfoo.promptfoo_records
    ),
    "lm_eval": Tool(
        "an lm-evaluation-harness samples file", lm_eval.is_lm_eval_samples, lm_eval.lm_eval_records
    ),
    "inspect": Tool("an Inspect log", inspect_log.is_inspect_log, inspect_log.inspect_records),
}


@dataclass(frozen=True)
class RecordCounts:
    """What a tool's records hold, counted as the importer keys them: items by dataset and id
    (else question), responses by their id (else item, system and answer), ratings by value."""

    records: int
    items: int
    responses: int
    ratings: int


def count_records(records: list[dict[str, Any]]) -> RecordCounts:
    items, responses = set(), set()
    for record in records:
        item = (record.get("dataset"), record.get("id") or record.get("question"))
        items.add(item)
        responses.add(
            record.get("response_id") or (item, record.get("system"), record.get("answer"))
        )
    ratings = sum(1 for record in records if "value" in record)
    return RecordCounts(len(records), len(items), len(responses), ratings)


def tool_for(path: Path) -> Tool | None:
    """The tool that wrote the file, or None for any other file."""
    return next((tool for tool in TOOLS.values() if tool.detects(path)), None)


def records_copy(tool: Tool, path: Path, folder: Path) -> Path:
    """The file's records written as JSONL in `folder`, for the importer to read."""
    copy = folder / f"{path.name}.ratings.jsonl"
    with open(copy, "w", encoding="utf-8") as out:
        for record in tool.records(path):
            out.write(json.dumps(record) + "\n")
    return copy
