"""The selection every metric query starts from, as SQL fragments, and the rubrics rated on it.

A selection is one dataset (or all) and some systems (or all), with a rubric for ratings.
Parameters are named (`$dataset`, `$rubric`, `$systems`); None means "all".
"""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.metrics.selection import Selection
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch, fetch_one

# The selected responses: one dataset (or all) and some systems (or all).
SELECTED = """
    SELECT response_id, item_id, system FROM responses
    WHERE ($dataset IS NULL OR dataset = $dataset)
      AND ($systems IS NULL OR list_contains($systems, system))"""

# Current ratings of the chosen rubric on the selected responses.
RATED = f"""
    SELECT s.response_id, s.item_id, s.system, g.rater_kind, g.rater, g.value,
           g.scale_low, g.scale_high
    FROM current_ratings g JOIN ({SELECTED}) s USING (response_id)
    WHERE g.rubric = $rubric"""


# One row per pair and rater of the selection: per presentation order, whether the rater
# judged it and its verdict (NULL when that verdict did not parse, or the order was not
# judged: the judged_* flag tells which).
PREFERENCE_PAIRS = f"""
    SELECT p.item_id, p.response_a, p.response_b, p.rater_kind, p.rater,
           any_value(p.verdict) FILTER (WHERE p.shown_first = 'A') AS shown_a_first,
           bool_or(p.shown_first = 'A') AS judged_a_first,
           any_value(p.verdict) FILTER (WHERE p.shown_first = 'B') AS shown_b_first,
           bool_or(p.shown_first = 'B') AS judged_b_first
    FROM current_preferences p
    SEMI JOIN ({SELECTED}) s ON s.response_id = p.response_a
    SEMI JOIN ({SELECTED}) t ON t.response_id = p.response_b
    GROUP BY ALL"""


@dataclass(frozen=True)
class RubricScale:
    """A rubric rated on the selection: its scale, and how many current ratings use it."""

    rubric: str
    scale_low: float
    scale_high: float
    n_ratings: int


@dataclass(frozen=True)
class Scale:
    scale_low: float | None
    scale_high: float | None


@dataclass(frozen=True)
class SystemCount:
    system: str
    n_responses: int


def rubric_scales(con: Connection, sel: Selection) -> list[RubricScale]:
    """The rubrics with current ratings on the selection, most used first."""
    if sel.dataset is None and sel.systems is None:
        # Every dataset, every system: no need to join millions of ratings to their responses.
        # (Only ratings a judge run wrote after its dataset was deleted lack one.)
        return fetch(
            con.execute("""
            SELECT rubric, min(scale_low) AS scale_low, max(scale_high) AS scale_high,
                   count(*) AS n_ratings
            FROM current_ratings GROUP BY rubric ORDER BY n_ratings DESC, rubric"""),
            RubricScale,
        )
    cursor = con.execute(
        f"""
        SELECT g.rubric, min(g.scale_low) AS scale_low, max(g.scale_high) AS scale_high,
               count(*) AS n_ratings
        FROM current_ratings g JOIN ({SELECTED}) s USING (response_id)
        GROUP BY g.rubric ORDER BY n_ratings DESC, g.rubric""",
        sel.params("dataset", "systems"),
    )
    return fetch(cursor, RubricScale)


def rubric_scale(con: Connection, rubric: str) -> tuple[float, float] | None:
    """The scale (low, high) of a rubric's current ratings, or None when it has none."""
    found = fetch_one(
        con.execute(
            "SELECT min(scale_low) AS scale_low, max(scale_high) AS scale_high "
            "FROM current_ratings WHERE rubric = ?",
            [rubric],
        ),
        Scale,
    )
    if found is None or found.scale_low is None or found.scale_high is None:
        return None
    return (found.scale_low, found.scale_high)


def selected_systems(con: Connection, sel: Selection) -> list[SystemCount]:
    """Every system of the selection with its number of responses, by name."""
    cursor = con.execute(
        f"""
        SELECT system, count(*) AS n_responses FROM ({SELECTED})
        GROUP BY system ORDER BY system""",
        sel.params("dataset", "systems"),
    )
    return fetch(cursor, SystemCount)
