"""Everything the report shows, read once from the store into plain records.

The numbers come from `dashboard.metrics.output.numbers`, the same call `judgeboard
metrics` makes; the rest (the worst answers, the methods facts) from `report_sql.py`, whose
records this module re-exports for the sections.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dashboard.ids import utc_now
from dashboard.metrics import output
from dashboard.metrics.calibration import Calibration
from dashboard.metrics.judge_qa import JudgeConsistency
from dashboard.metrics.output import MetricsRequest, SliceNumbers
from dashboard.metrics.overview import Overview
from dashboard.metrics.selection import Selection
from dashboard.report import report_sql as sql
from dashboard.report.report_sql import JudgeUse, RaterUse, RatingNote, WorstAnswer
from dashboard.store import Store

__all__ = [
    "DEFAULT_WORST",
    "JudgeUse",
    "RaterUse",
    "RatingNote",
    "ReportData",
    "WorstAnswer",
    "cost_text",
    "gather",
]

DEFAULT_WORST = 10


@dataclass(frozen=True)
class ReportData:
    selection: Selection
    overview: Overview
    calibration: Calibration
    metrics: dict[str, Any]  # dashboard.metrics.output.metrics_json.metrics_json(...)
    worst: tuple[WorstAnswer, ...]
    calls: tuple[JudgeUse, ...]
    raters: tuple[RaterUse, ...]
    generated_utc: datetime
    slices: tuple[SliceNumbers, ...] = ()  # with `by`: each slice's numbers
    # each judge run with `judge --epochs N`: the numbers under `judges.<judge>.self_consistency`
    consistencies: tuple[JudgeConsistency, ...] = ()


def gather(
    store: Store,
    request: MetricsRequest | None = None,
    *,
    worst_n: int = DEFAULT_WORST,
    generated_utc: datetime | None = None,
) -> ReportData:
    """Read what a report of the numbers `request` asks for shows (None: every dataset, as
    `MetricsRequest()`), with the `worst_n` worst-rated answers."""
    request = request or MetricsRequest()
    dataset = request.dataset
    found = output.numbers(store, request)
    view, cal, numbers = found.overview, found.calibration, found.json
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
        tuple(worst),
        tuple(calls),
        tuple(raters),
        generated_utc or utc_now(),
        found.slices,
        found.consistencies,
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
