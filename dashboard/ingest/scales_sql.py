"""A rubric's scale is the rubric's own: the SQL that finds staged ratings on another scale
than the stored ratings of their rubric, or than an earlier record of the same file."""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.ingest.load_sql import Rows
from dashboard.ingest.read_sql import execute
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch_one


@dataclass(frozen=True)
class ScaleConflict:
    """A rating whose rubric is on another scale elsewhere: the record's 0-based index and
    scale, and the other scale with the 0-based index of the record that has it (-1: stored
    ratings)."""

    index: int
    rubric: str
    scale_low: float
    scale_high: float
    other_low: float
    other_high: float
    other_index: int


# The scales the stage's rubrics already have in the database.
_STORED_SCALES = """
    SELECT DISTINCT rubric, scale_low AS other_low, scale_high AS other_high FROM ratings
    WHERE rubric IN (SELECT rubric FROM {rated})"""


def has_scale_conflict(con: Connection, stage: str = "_stage") -> bool:
    """Whether a rubric of the staged ratings has two scales, among them or with the stored
    ratings (a rubric's scale is the rubric's own, whatever the dataset)."""
    rated = f"(SELECT rubric, scale_low, scale_high FROM {stage} WHERE rating_id IS NOT NULL)"
    found = con.execute(f"""
        SELECT 1 FROM (
            SELECT DISTINCT * FROM {rated}
            UNION SELECT * FROM ({_STORED_SCALES.format(rated=rated)}))
        GROUP BY rubric HAVING count(*) > 1 LIMIT 1""").fetchone()
    return found is not None


def scale_conflict(con: Connection, rows: Rows) -> ScaleConflict | None:
    """The first rating, in file order, whose rubric has another scale in the database or in
    an earlier record of the file."""
    first = "OVER (PARTITION BY r.rubric ORDER BY r.i)"
    return fetch_one(
        execute(
            con,
            f"""
            WITH rated AS (
                SELECT {rows.index} AS i, rubric, scale_low::DOUBLE AS scale_low,
                       scale_high::DOUBLE AS scale_high
                FROM {rows.relation} WHERE rating_id IS NOT NULL),
            stored AS ({_STORED_SCALES.format(rated="rated")}),
            against AS (
                SELECT r.i, r.rubric, r.scale_low, r.scale_high,
                       coalesce(s.other_low, first_value(r.scale_low) {first}) AS other_low,
                       coalesce(s.other_high, first_value(r.scale_high) {first}) AS other_high,
                       CASE WHEN s.rubric IS NULL THEN first_value(r.i) {first} ELSE -1 END
                           AS other_index
                FROM rated r LEFT JOIN (
                    SELECT rubric,
                           first(other_low ORDER BY other_low, other_high) AS other_low,
                           first(other_high ORDER BY other_low, other_high) AS other_high
                    FROM stored GROUP BY rubric) s USING (rubric))
            SELECT i AS index, rubric, scale_low, scale_high, other_low, other_high, other_index
            FROM against WHERE scale_low <> other_low OR scale_high <> other_high
            ORDER BY i LIMIT 1""",
            rows.params,
        ),
        ScaleConflict,
    )
