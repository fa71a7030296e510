"""People's labels written back into an Inspect log as score edits (Inspect's own edit
history: the earlier value stays in `Score.history`, the edit carries author and reason)."""

from __future__ import annotations

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
    """Apply each label as a score edit and rewrite the log (metrics recomputed); the count."""
    from inspect_ai.log import ProvenanceData, edit_score, read_eval_log, write_eval_log
    from inspect_ai.scorer import ScoreEdit

    log = read_eval_log(str(log_path))
    for label in labels:
        edit = ScoreEdit(
            value=label.value,
            provenance=ProvenanceData(author=label.author, reason=label.reason),
        )
        edit_score(log, label.sample_id, label.score_name, edit, epoch=label.epoch)
    write_eval_log(log, str(log_path))
    return len(labels)
