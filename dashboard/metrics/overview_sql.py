"""Aggregations behind every metric: small histograms and count tables, computed in SQL.

Nothing here returns one row per rating. Each query groups millions of rows into counts
(per system, rater and value), and `dashboard/metrics.py` turns those counts into estimates and
bootstrap intervals with `scoring`. The only per-unit reads are bounded by the number of
human labels, which is what calibration is about.

Parameters are named (`$dataset`, `$rubric`, `$systems`); None means "all".
"""

from __future__ import annotations

from dashboard.metrics import scores_sql as scores
from dashboard.metrics.selection import Selection
from dashboard.metrics.selection_sql import PREFERENCE_PAIRS, RATED, SELECTED
from dashboard.store.connection import Connection


def rating_histograms(con: Connection, sel: Selection) -> list[tuple]:
    """(system, rater_kind, rater, value, count, scale_low, scale_high): value is on the
    rating's own scale (normally the rubric's), None when unscored."""
    return con.execute(
        f"""
        SELECT system, rater_kind, rater, value, count(*), scale_low, scale_high
        FROM ({RATED}) GROUP BY ALL ORDER BY ALL""",
        sel.params("dataset", "systems", "rubric"),
    ).fetchall()


def response_score_histograms(
    con: Connection, sel: Selection, *, panel_method: str = "mean"
) -> list[tuple]:
    """(system, kind, normalized value, count) for kind in panel, human and effective.

    The scores of `scores_sql` (the panel by mean, or by median), computed where the rows
    are. Ratings are reduced per response before they meet the responses table: one row per
    response joins, not one per rating.
    """
    panel = {"mean": scores.PANEL, "median": "median(norm) FILTER (WHERE rater_kind = 'llm')"}[
        panel_method
    ]
    return con.execute(
        f"""
        WITH per_response AS (
            SELECT response_id, {panel} AS panel, {scores.HUMAN} AS human
            FROM ({scores.NORMALIZED}) WHERE rubric = $rubric
            GROUP BY response_id),
        selected AS (
            SELECT s.system, p.panel, p.human
            FROM per_response p JOIN ({SELECTED}) s USING (response_id)),
        scores AS (
            SELECT system, 'panel' AS kind, panel AS v FROM selected
            UNION ALL SELECT system, 'human', human FROM selected
            -- the effective score: people's where there is one, else the panel's
            UNION ALL SELECT system, 'effective', coalesce(human, panel) FROM selected)
        SELECT system, kind, round(v, 9) AS v, count(*) FROM scores
        WHERE v IS NOT NULL GROUP BY ALL ORDER BY ALL""",
        sel.params("dataset", "systems", "rubric"),
    ).fetchall()


def auto_score_histograms(con: Connection, sel: Selection, *, version: str) -> list[tuple]:
    """(system, metric, value rounded to 0.01, count, exact sum of the bin's values) of the
    reference-based metrics.

    The rounded histogram (at most 101 values) is what the bootstrap resamples, which keeps
    1,000 resamples of a million F1 scores cheap; the exact sums give the exact mean. Binning
    adds at most 0.01^2/12 to a value's variance, far below the spread of F1 scores, so the
    interval is that of the exact values to well under its own Monte Carlo noise.
    """
    return con.execute(
        f"""
        SELECT s.system, a.metric, round(a.value, 2), count(*), sum(a.value)
        FROM auto_scores a JOIN ({SELECTED}) s USING (response_id)
        WHERE a.version = $version AND a.metric IN ('em', 'f1', 'mcqa_accuracy', 'mcqa_iou')
        GROUP BY ALL ORDER BY ALL""",
        {**sel.params("dataset", "systems"), "version": version},
    ).fetchall()


def hallucination_counts(con: Connection, sel: Selection, *, version: str) -> list[tuple]:
    """(system, predicted hallucinated (None = no verdict), gold hallucinated, count)."""
    return con.execute(
        f"""
        SELECT s.system, a.value = 1 AS predicted, i.hallucination_gold, count(*)
        FROM auto_scores a JOIN ({SELECTED}) s USING (response_id)
        JOIN items i ON i.item_id = s.item_id
        WHERE a.version = $version AND a.metric = 'halluc_pred'
          AND i.hallucination_gold IS NOT NULL
        GROUP BY ALL ORDER BY ALL""",
        {**sel.params("dataset", "systems"), "version": version},
    ).fetchall()


def preference_outcomes(con: Connection, sel: Selection) -> list[tuple]:
    """(system_a, system_b, rater_kind, rater, verdict shown A first, verdict shown B first,
    count): one row per combination, each pair and rater counted once."""
    return con.execute(
        f"""
        SELECT ra.system, rb.system, p.rater_kind, p.rater, p.shown_a_first, p.shown_b_first,
               count(*)
        FROM ({PREFERENCE_PAIRS}) p
        JOIN responses ra ON ra.response_id = p.response_a
        JOIN responses rb ON rb.response_id = p.response_b
        GROUP BY ALL ORDER BY ALL""",
        sel.params("dataset", "systems"),
    ).fetchall()
