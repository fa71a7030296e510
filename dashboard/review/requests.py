"""What a person asks the review pages for: which answers to label and in what order
(`QueueRequest`, Annotate), which pairs to vote on (`PairRequest`, Pairwise), and what the
Failures list shows (`FailureFilter`). The pages build them and pass them to `annotation.py`,
`votes.py` and `failures.py`, which name them; the SQL modules read their fields.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class QueueRequest:
    """Which answers to label, and in what order. `task_types` empty = every task type."""

    rubric: str
    annotator: str
    order: str = "random"
    dataset: str | None = None
    task_types: tuple[str, ...] = ()
    seed: int = 0
    # Answers passed over (skipped in this session): left out of the queue.
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class PairRequest:
    """The pairs of `system_a` and `system_b` that `annotator` has not voted on; `seed` fixes
    their order."""

    system_a: str
    system_b: str
    annotator: str
    dataset: str | None = None
    seed: int = 0


@dataclass(frozen=True)
class FailureFilter:
    """What the Failures list shows. None means "no filter".

    With `judge` set, only responses that judge rated are listed, and the score range and the
    order use that judge's score instead of the effective score. `search` matches question
    or answer, case-insensitively, as plain text (no wildcards).
    """

    rubric: str | None
    dataset: str | None = None
    system: str | None = None
    judge: str | None = None
    min_score: float | None = None
    max_score: float | None = None
    task_type: str | None = None
    min_disagreement: float | None = None
    search: str | None = None
    # The panel whose judges make the panel score, the spread and the judge count (None:
    # every judge), at its rubric version (None: every version); `panels.with_panel`.
    panel: str | None = None
    panel_judges: tuple[str, ...] | None = None
    panel_version: str | None = None
    panel_versions: tuple[str, ...] | None = None  # the versions in use (`Selection`'s)
    # Only answers some person currently tags with any of these (a campaign's tags).
    tags: tuple[str, ...] | None = None
