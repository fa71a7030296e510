"""lm-evaluation-harness samples (`--log_samples`: `<output>/<model>/samples_<task>_<date>.jsonl`,
one line per document and filter, as its `SampleResult` documents them) read as records of
the `ratings` format: each document an item of the task's dataset, the filtered response of
each filter a response of the model, and each per-sample metric on 0-1 (`acc`,
`exact_match`, ...) a reference score (`rater_kind` "reference": neither a judge nor a person)
by `lm-eval` on the rubric named for the metric."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from dashboard.ingest.errors import IngestError

RATER = "lm-eval"
_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")
_KEYS = (b'"doc_id"', b'"filtered_resps"')


def is_lm_eval_samples(path: Path) -> bool:
    """Whether the file is lm-eval's samples file: its name, and a first record with its keys."""
    if _NAME.match(path.name) is None:
        return False
    with open(path, "rb") as handle:
        head = handle.readline(1 << 20)
    return head.lstrip().startswith(b"{") and all(key in head for key in _KEYS)


def _samples(path: Path) -> list[dict[str, Any]]:
    samples: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as handle:
        for line, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                sample = json.loads(text)
            except ValueError as error:
                raise IngestError(
                    f"malformed JSON: {error}",
                    file=path,
                    line=line,
                    record=len(samples) + 1,
                    file_kind="jsonl",
                ) from None
            for key in ("doc_id", "doc", "arguments", "filtered_resps", "metrics"):
                if key not in sample:
                    raise IngestError(
                        "is missing, which every lm-eval sample has",
                        file=path,
                        line=line,
                        record=len(samples) + 1,
                        field=key,
                        file_kind="jsonl",
                    )
            samples.append(sample)
    if not samples:
        raise IngestError("the lm-eval samples file holds no samples", file=path)
    return samples


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def _scored(samples: list[dict[str, Any]]) -> set[str]:
    """The metrics whose every value in the file is a number on 0-1 (corpus metrics such as
    BLEU log a pair per sample, perplexities a sum: those stay in the response's metadata)."""
    names = {name for sample in samples for name in sample["metrics"]}
    return {
        name
        for name in names
        if all(
            (n := _number(s.get(name))) is not None and 0 <= n <= 1
            for s in samples
            if name in s["metrics"]
        )
    }


def _argument(sample: dict[str, Any], index: int, arg: str) -> Any:
    return (sample["arguments"].get(f"gen_args_{index}") or {}).get(arg)


def _answer(sample: dict[str, Any]) -> str:
    """The response: a generation's filtered text; for log-likelihood requests (a choice
    each), the continuation of the most likely one."""
    filtered = sample["filtered_resps"]
    if filtered and all(isinstance(f, list) and f for f in filtered):
        best = max(range(len(filtered)), key=lambda i: float(filtered[i][0]))
        return str(_argument(sample, best, "arg_1")).strip()
    first = filtered[0] if filtered else ""
    return first if isinstance(first, str) else json.dumps(first)


def _references(sample: dict[str, Any]) -> list[str]:
    """The target; for a choice task whose target is the index of a choice, its text."""
    target = str(sample.get("target", ""))
    filtered = sample["filtered_resps"]
    choice = isinstance(filtered[0], list) if filtered else False
    if choice and target.isdigit() and int(target) < len(filtered):
        return [str(_argument(sample, int(target), "arg_1")).strip()]
    return [target]


def lm_eval_records(path: Path) -> list[dict[str, Any]]:
    """The file's samples as `ratings` records; IngestError naming the file, line and field."""
    found = _NAME.match(path.name)
    task = found["task"] if found else path.stem
    model = path.parent.name  # lm-eval writes into <output_path>/<model name, sanitized>
    samples = _samples(path)
    scored = _scored(samples)
    several = len({s.get("filter") for s in samples}) > 1
    records: list[dict[str, Any]] = []
    for sample in samples:
        name = str(sample.get("filter", "none"))
        metrics = {m: sample.get(m) for m in sample["metrics"]}
        base = {
            "dataset": task,
            "question": str(_argument(sample, 0, "arg_0") or ""),
            "reference_answers": _references(sample),
            "item_metadata": {
                "lm_eval_doc_id": sample["doc_id"],
                "lm_eval_doc": sample["doc"],
                "lm_eval_doc_hash": sample.get("doc_hash"),
            },
            "system": f"{model} [{name}]" if several else model,
            "answer": _answer(sample),
            "response_metadata": {"lm_eval_filter": name, "lm_eval_metrics": metrics},
        }
        rated = [m for m in sample["metrics"] if m in scored]
        if not rated:  # a response no metric of 0-1 scores: kept with its metrics
            records.append(base)
        for metric in rated:
            records.append(
                base
                | {
                    "rater_kind": "reference",
                    "rater": RATER,
                    "rubric": metric,
                    "value": _number(sample[metric]),
                    "scale_low": 0.0,
                    "scale_high": 1.0,
                }
            )
    return records
