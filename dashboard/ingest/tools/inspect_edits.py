"""People's labels written back into an Inspect log as score edits (Inspect's own edit
history: the earlier value stays in `Score.history`, the edit carries author and reason)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class InspectLabel:
    """A person's label of one sample's epoch on one score, on 0-1."""

    sample_id: str | int
    epoch: int
    score_name: str
    value: float
    author: str
    reason: str | None = None


def write_labels(log_path: Path, labels: Sequence[InspectLabel]) -> int:
    """Apply each label as a score edit and rewrite the log whole (metrics recomputed);
    the count."""
    from inspect_ai.log import ProvenanceData, edit_score, read_eval_log, write_eval_log
    from inspect_ai.scorer import ScoreEdit

    log = read_eval_log(str(log_path))
    for label in labels:
        edit = ScoreEdit(
            value=label.value,
            provenance=ProvenanceData(author=label.author, reason=label.reason),
        )
        edit_score(log, label.sample_id, label.score_name, edit, epoch=label.epoch)
    # Written beside the log, then moved over it: the log is never left half-written.
    partial = log_path.with_name(f".{log_path.stem}.partial{log_path.suffix}")
    try:
        write_eval_log(log, str(partial))
        os.replace(partial, log_path)
    finally:
        partial.unlink(missing_ok=True)
    return len(labels)
