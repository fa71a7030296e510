"""The one SQL definition of a response's scores, shared by every query that needs them.

A rating's normalized value is (value - scale_low) / (scale_high - scale_low), on [0, 1] by its
own scale. Per response, under one rubric: the panel score is the mean of the judges' current
scored ratings (unscored ones are skipped), the human score the mean of people's, and the
effective score the human score where there is one, the panel's otherwise.
`scoring.judge.panel_aggregate_matrix` is the same rule in numpy (`tests/test_metrics.py`
checks that the two agree).
"""

from __future__ import annotations

NORM = "(value - scale_low) / nullif(scale_high - scale_low, 0)"
PANEL = "avg(norm) FILTER (WHERE rater_kind = 'llm')"
HUMAN = "avg(norm) FILTER (WHERE rater_kind = 'human')"
EFFECTIVE = f"coalesce({HUMAN}, {PANEL})"
# Current ratings with their normalized value: aggregate these per response with the above.
NORMALIZED = f"""
    SELECT response_id, rubric, rater_kind, rater, value, {NORM} AS norm FROM current_ratings"""

# The same with the panel of the selection: only its judges' ratings (`$panel_judges`, NULL:
# every judge) at its rubric versions in use (`$panel_versions`, NULL: every version) make the
# panel's score. Aggregate `PANEL_NORMALIZED` rows with these.
IN_PANEL = """rater_kind = 'llm'
    AND ($panel_judges IS NULL OR list_contains($panel_judges, rater))
    AND ($panel_versions IS NULL OR list_contains($panel_versions, rubric_version))"""
PANEL_OF = f"avg(norm) FILTER (WHERE {IN_PANEL})"
EFFECTIVE_OF = f"coalesce({HUMAN}, {PANEL_OF})"
PANEL_NORMALIZED = f"""
    SELECT response_id, rubric, rubric_version, rater_kind, rater, value, selection,
           inclusion_probability, {NORM} AS norm
    FROM current_ratings"""
PANEL_PARAMS = ("panel_judges", "panel_versions")
