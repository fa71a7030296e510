"""The per-unit reads of calibration: every response (and pair) at least one person labelled,
with every rater's current value. Bounded by the number of human labels.
"""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.metrics.selection import Selection
from dashboard.metrics.selection_sql import (
    PREFERENCE_PAIRS,
    PREFERENCE_PARAMS,
    RATED,
    RATED_PARAMS,
)
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class LabelledRating:
    """One rater's current rating of a response that a person rated: on the rubric's scale,
    None when it did not parse."""

    response_id: str
    rater_kind: str
    rater: str
    value: float | None


@dataclass(frozen=True)
class LabelledPair:
    """One rater's current verdicts, in each presentation order, on a pair a person judged.
    `pair` is "<item_id>/<response_a>/<response_b>"."""

    pair: str
    rater_kind: str
    rater: str
    shown_a_first: str | None
    shown_b_first: str | None


def labelled_preferences(con: Connection, sel: Selection) -> list[LabelledPair]:
    """Every rater's verdicts on every pair that at least one person judged: the units of
    pairwise calibration."""
    cursor = con.execute(
        f"""
        WITH pairs AS ({PREFERENCE_PAIRS})
        SELECT concat_ws('/', item_id, response_a, response_b) AS pair, rater_kind, rater,
               shown_a_first, shown_b_first
        FROM pairs p
        WHERE EXISTS (SELECT 1 FROM pairs h WHERE h.rater_kind = 'human'
                      AND h.item_id = p.item_id AND h.response_a = p.response_a
                      AND h.response_b = p.response_b)
        ORDER BY ALL""",
        sel.params(*PREFERENCE_PARAMS),
    )
    return fetch(cursor, LabelledPair)


def labelled_ratings(con: Connection, sel: Selection) -> list[LabelledRating]:
    """Every rater's rating of every response that at least one person rated: the units of
    rating calibration. Unscored judge ratings are included, with value None."""
    cursor = con.execute(
        f"""
        WITH rated AS ({RATED})
        SELECT response_id, rater_kind, rater, value FROM rated
        WHERE response_id IN (SELECT response_id FROM rated WHERE rater_kind = 'human')
        ORDER BY ALL""",
        sel.params(*RATED_PARAMS),
    )
    return fetch(cursor, LabelledRating)
