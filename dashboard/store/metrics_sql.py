"""Aggregations behind every metric: small histograms and count tables, computed in SQL.

Nothing here returns one row per rating. Each query groups millions of rows into counts
(per system, rater and value), and `dashboard/metrics.py` turns those counts into estimates and
bootstrap intervals with `scoring`. The only per-unit reads are bounded by the number of
human labels, which is what calibration is about.

Parameters are named (`$dataset`, `$rubric`, `$systems`); None means "all".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dashboard.store import scores_sql as scores
from dashboard.store.connection import Connection

# The selected responses: one dataset (or all) and some systems (or all).
_SELECTED = """
    SELECT response_id, item_id, system FROM responses
    WHERE ($dataset IS NULL OR dataset = $dataset)
      AND ($systems IS NULL OR list_contains($systems, system))"""

# Current ratings of the chosen rubric on the selected responses.
_RATED = f"""
    SELECT s.response_id, s.item_id, s.system, g.rater_kind, g.rater, g.value,
           g.scale_low, g.scale_high
    FROM current_ratings g JOIN ({_SELECTED}) s USING (response_id)
    WHERE g.rubric = $rubric"""


@dataclass(frozen=True)
class Selection:
    """What a metric is computed over. None means every dataset, or every system."""

    dataset: str | None = None
    rubric: str | None = None
    systems: tuple[str, ...] | None = None

    def params(self, *names: str) -> dict[str, Any]:
        values = {"dataset": self.dataset, "rubric": self.rubric,
                  "systems": list(self.systems) if self.systems is not None else None}
        return {name: values[name] for name in names}


def rubric_scales(con: Connection, sel: Selection) -> list[tuple[str, float, float, int]]:
    """(rubric, scale_low, scale_high, n current ratings) on the selection, most used first."""
    if sel.dataset is None and sel.systems is None:
        # Every dataset, every system: no need to join millions of ratings to their responses.
        # (Only ratings a judge run wrote after its dataset was deleted lack one.)
        return con.execute("""
            SELECT rubric, min(scale_low), max(scale_high), count(*) AS n FROM current_ratings
            GROUP BY rubric ORDER BY n DESC, rubric""").fetchall()
    return con.execute(f"""
        SELECT g.rubric, min(g.scale_low), max(g.scale_high), count(*) AS n
        FROM current_ratings g JOIN ({_SELECTED}) s USING (response_id)
        GROUP BY g.rubric ORDER BY n DESC, g.rubric""",
        sel.params("dataset", "systems")).fetchall()


def rubric_scale(con: Connection, rubric: str) -> tuple[float, float] | None:
    """The scale of a rubric's current ratings, or None when it has none."""
    low, high = con.execute(
        "SELECT min(scale_low), max(scale_high) FROM current_ratings WHERE rubric = ?",
        [rubric]).fetchone()
    return None if low is None else (low, high)


def selected_systems(con: Connection, sel: Selection) -> list[tuple[str, int]]:
    """(system, number of responses), by name."""
    return con.execute(f"""
        SELECT system, count(*) FROM ({_SELECTED}) GROUP BY system ORDER BY system""",
        sel.params("dataset", "systems")).fetchall()


def rating_histograms(con: Connection, sel: Selection) -> list[tuple]:
    """(system, rater_kind, rater, value, count, scale_low, scale_high): value is on the
    rating's own scale (normally the rubric's), None when unscored."""
    return con.execute(f"""
        SELECT system, rater_kind, rater, value, count(*), scale_low, scale_high
        FROM ({_RATED}) GROUP BY ALL ORDER BY ALL""",
        sel.params("dataset", "systems", "rubric")).fetchall()


def response_score_histograms(con: Connection, sel: Selection, *,
                              panel_method: str = "mean") -> list[tuple]:
    """(system, kind, normalized value, count) for kind in panel, human and effective.

    The scores of `scores_sql` (the panel by mean, or by median), computed where the rows
    are. Ratings are reduced per response before they meet the responses table: one row per
    response joins, not one per rating.
    """
    panel = {"mean": scores.PANEL,
             "median": "median(norm) FILTER (WHERE rater_kind = 'llm')"}[panel_method]
    return con.execute(f"""
        WITH per_response AS (
            SELECT response_id, {panel} AS panel, {scores.HUMAN} AS human
            FROM ({scores.NORMALIZED}) WHERE rubric = $rubric
            GROUP BY response_id),
        selected AS (
            SELECT s.system, p.panel, p.human
            FROM per_response p JOIN ({_SELECTED}) s USING (response_id)),
        scores AS (
            SELECT system, 'panel' AS kind, panel AS v FROM selected
            UNION ALL SELECT system, 'human', human FROM selected
            -- the effective score: people's where there is one, else the panel's
            UNION ALL SELECT system, 'effective', coalesce(human, panel) FROM selected)
        SELECT system, kind, round(v, 9) AS v, count(*) FROM scores
        WHERE v IS NOT NULL GROUP BY ALL ORDER BY ALL""",
        sel.params("dataset", "systems", "rubric")).fetchall()


def auto_score_histograms(con: Connection, sel: Selection, *, version: str) -> list[tuple]:
    """(system, metric, value rounded to 0.01, count, exact sum of the bin's values) of the
    reference-based metrics.

    The rounded histogram (at most 101 values) is what the bootstrap resamples, which keeps
    1,000 resamples of a million F1 scores cheap; the exact sums give the exact mean. Binning
    adds at most 0.01^2/12 to a value's variance, far below the spread of F1 scores, so the
    interval is that of the exact values to well under its own Monte Carlo noise.
    """
    return con.execute(f"""
        SELECT s.system, a.metric, round(a.value, 2), count(*), sum(a.value)
        FROM auto_scores a JOIN ({_SELECTED}) s USING (response_id)
        WHERE a.version = $version AND a.metric IN ('em', 'f1', 'mcqa_accuracy', 'mcqa_iou')
        GROUP BY ALL ORDER BY ALL""",
        {**sel.params("dataset", "systems"), "version": version}).fetchall()


def hallucination_counts(con: Connection, sel: Selection, *, version: str) -> list[tuple]:
    """(system, predicted hallucinated (None = no verdict), gold hallucinated, count)."""
    return con.execute(f"""
        SELECT s.system, a.value = 1 AS predicted, i.hallucination_gold, count(*)
        FROM auto_scores a JOIN ({_SELECTED}) s USING (response_id)
        JOIN items i ON i.item_id = s.item_id
        WHERE a.version = $version AND a.metric = 'halluc_pred'
          AND i.hallucination_gold IS NOT NULL
        GROUP BY ALL ORDER BY ALL""",
        {**sel.params("dataset", "systems"), "version": version}).fetchall()


_PREFERENCE_PAIRS = f"""
    SELECT p.item_id, p.response_a, p.response_b, p.rater_kind, p.rater,
           any_value(p.verdict) FILTER (WHERE p.shown_first = 'A') AS shown_a_first,
           any_value(p.verdict) FILTER (WHERE p.shown_first = 'B') AS shown_b_first,
           bool_or(p.verdict IS NULL) AS any_unscored
    FROM current_preferences p
    SEMI JOIN ({_SELECTED}) s ON s.response_id = p.response_a
    SEMI JOIN ({_SELECTED}) t ON t.response_id = p.response_b
    GROUP BY ALL"""


def preference_outcomes(con: Connection, sel: Selection) -> list[tuple]:
    """(system_a, system_b, rater_kind, rater, verdict shown A first, verdict shown B first,
    count): one row per combination, each pair and rater counted once."""
    return con.execute(f"""
        SELECT ra.system, rb.system, p.rater_kind, p.rater, p.shown_a_first, p.shown_b_first,
               count(*)
        FROM ({_PREFERENCE_PAIRS}) p
        JOIN responses ra ON ra.response_id = p.response_a
        JOIN responses rb ON rb.response_id = p.response_b
        GROUP BY ALL ORDER BY ALL""",
        sel.params("dataset", "systems")).fetchall()


def labelled_preferences(con: Connection, sel: Selection) -> list[tuple]:
    """(pair key, rater_kind, rater, verdict shown A first, verdict shown B first) for every
    pair that at least one person judged: the units of pairwise calibration."""
    return con.execute(f"""
        WITH pairs AS ({_PREFERENCE_PAIRS})
        SELECT concat_ws('/', item_id, response_a, response_b), rater_kind, rater,
               shown_a_first, shown_b_first
        FROM pairs p
        WHERE EXISTS (SELECT 1 FROM pairs h WHERE h.rater_kind = 'human'
                      AND h.item_id = p.item_id AND h.response_a = p.response_a
                      AND h.response_b = p.response_b)
        ORDER BY ALL""",
        sel.params("dataset", "systems")).fetchall()


def labelled_ratings(con: Connection, sel: Selection) -> list[tuple]:
    """(response_id, rater_kind, rater, value) on the rubric's scale for every response that
    at least one person rated: the units of rating calibration. Unscored judge ratings are
    included as None."""
    return con.execute(f"""
        WITH rated AS ({_RATED})
        SELECT response_id, rater_kind, rater, value FROM rated
        WHERE response_id IN (SELECT response_id FROM rated WHERE rater_kind = 'human')
        ORDER BY ALL""",
        sel.params("dataset", "systems", "rubric")).fetchall()
