"""Everything the report shows, read once from the store into plain records.

The numbers come from `dashboard.metrics_json.compute`, the same call `judgeboard metrics`
makes; the rest (the worst answers, the methods facts) from `store/export_sql.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dashboard.ids import utc_now
from dashboard.metrics import metrics_json
from dashboard.metrics.calibration import Calibration
from dashboard.metrics.overview import Overview
from dashboard.metrics.selection import Selection
from dashboard.report import report_sql as sql
from dashboard.store import Store

DEFAULT_WORST = 10


@dataclass(frozen=True)
class RatingNote:
    """One current rating of a worst answer, with what its rater said."""

    rater_kind: str
    rater: str
    value: float | None
    scale_low: float
    scale_high: float
    explanation: str | None
    comment: str | None
    unscored_reason: str | None


@dataclass(frozen=True)
class WorstAnswer:
    response_id: str
    effective_score: float  # normalized to 0-1
    dataset: str
    system: str
    question: str
    reference_answers: tuple[str, ...]
    answer: str
    ratings: tuple[RatingNote, ...]


@dataclass(frozen=True)
class JudgeUse:
    """The calls one judge made with one rubric version."""

    judge: str
    model: str
    rubric: str
    rubric_version: str
    calls: int
    ok_calls: int
    failed_calls: int
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None
    cost_unknown_calls: int


@dataclass(frozen=True)
class RaterUse:
    """How many ratings or preferences one rater gave with one rubric version."""

    kind: str  # "rating" or "preference"
    rubric: str
    rubric_version: str
    rater_kind: str
    rater: str
    current: int
    total: int
    first_utc: datetime | None
    last_utc: datetime | None


@dataclass(frozen=True)
class ReportData:
    selection: Selection
    overview: Overview
    calibration: Calibration
    metrics: dict[str, Any]  # dashboard.metrics_json.metrics_json(...)
    worst: tuple[WorstAnswer, ...]
    calls: tuple[JudgeUse, ...]
    raters: tuple[RaterUse, ...]
    generated_utc: datetime


def _worst(row: dict[str, Any]) -> WorstAnswer:
    notes = tuple(
        RatingNote(**{k: r[k] for k in RatingNote.__dataclass_fields__}) for r in row["ratings"]
    )
    return WorstAnswer(
        row["response_id"],
        float(row["effective_score"]),
        row["dataset"],
        row["system"],
        row["question"],
        tuple(row["reference_answers"] or ()),
        row["answer"],
        notes,
    )


def _records(cls: type, rows: list[dict[str, Any]]) -> tuple[Any, ...]:
    return tuple(cls(**{k: row[k] for k in cls.__dataclass_fields__}) for row in rows)


def gather(
    store: Store,
    *,
    dataset: str | None = None,
    rubric: str | None = None,
    worst_n: int = DEFAULT_WORST,
    generated_utc: datetime | None = None,
) -> ReportData:
    """Read what a report of `dataset` (None: every dataset) shows."""
    view, cal, numbers = metrics_json.compute(store, Selection(dataset, rubric))
    chosen = view.selection.rubric
    with store.connection() as con:
        worst = (
            sql.worst_responses(con, dataset=dataset, rubric=chosen, limit=worst_n)
            if chosen and worst_n > 0
            else []
        )
        calls = sql.judge_calls_by_judge(con, dataset=dataset)
        raters = sql.judgements_by_rater(con, dataset=dataset)
    return ReportData(
        view.selection,
        view,
        cal,
        numbers,
        tuple(map(_worst, worst)),
        _records(JudgeUse, calls),
        _records(RaterUse, raters),
        generated_utc or utc_now(),
    )


def cost_text(calls: tuple[JudgeUse, ...]) -> str:
    """The cost of the judge calls: known dollars, "unknown", or both when partly known."""
    if not calls:
        return "no judge calls recorded"
    ok = sum(c.ok_calls for c in calls)
    unknown = sum(c.cost_unknown_calls for c in calls)
    known = sum(c.cost_usd or 0.0 for c in calls)
    if ok == 0 or unknown == ok:
        return "unknown"
    if unknown:
        return f"${known:.4f} for the calls with a known price; {unknown} calls of unknown cost"
    return f"${known:.4f}"
