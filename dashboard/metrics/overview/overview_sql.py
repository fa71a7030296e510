"""Aggregations behind every metric: small histograms and count tables, computed in SQL.

Nothing here returns one row per rating. Each query groups millions of rows into counts
(per system, rater and value), and `systems.py` turns those counts into estimates and
bootstrap intervals with `scoring`. The only per-unit reads are bounded by the number of
human labels, which is what calibration is about (`calibration_sql.py`).

Parameters are named as in `selection_sql`; None means "all".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dashboard.metrics import scores_sql as scores
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


@dataclass(frozen=True)
class RatingBin:
    """How many current ratings a rater gave a system's responses at one value; the value is
    on the rating's own scale (normally the rubric's), None when unscored."""

    system: str
    rater_kind: str
    rater: str
    value: float | None
    count: int
    scale_low: float
    scale_high: float


@dataclass(frozen=True)
class ScoreBin:
    """How many of a system's responses have one normalized score of a kind (panel, human
    or effective)."""

    system: str
    kind: str
    value: float
    count: int


@dataclass(frozen=True)
class ReferenceBin:
    """A reference metric's values of a system's responses in one 0.01 bin, with the exact
    sum of the values in it."""

    system: str
    metric: str
    value: float
    count: int
    exact_sum: float


@dataclass(frozen=True)
class DetectionCell:
    """A hallucination detector's verdicts on a system's responses against the gold label:
    `predicted` is None where no verdict was read."""

    system: str
    predicted: bool | None
    gold: bool
    count: int


@dataclass(frozen=True)
class PairOutcome:
    """How many pairs of two systems a rater judged this way in each presentation order
    (a verdict is None when it did not parse, or the order was not judged: see judged_*)."""

    system_a: str
    system_b: str
    rater_kind: str
    rater: str
    shown_a_first: str | None
    judged_a_first: bool
    shown_b_first: str | None
    judged_b_first: bool
    count: int


def rating_histograms(con: Connection, sel: Selection) -> list[RatingBin]:
    cursor = con.execute(
        f"""
        SELECT system, rater_kind, rater, value, count(*) AS count, scale_low, scale_high
        FROM ({RATED}) GROUP BY ALL ORDER BY ALL""",
        sel.params(*RATED_PARAMS),
    )
    return fetch(cursor, RatingBin)


def response_score_histograms(
    con: Connection, sel: Selection, *, panel_method: str = "mean"
) -> list[ScoreBin]:
    """The panel, human and effective scores of `scores_sql` (the selection's panel by mean,
    or by median), computed where the rows are. Ratings are reduced per response before they meet
    the responses table: one row per response joins, not one per rating.
    """
    panel = {"mean": scores.PANEL_OF, "median": f"median(norm) FILTER (WHERE {scores.IN_PANEL})"}[
        panel_method
    ]
    cursor = con.execute(
        f"""
        WITH per_response AS (
            SELECT response_id, {panel} AS panel, {scores.HUMAN} AS human
            FROM ({scores.PANEL_NORMALIZED}) WHERE rubric = $rubric
            GROUP BY response_id),
        selected AS (
            SELECT s.system, p.panel, p.human
            FROM per_response p JOIN ({SELECTED}) s USING (response_id)),
        scores AS (
            SELECT system, 'panel' AS kind, panel AS v FROM selected
            UNION ALL SELECT system, 'human', human FROM selected
            -- the effective score: people's where there is one, else the panel's
            UNION ALL SELECT system, 'effective', coalesce(human, panel) FROM selected)
        SELECT system, kind, round(v, 9) AS value, count(*) AS count FROM scores
        WHERE v IS NOT NULL GROUP BY ALL ORDER BY ALL""",
        sel.params(*RATED_PARAMS, *scores.PANEL_PARAMS),
    )
    return fetch(cursor, ScoreBin)


def reference_histograms(
    con: Connection, sel: Selection, *, version: str, metrics: Sequence[str]
) -> list[ReferenceBin]:
    """The reference-based metrics `metrics` (their stored names) binned to 0.01.

    The rounded histogram (at most 101 values) is what the bootstrap resamples, which keeps
    1,000 resamples of a million F1 scores cheap; the exact sums give the exact mean. Binning
    adds at most 0.01^2/12 to a value's variance, far below the spread of F1 scores, so the
    interval is that of the exact values to well under its own Monte Carlo noise.
    """
    cursor = con.execute(
        f"""
        SELECT s.system, a.metric, round(a.value, 2) AS value, count(*) AS count,
               sum(a.value) AS exact_sum
        FROM auto_scores a JOIN ({SELECTED}) s USING (response_id)
        WHERE a.version = $version AND list_contains($metrics, a.metric)
        GROUP BY ALL ORDER BY ALL""",
        {**sel.params(*SELECTED_PARAMS), "version": version, "metrics": list(metrics)},
    )
    return fetch(cursor, ReferenceBin)


def detection_counts(
    con: Connection, sel: Selection, *, version: str, metric: str
) -> list[DetectionCell]:
    """A detector's stored verdicts (`metric`, 1 = positive) against the items' gold labels."""
    cursor = con.execute(
        f"""
        SELECT s.system, a.value = 1 AS predicted, i.hallucination_gold AS gold,
               count(*) AS count
        FROM auto_scores a JOIN ({SELECTED}) s USING (response_id)
        JOIN items i ON i.item_id = s.item_id
        WHERE a.version = $version AND a.metric = $metric
          AND i.hallucination_gold IS NOT NULL
        GROUP BY ALL ORDER BY ALL""",
        {**sel.params(*SELECTED_PARAMS), "version": version, "metric": metric},
    )
    return fetch(cursor, DetectionCell)


def preference_outcomes(con: Connection, sel: Selection) -> list[PairOutcome]:
    """One row per combination of systems, rater and verdicts; each pair and rater counted
    once."""
    cursor = con.execute(
        f"""
        SELECT ra.system AS system_a, rb.system AS system_b, p.rater_kind, p.rater,
               p.shown_a_first, p.judged_a_first, p.shown_b_first, p.judged_b_first,
               count(*) AS count
        FROM ({PREFERENCE_PAIRS}) p
        JOIN responses ra ON ra.response_id = p.response_a
        JOIN responses rb ON rb.response_id = p.response_b
        GROUP BY ALL ORDER BY ALL""",
        sel.params(*PREFERENCE_PARAMS),
    )
    return fetch(cursor, PairOutcome)
