"""Several questions about one answer in one pass: a campaign's rubrics (its own first, then
its further questions; a rubric on a 0 to 1 scale is asked as a pass/fail check), its tags and
a comment. Each answer is its own label (a rating per rubric, a tag label per tag), all with
the same person, time and provenance, and they are saved together or not at all
(`annotation.save_rating` with `also`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dashboard.campaigns import campaigns
from dashboard.judging.rubrics import Rubric
from dashboard.review.annotation import AnnotationError, Provenance, human_rating, rating_scale
from dashboard.types import Rating


@dataclass(frozen=True)
class Asked:
    """The rubrics asked about each answer (`rubric` first), and the names of a campaign's
    further rubrics that no rubric file defines any more (not asked; the page says so)."""

    rubrics: tuple[Rubric, ...]
    missing: tuple[str, ...] = ()


def is_check(rubric: Rubric) -> bool:
    """A pass/fail check: a rubric whose scale is 0 (fail) to 1 (pass)."""
    return rubric.scale_low == 0 and rubric.scale_high == 1


def asked(rubric: Rubric, campaign: campaigns.Campaign | None, known: Sequence[Rubric]) -> Asked:
    """What a label of an answer asks: `rubric` alone outside a campaign, else the campaign's
    rubrics in its order, its own rubric first (whatever rubric is picked beside it), so that
    the form's comment and override go with the label of the campaign's rubric."""
    if campaign is None:
        return Asked((rubric,))
    by_name = {r.name: r for r in known}
    by_name[rubric.name] = rubric
    names = campaigns.rubric_names(campaign)
    own = by_name.get(names[0], rubric)  # a campaign's own rubric is always asked
    more = names[1:]
    found = tuple(by_name[name] for name in more if name in by_name)
    return Asked((own, *found), tuple(name for name in more if name not in by_name))


def ratings_of(
    response_id: str,
    *,
    annotator: str,
    rubrics: Sequence[Rubric],
    values: Mapping[str, float | None],
    comment: str | None = None,
    overrides: str | None = None,
    provenance: Provenance | None = None,
) -> list[Rating]:
    """One rating per rubric (`values` by rubric name), checked whole before any is made: every
    question needs its answer on its scale. The comment and an override go with the first
    rubric's rating; every rating has the first one's time and provenance."""
    unanswered = [r.name for r in rubrics[1:] if values.get(r.name) is None]
    if values.get(rubrics[0].name) is not None and unanswered:
        raise AnnotationError(
            f"Answer every question before saving: {', '.join(unanswered)} has no answer yet."
        )
    found: list[Rating] = []
    for n, rubric in enumerate(rubrics):
        made = human_rating(
            response_id,
            annotator=annotator,
            rubric=rubric.name,
            rubric_version=rubric.version,
            value=values.get(rubric.name),
            scale=rating_scale(rubric),
            comment=comment if n == 0 else None,
            overrides=overrides if n == 0 else None,
            provenance=provenance,
        )
        if found:
            made = dataclasses.replace(made, created_utc=found[0].created_utc)
        found.append(made)
    return found


def answered(rating: Rating, rubric: Rubric) -> str:
    """A saved answer in words: "pass-fail pass", "eve-0-5 3"."""
    if rating.value is None:
        return f"{rubric.name} withdrawn"
    if is_check(rubric):
        return f"{rubric.name} {'pass' if rating.value >= 1 else 'fail'}"
    return f"{rubric.name} {rating.value:g}"
