"""Rubric versions side by side (docs/judge-qa.md, "Rubric versions"): on the responses people
rated, each judge under every rubric version it ran with, against people.

Conventions:
- A version's rating of a response is the judge's latest scored rating under that version
  (a later version supersedes it in `current_ratings`, but it stays on record in `ratings`).
- Agreement (exact), quadratic kappa, ordinal alpha and the bias come from calibration's own
  computation (`calibration.rating_agreements`, over `scoring.agreement_ci`): each (version
  rating, person's rating) of a response is one compared pair; 95% percentile bootstrap
  intervals; n is the pairs (alpha: the responses).
- bias is the mean of judge minus person divided by the scale's width (high − low), so
  −1…1 on any scale; 0 is none.
- A few-shot version (`judging/few_shot.py`) is compared on the held-out labels only: its
  ratings of the responses it showed as examples are left out.
- A disagreement is a response where some version's rating, snapped to the scale as the
  confusion table snaps it, differs from some person's rating.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from dashboard.auth.roles import User, may_administer
from dashboard.metrics import calibration, selection_sql
from dashboard.metrics.calibration import LabelledRating
from dashboard.metrics.choices import with_default_rubric
from dashboard.metrics.estimates import Estimate
from dashboard.metrics.judge_qa import versions_sql as sql
from dashboard.metrics.judge_qa.versions_sql import UsedExample
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from scoring import agreement_ci


@dataclass(frozen=True)
class VersionAgreement:
    """One judge under one rubric version against people."""

    judge: str
    version: str
    n_responses: int
    agreement: Estimate  # exact agreement, over the compared pairs
    kappa: Estimate  # quadratic-weighted Cohen's kappa
    alpha: Estimate  # Krippendorff's alpha (ordinal), the version and every person
    bias: Estimate  # mean (judge − person) / (high − low)


@dataclass(frozen=True)
class VersionDisagreement:
    """A labelled response where at least one of a judge's versions disagrees with people."""

    judge: str
    response_id: str
    system: str
    question: str
    people: tuple[float, ...]
    ratings: Mapping[str, float]  # version -> its rating (snapped to the scale); absent: none


@dataclass(frozen=True)
class RubricVersions:
    selection: Selection
    scale: tuple[float, float] | None
    versions: tuple[VersionAgreement, ...]  # by judge, then in the order the versions began
    disagreements: tuple[VersionDisagreement, ...]
    # The labels each few-shot version showed as examples, left out of its numbers above.
    examples: tuple[UsedExample, ...] = ()

    def versions_of(self, judge: str) -> list[str]:
        return [v.version for v in self.versions if v.judge == judge]


def _groups(rows: Sequence[sql.VersionedLabel]) -> dict[tuple[str, str], list[LabelledRating]]:
    """(judge, version) -> its ratings, in the order the versions first rated."""
    ordered = sorted(
        (r for r in rows if r.rater_kind == "llm"),
        key=lambda r: (r.rater, str(r.first_utc), str(r.rubric_version)),
    )
    groups: dict[tuple[str, str], list[LabelledRating]] = {}
    for r in ordered:
        groups.setdefault((r.rater, str(r.rubric_version)), []).append(
            LabelledRating(r.response_id, "llm", r.rater, r.value)
        )
    return groups


def _normalized(e: Estimate, width: float) -> Estimate:
    return Estimate(e.value / width, e.low / width, e.high / width, e.n)


def _agreements(
    groups: Mapping[tuple[str, str], list[LabelledRating]],
    people: list[LabelledRating],
    scale: tuple[float, float],
) -> list[VersionAgreement]:
    found = []
    for (judge, version), rated in groups.items():
        judged = {r.response_id for r in rated}
        rows = [*rated, *(p for p in people if p.response_id in judged)]
        results, _ = calibration.rating_agreements(rows, scale)
        for a in results:
            if a.judge == calibration.PANEL:
                continue
            found.append(
                VersionAgreement(
                    judge,
                    version,
                    a.n_responses,
                    a.exact,
                    a.kappa_quadratic,
                    a.alpha_ordinal,
                    _normalized(a.bias, scale[1] - scale[0]),
                )
            )
    return found


def _snapped(value: float | None, labels: list[float]) -> float:
    return float(agreement_ci.snap([float(value or 0.0)], labels)[0])


def _disagreements(
    groups: Mapping[tuple[str, str], list[LabelledRating]],
    people: list[LabelledRating],
    labels: list[float],
) -> dict[tuple[str, str], dict[str, float]]:
    """(judge, response) -> version -> snapped rating, where some version disagrees."""
    given: dict[str, set[float]] = defaultdict(set)
    for p in people:
        given[p.response_id].add(_snapped(p.value, labels))
    ratings: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for (judge, version), rated in groups.items():
        for r in rated:
            ratings[(judge, r.response_id)][version] = _snapped(r.value, labels)
    return {
        key: by_version
        for key, by_version in sorted(ratings.items())
        if any(given[key[1]] - {v} for v in by_version.values())
    }


def _listed(
    store: Store,
    disagreeing: Mapping[tuple[str, str], dict[str, float]],
    people: list[LabelledRating],
) -> tuple[VersionDisagreement, ...]:
    with store.connection() as con:
        found = sql.response_texts(con, sorted({response for _, response in disagreeing}))
    texts = {t.response_id: t for t in found}
    values: dict[str, list[float]] = defaultdict(list)
    for p in people:
        values[p.response_id].append(float(p.value or 0.0))
    return tuple(
        VersionDisagreement(
            judge,
            response_id,
            texts[response_id].system,
            texts[response_id].question,
            tuple(sorted(values[response_id])),
            by_version,
        )
        for (judge, response_id), by_version in disagreeing.items()
        if response_id in texts
    )


def rubric_versions(store: Store, selection: Selection) -> RubricVersions:
    """Every judge under every rubric version, against people, on the selection's rubric."""
    selection = with_default_rubric(store, selection)
    if selection.rubric is None:
        return RubricVersions(selection, None, (), ())
    with store.connection() as con:
        scale = selection_sql.rubric_scale(con, selection.rubric)
        rows = sql.versioned_labels(con, selection)
        used = tuple(sql.used_examples(con, rubric=selection.rubric))
    people = [
        LabelledRating(r.response_id, "human", r.rater, r.value)
        for r in rows
        if r.rater_kind == "human"
    ]
    groups = _groups(rows)
    if scale is None or not people or not groups:
        return RubricVersions(selection, scale, (), ())
    labels = calibration.rating_agreements(people, scale)[1]
    listed = _listed(store, _disagreements(groups, people, labels), people)
    agreements = tuple(_agreements(groups, people, scale))
    return RubricVersions(selection, scale, agreements, listed, used)


def calibration_examples(
    store: Store, selection: Selection, *, actor: User | None = None
) -> tuple[UsedExample, ...]:
    """The labels shown as examples by the few-shot rubric versions whose ratings Calibration
    compares with people (the judges' current ratings; those examples are left out there).
    Who gave each label is an admin's to see: for a signed-in labeller `rater` is empty."""
    selection = with_default_rubric(store, selection)
    if selection.rubric is None:
        return ()
    with store.connection() as con:
        used = sql.used_examples(con, rubric=selection.rubric)
        if not used:  # no few-shot version of the rubric: nothing to look for
            return ()
        compared = {v.rubric_version for v in sql.compared_versions(con, selection)}
    shown = tuple(e for e in used if e.rubric_version in compared)
    if may_administer(actor):
        return shown
    return tuple(replace(e, rater="") for e in shown)
