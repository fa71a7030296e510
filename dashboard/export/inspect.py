"""`judgeboard export --to inspect LOG`: people's labels on the responses imported from an
Inspect AI log, written back into that log as score edits (`ingest.tools.inspect_edits`):
the author is the person, the reason their comment (or "judgeboard label"), the value their
rating on 0-1 (`(value - low) / (high - low)` on the rubric's scale). A label goes to the
sample's score named like its rubric (an imported log's rubrics are its scorers' names);
labels of other rubrics are counted and left out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dashboard.export import inspect_sql
from dashboard.ingest.errors import IngestError
from dashboard.store import Store

DEFAULT_REASON = "judgeboard label"


class InspectExportError(Exception):
    """Why the labels could not be written to the log (nothing was written)."""


@dataclass(frozen=True)
class InspectExport:
    written: int  # score edits written
    other_rubric: int  # labels whose rubric is no score of their sample


def export_to_inspect(store: Store, log_path: Path) -> InspectExport:
    """Write people's current labels of the log's responses into the log as score edits."""
    from dashboard.ingest.tools.inspect_edits import InspectLabel, write_labels
    from dashboard.ingest.tools.inspect_log import read_log

    if not log_path.is_file():
        raise InspectExportError(f"{log_path}: no such file")
    try:
        log = read_log(log_path)  # IngestError when Inspect is not installed, too
    except IngestError as error:
        raise InspectExportError(str(error)) from None
    samples = {s.uuid: s for s in log.samples or [] if s.uuid}
    with store.connection() as con:
        found = inspect_sql.person_labels(con, sorted(samples))
    labels, other = [], 0
    for label in found:
        sample = samples[label.inspect_uuid]
        if label.rubric not in (sample.scores or {}):
            other += 1
            continue
        span = label.scale_high - label.scale_low
        value = (label.value - label.scale_low) / span if span else label.value
        labels.append(
            InspectLabel(
                sample.id,
                sample.epoch,
                label.rubric,
                value,
                label.rater,
                label.comment or DEFAULT_REASON,
            )
        )
    if not labels:  # the log is left as it was
        return InspectExport(0, other)
    return InspectExport(write_labels(log_path, labels), other)
