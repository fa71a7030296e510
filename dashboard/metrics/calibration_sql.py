"""The per-unit reads of calibration: every response (and pair) at least one person labelled,
with every rater's current value. Bounded by the number of human labels.
"""

from __future__ import annotations

from dashboard.metrics.selection import Selection
from dashboard.metrics.selection_sql import PREFERENCE_PAIRS, RATED
from dashboard.store.connection import Connection


def labelled_preferences(con: Connection, sel: Selection) -> list[tuple]:
    """(pair key, rater_kind, rater, verdict shown A first, verdict shown B first) for every
    pair that at least one person judged: the units of pairwise calibration."""
    return con.execute(
        f"""
        WITH pairs AS ({PREFERENCE_PAIRS})
        SELECT concat_ws('/', item_id, response_a, response_b), rater_kind, rater,
               shown_a_first, shown_b_first
        FROM pairs p
        WHERE EXISTS (SELECT 1 FROM pairs h WHERE h.rater_kind = 'human'
                      AND h.item_id = p.item_id AND h.response_a = p.response_a
                      AND h.response_b = p.response_b)
        ORDER BY ALL""",
        sel.params("dataset", "systems"),
    ).fetchall()


def labelled_ratings(con: Connection, sel: Selection) -> list[tuple]:
    """(response_id, rater_kind, rater, value) on the rubric's scale for every response that
    at least one person rated: the units of rating calibration. Unscored judge ratings are
    included as None."""
    return con.execute(
        f"""
        WITH rated AS ({RATED})
        SELECT response_id, rater_kind, rater, value FROM rated
        WHERE response_id IN (SELECT response_id FROM rated WHERE rater_kind = 'human')
        ORDER BY ALL""",
        sel.params("dataset", "systems", "rubric"),
    ).fetchall()
