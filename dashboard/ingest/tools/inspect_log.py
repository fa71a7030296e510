"""An Inspect AI log (`.eval` or `.json`), read with Inspect's own reader, as records of the
`ratings` format: each sample an item, each epoch's output a response of the model (its id
keeps epochs apart), each score a judge's rating on 0-1 (C=1, P=0.5, I=0, as Inspect's
`value_to_float`)."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from dashboard.ids import content_id
from dashboard.ingest.errors import IngestError


def is_inspect_log(path: Path) -> bool:
    """Whether the file is an Inspect AI log: a `.eval` file, or a `.json` one whose object
    begins as Inspect writes it (`"version"`, `"status"`, `"eval"`)."""
    suffix = path.suffix.lower()
    if suffix == ".eval":
        return True
    if suffix != ".json":
        return False
    with open(path, "rb") as handle:
        head = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"{") and all(
        key in head for key in (b'"version"', b'"status"', b'"eval"')
    )


def read_log(path: Path) -> Any:
    """The log as Inspect's reader gives it (`EvalLog`); IngestError naming the file when
    Inspect is not installed or cannot read it."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise IngestError(
            "an Inspect log needs Inspect's reader: pip install 'judgeboard[inspect]'", file=path
        ) from None
    try:
        return read_eval_log(str(path))
    except (ValueError, OSError, KeyError, zipfile.BadZipFile) as error:  # pydantic's too
        raise IngestError(
            f"not a readable Inspect log ({type(error).__name__})", file=path
        ) from None


def inspect_records(path: Path) -> list[dict[str, Any]]:
    """The log's samples as `ratings` records; IngestError naming the file, sample and field."""
    log = read_log(path)
    from inspect_ai.scorer import value_to_float

    if not log.samples:
        raise IngestError("the Inspect log holds no samples", file=path)
    to_float = value_to_float()
    records: list[dict[str, Any]] = []
    for index, sample in enumerate(log.samples, start=1):
        target = sample.target
        question = sample.input if isinstance(sample.input, str) else sample.input[-1].text
        response_id = content_id(log.eval.eval_id, str(sample.id), str(sample.epoch))
        base = {
            "question": question,
            "reference_answers": list(target) if isinstance(target, list) else [target],
            "id": str(sample.id),
            "system": log.eval.model,
            "answer": sample.output.completion,
            "response_id": response_id,
            "response_metadata": {"inspect_epoch": sample.epoch, "inspect_uuid": sample.uuid},
        }
        for name, score in (sample.scores or {}).items():
            if isinstance(score.value, dict | list):
                raise IngestError(
                    "a score holding several values is not read yet",
                    file=path,
                    record=index,
                    field=f"scores.{name}",
                )
            records.append(
                base
                | {
                    "rater_kind": "llm",
                    "rater": name,
                    "rubric": name,
                    "value": to_float(score.value),
                    "scale_low": 0.0,
                    "scale_high": 1.0,
                    "explanation": score.explanation,
                }
            )
    return records
