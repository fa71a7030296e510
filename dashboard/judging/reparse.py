"""Re-reading stored judge output without calling any model.

Output that did not parse is stored unscored with its raw text. When the parser improves (or
a rubric's scale was fixed), `reparse` reads that raw text again and writes a new rating or
preference for each one that now parses; the new row supersedes the unscored one. Outputs that
still do not parse are left as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dashboard.judging import calls_sql as sql
from dashboard.judging.calls_sql import UnscoredPreference, UnscoredRating
from dashboard.judging.records import parse_output, result_row
from dashboard.judging.rubrics import Rubric
from dashboard.judging.targets import Target
from dashboard.store import Store
from dashboard.store.journal import Batch

PARSER_TAG = "reparse"


@dataclass(frozen=True)
class ReparseSummary:
    ratings_checked: int
    ratings_rescued: int
    preferences_checked: int
    preferences_rescued: int


def _stub_rubric(
    name: str,
    version: str,
    *,
    kind: str,
    scale_low: float | None = None,
    scale_high: float | None = None,
) -> Rubric:
    """Enough of the rubric for parsing and for the new row: name, version, kind and scale."""
    return Rubric(
        name=name,
        version=version,
        kind=kind,
        template="",
        scale_low=scale_low,
        scale_high=scale_high,
    )


def _rating_rows(rows: Sequence[UnscoredRating]) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        rubric = _stub_rubric(
            row.rubric,
            row.rubric_version,
            kind="rating",
            scale_low=row.scale_low,
            scale_high=row.scale_high,
        )
        parsed = parse_output(rubric, row.raw_output)
        if parsed.scored:
            target = Target("rating", "", response_id=row.response_id)
            out.append(
                result_row(
                    target,
                    parsed,
                    rubric=rubric,
                    rater=row.rater,
                    call_id=row.call_id,
                    raw_output=row.raw_output,
                    suffix=f"{PARSER_TAG}:{parsed.value:g}",
                )
            )
    return out


def _preference_rows(rows: Sequence[UnscoredPreference]) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        rubric = _stub_rubric(row.rubric, row.rubric_version, kind="pairwise")
        parsed = parse_output(rubric, row.raw_output, shown_first=row.shown_first)
        if parsed.scored:
            target = Target(
                "preference",
                row.item_id,
                response_a=row.response_a,
                response_b=row.response_b,
                shown_first=row.shown_first,
            )
            out.append(
                result_row(
                    target,
                    parsed,
                    rubric=rubric,
                    rater=row.rater,
                    call_id=row.call_id,
                    raw_output=row.raw_output,
                    suffix=f"{PARSER_TAG}:{parsed.verdict}",
                )
            )
    return out


def reparse(
    store: Store, *, rubric: str | None = None, judge: str | None = None, dataset: str | None = None
) -> ReparseSummary:
    """Re-parse every current unscored judge rating and preference in the selection."""
    with store.connection() as con:
        ratings = sql.unscored_ratings(con, rubric=rubric, judge=judge, dataset=dataset)
        preferences = sql.unscored_preferences(con, rubric=rubric, judge=judge, dataset=dataset)
    new_ratings, new_preferences = _rating_rows(ratings), _preference_rows(preferences)
    # `insert_rows` points each new row at the current (unscored) row of its stream.
    batches = [Batch("ratings", tuple(new_ratings)), Batch("preferences", tuple(new_preferences))]
    store.write([b for b in batches if b.rows], spool_if_busy=False)
    return ReparseSummary(len(ratings), len(new_ratings), len(preferences), len(new_preferences))
