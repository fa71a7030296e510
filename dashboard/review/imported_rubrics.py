"""The rubrics of imported scorers, for people to label on: an Inspect scorer, a promptfoo
assertion or any judge whose ratings were imported names a rubric that no rubric file
defines. Annotate and Campaigns offer it beside the rubric files, with the scale its ratings
were given on (pass/fail, a 0-1 score, a 1-5 grade ...), so that a person's label lands on the
same rubric as the scorer's rating and calibration pairs the two."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dashboard.judging.rubrics import Rubric
from dashboard.store import Store
from dashboard.store.rows import fetch

# Said of an imported rubric wherever its description shows.
IMPORTED = "imported"


@dataclass(frozen=True)
class ImportedScale:
    """A rubric judges' ratings were imported on: its scale, the version most of them carry,
    how many current ratings it has, and whether every value is an end of the scale."""

    rubric: str
    rubric_version: str
    scale_low: float
    scale_high: float
    n_ratings: int
    pass_fail: bool


_SCALES = """
    SELECT rubric, mode(rubric_version) AS rubric_version, min(scale_low) AS scale_low,
           max(scale_high) AS scale_high, count(*) AS n_ratings,
           bool_and(value IS NULL OR value = scale_low OR value = scale_high) AS pass_fail
    FROM current_ratings
    WHERE rater_kind = 'llm' AND NOT list_contains($known, rubric)
    GROUP BY rubric HAVING max(scale_high) > min(scale_low)
    ORDER BY rubric"""


def imported_scales(store: Store, *, known: Sequence[str] = ()) -> list[ImportedScale]:
    """The rubrics of judges' current ratings that are not among `known` (the rubric
    files' names), each with its scale; a rubric whose ratings have no span is left out."""
    with store.connection() as con:
        return fetch(con.execute(_SCALES, {"known": list(known)}), ImportedScale)


def as_rubric(scale: ImportedScale) -> Rubric:
    """A rating rubric people can label on, of the imported scorer's name, version and scale;
    it has no prompt, so no judge can run it."""
    kind = "pass (high) or fail (low)" if scale.pass_fail else "a score"
    return Rubric(
        name=scale.rubric,
        version=scale.rubric_version,
        kind="rating",
        template="",
        scale_low=scale.scale_low,
        scale_high=scale.scale_high,
        description=(
            f"An {IMPORTED} scorer's rubric ({scale.n_ratings:,} ratings): {kind} on "
            f"{scale.scale_low:g}-{scale.scale_high:g}, as the scorer's ratings were given."
        ),
    )


def labelling_rubrics(
    files: Sequence[Rubric], scales: Sequence[ImportedScale]
) -> tuple[Rubric, ...]:
    """The rating rubrics people can label on: the rubric files', then the imported scorers'
    (`imported_scales`, asked with the files' names) that no file defines."""
    known = {r.name for r in files}
    rating = tuple(r for r in files if r.kind == "rating")
    return rating + tuple(as_rubric(s) for s in scales if s.rubric not in known)
