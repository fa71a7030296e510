"""The reads of judge bias: judge and human ratings with the answer's length, the judges'
verdicts in both presentation orders, and the probes' results beside the originals.

Probes are read only here and in `drift_sql.py`; every other metric reads ratings and
preferences, so a perturbed copy never enters a system's numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.metrics.selection import Selection
from dashboard.metrics.selection_sql import (
    PREFERENCE_PAIRS,
    PREFERENCE_PARAMS,
    RATED,
    RATED_PARAMS,
    SELECTED,
    SELECTED_PARAMS,
)
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch

# Words are whitespace-separated tokens, as `scoring.bias.word_count` counts them.
WORDS = (
    "CASE WHEN trim(r.answer) = '' THEN 0 ELSE len(string_split_regex(trim(r.answer), '\\s+')) END"
)


@dataclass(frozen=True)
class SizedRating:
    """One rater's scored current rating of a response, with the answer's length in words."""

    response_id: str
    system: str
    rater_kind: str
    rater: str
    value: float
    words: int


def sized_ratings(con: Connection, sel: Selection) -> list[SizedRating]:
    """Every scored current rating of the selection's rubric, with its answer's length."""
    cursor = con.execute(
        f"""
        WITH rated AS ({RATED})
        SELECT g.response_id, g.system, g.rater_kind, g.rater, g.value, {WORDS} AS words
        FROM rated g JOIN responses r USING (response_id)
        WHERE g.value IS NOT NULL ORDER BY ALL""",
        sel.params(*RATED_PARAMS),
    )
    return fetch(cursor, SizedRating)


@dataclass(frozen=True)
class BothOrders:
    """A judge's canonical verdicts on one pair, asked with A first and with B first."""

    rater: str
    pair: str
    shown_a_first: str
    shown_b_first: str


def both_order_verdicts(con: Connection, sel: Selection) -> list[BothOrders]:
    """Every judge's current verdicts on pairs it judged, scored, in both orders."""
    cursor = con.execute(
        f"""
        WITH pairs AS ({PREFERENCE_PAIRS})
        SELECT rater, concat_ws('/', item_id, response_a, response_b) AS pair,
               shown_a_first, shown_b_first
        FROM pairs WHERE rater_kind = 'llm'
          AND shown_a_first IS NOT NULL AND shown_b_first IS NOT NULL
        ORDER BY ALL""",
        sel.params(*PREFERENCE_PARAMS),
    )
    return fetch(cursor, BothOrders)


def order_probe_verdicts(con: Connection, sel: Selection) -> list[BothOrders]:
    """The order probes' verdicts on pairs of selected responses, both orders scored (the
    latest probe of each order)."""
    cursor = con.execute(
        f"""
        WITH chosen AS ({SELECTED}),
        latest AS (
            SELECT judge, item_id, response_a, response_b, shown_first,
                   arg_max(verdict, created_utc) AS verdict
            FROM probes WHERE kind = 'order'
              AND response_a IN (SELECT response_id FROM chosen)
              AND response_b IN (SELECT response_id FROM chosen)
            GROUP BY ALL)
        SELECT judge AS rater, concat_ws('/', item_id, response_a, response_b) AS pair,
               any_value(verdict) FILTER (WHERE shown_first = 'A') AS shown_a_first,
               any_value(verdict) FILTER (WHERE shown_first = 'B') AS shown_b_first
        FROM latest GROUP BY ALL
        HAVING shown_a_first IS NOT NULL AND shown_b_first IS NOT NULL
        ORDER BY ALL""",
        sel.params(*SELECTED_PARAMS),
    )
    return fetch(cursor, BothOrders)


@dataclass(frozen=True)
class PaddedPair:
    """A judge's current rating of a response and its latest rating of the padded copy."""

    rater: str
    response_id: str
    original: float
    padded: float


def padding_pairs(con: Connection, sel: Selection) -> list[PaddedPair]:
    """Each padding probe of the selection's rubric beside the same judge's current rating
    of the original response (both scored)."""
    cursor = con.execute(
        f"""
        WITH rated AS ({RATED}),
        probed AS (
            SELECT judge, response_id, arg_max(value, created_utc) AS padded
            FROM probes WHERE kind = 'padding' AND rubric = $rubric GROUP BY ALL)
        SELECT g.rater, g.response_id, g.value AS original, p.padded
        FROM rated g JOIN probed p ON p.judge = g.rater AND p.response_id = g.response_id
        WHERE g.rater_kind = 'llm' AND g.value IS NOT NULL AND p.padded IS NOT NULL
        ORDER BY ALL""",
        sel.params(*RATED_PARAMS),
    )
    return fetch(cursor, PaddedPair)
