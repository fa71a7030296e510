"""Each rubric version of a judge against people on one side of the split, a paired
comparison of two versions on the test split, and the dev disagreements worst first
(docs/judge-qa.md, "Comparing versions").

- Agreement per version: exact, within one, quadratic kappa, ordinal alpha and the bias come
  from calibration's own computation (`calibration.rating_agreements`: each (judge, person)
  rating of a response is a pair); Spearman against the people's mean per response, TPR and
  TNR (pass at a normalized score of 0.5) from `calibration.judge_levels`. 95% bootstrap
  intervals, each with its n.
- The comparison: on the test responses both versions rated, every (response, person) pair;
  a minus b in quadratic kappa and exact agreement with a paired bootstrap over responses
  (`scoring.paired_versions`), McNemar's exact test on which matched the person (pass/fail:
  the pass reading; otherwise the exact scale point), and a verdict: "better" when the
  kappa difference's interval is above 0, "worse" when below (pass/fail: and McNemar's p
  below 0.05 the same way), else "cannot tell with n = …".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dashboard.metrics import calibration
from dashboard.metrics.calibration import LabelledRating
from dashboard.metrics.estimates import PASS_AT, Estimate
from dashboard.store import Store
from dashboard.workbench import agreement_sql as sql
from dashboard.workbench.agreement_sql import JudgeRating, PersonRating
from dashboard.workbench.split import DEV, TEST, read_split
from scoring import agreement_ci
from scoring.paired_versions import McNemar, PairedDifference, mcnemar, paired_difference


@dataclass(frozen=True)
class VersionScore:
    """One judge under one rubric version against people on one side of the split."""

    judge: str
    version: str
    side: str
    n_responses: int
    exact: Estimate
    within_one: Estimate
    kappa_quadratic: Estimate
    alpha_ordinal: Estimate
    spearman: Estimate  # against the people's mean per response
    tpr: Estimate
    tnr: Estimate


@dataclass(frozen=True)
class Comparison:
    judge: str
    candidate: str
    baseline: str
    difference: PairedDifference  # candidate minus baseline
    mcnemar: McNemar
    verdict: str


@dataclass(frozen=True)
class Reads:
    judges: list[JudgeRating]
    people: list[PersonRating]
    sides: dict[str, str]


def read(store: Store, *, rubric: str, dataset: str, judge: str | None = None) -> Reads:
    sides = dict(read_split(store, rubric=rubric, dataset=dataset).sides)
    with store.connection() as con:
        judges = sql.judge_ratings(con, rubric=rubric, dataset=dataset, judge=judge)
        people = sql.people_ratings(con, rubric=rubric, dataset=dataset)
    return Reads(judges, people, sides)


def _score(
    judge: str,
    version: str,
    side: str,
    rated: Sequence[JudgeRating],
    reads: Reads,
    scale: tuple[float, float],
) -> VersionScore | None:
    responses = {r.response_id for r in rated if reads.sides.get(r.response_id) == side}
    people = [p for p in reads.people if p.response_id in responses]
    if not people:
        return None
    rows = [
        *(
            LabelledRating(r.response_id, "llm", judge, r.value)
            for r in rated
            if r.response_id in responses
        ),
        *(LabelledRating(p.response_id, "human", p.rater, p.value) for p in people),
    ]
    found, _ = calibration.rating_agreements(rows, scale)
    mine = next((a for a in found if a.judge != calibration.PANEL), None)
    if mine is None:
        return None
    units: dict[str, dict[str, float]] = defaultdict(dict)
    for r in rated:
        if r.response_id in responses:
            units[r.response_id]["judge"] = r.value
    for p in people:
        units[p.response_id][f"human:{p.rater}"] = p.value
    humans = sorted({f"human:{p.rater}" for p in people})
    levels = calibration.judge_levels(judge, units, "judge", humans, {}, scale)
    nan = Estimate(float("nan"), float("nan"), float("nan"), 0)
    return VersionScore(
        judge,
        version,
        side,
        mine.n_responses,
        mine.exact,
        mine.within_one,
        mine.kappa_quadratic,
        mine.alpha_ordinal,
        levels.item_spearman if levels else nan,
        levels.tpr if levels else nan,
        levels.tnr if levels else nan,
    )


def score_versions(
    reads: Reads, *, scale: tuple[float, float], side: str = TEST
) -> list[VersionScore]:
    """Every (judge, version) with ratings on that side, against people, in name order."""
    grouped: dict[tuple[str, str], list[JudgeRating]] = defaultdict(list)
    for r in reads.judges:
        grouped[(r.judge, r.rubric_version)].append(r)
    found = [_score(j, v, side, rated, reads, scale) for (j, v), rated in sorted(grouped.items())]
    return [s for s in found if s is not None]


def _labels(scale: tuple[float, float], reads: Reads) -> list[float]:
    low, high = scale
    points = {float(v) for v in np.arange(low, high + 0.5)}
    return sorted(points | {p.value for p in reads.people})


VERDICT_ALPHA = 0.05  # McNemar's level for a pass/fail verdict


def verdict(difference: PairedDifference, test: McNemar | None = None) -> str:
    """ "better" when the kappa difference's interval (exact agreement's when kappa is
    undefined) is above 0, "worse" when below; with McNemar's `test` (pass/fail) its p must
    also be below VERDICT_ALPHA in the same direction. Otherwise "cannot tell with n = …"."""
    kappa = difference.kappa_quadratic
    ci = kappa if not np.isnan(kappa.estimate) else difference.exact
    undecided = f"cannot tell with n = {difference.n_units}"
    word = "better" if ci.low > 0 else "worse" if ci.high < 0 else None
    if word is None:
        return undecided
    if test is not None:
        agrees = (test.only_a > test.only_b) == (word == "better")  # a is the candidate
        if not (test.p_value < VERDICT_ALPHA and agrees):
            return undecided
    return word


def compare(
    reads: Reads,
    *,
    judge: str,
    candidate: str,
    baseline: str,
    scale: tuple[float, float],
    pass_fail: bool = False,
) -> Comparison:
    """`candidate` against `baseline` (the judge's two versions) on the test responses both
    rated, paired."""
    by = {(r.rubric_version, r.response_id): r.value for r in reads.judges if r.judge == judge}
    rows = [
        (by[(candidate, p.response_id)], by[(baseline, p.response_id)], p.value, p.response_id)
        for p in reads.people
        if reads.sides.get(p.response_id) == TEST
        and (candidate, p.response_id) in by
        and (baseline, p.response_id) in by
    ]
    a, b, h = (np.array([r[i] for r in rows], dtype=float) for i in range(3))
    labels = _labels(scale, reads)
    difference = paired_difference(a, b, h, [r[3] for r in rows], labels=labels)
    if pass_fail:
        low, high = scale
        passes = [(v - low) / (high - low) >= PASS_AT for v in (a, b, h)]
        correct = [passes[0] == passes[2], passes[1] == passes[2]]
    else:
        snapped = [agreement_ci.snap(v, labels) for v in (a, b, h)]
        correct = [snapped[0] == snapped[2], snapped[1] == snapped[2]]
    tested = mcnemar(*correct)
    said = verdict(difference, tested if pass_fail else None)
    return Comparison(judge, candidate, baseline, difference, tested, said)


@dataclass(frozen=True)
class Disagreement:
    """A dev response where the judge's rating (at the version) differs from a person's."""

    response_id: str
    item_id: str
    system: str
    question: str
    answer: str
    judge_value: float
    explanation: str | None
    person: str
    person_value: float
    comment: str | None
    rating_id: str

    @property
    def gap(self) -> float:
        return abs(self.judge_value - self.person_value)


def disagreements(
    store: Store, reads: Reads, *, judge: str, version: str, scale: tuple[float, float]
) -> list[Disagreement]:
    """The dev split's disagreements of the judge at the version, worst (largest gap) first."""
    mine = {
        r.response_id: r for r in reads.judges if r.judge == judge and r.rubric_version == version
    }
    labels = _labels(scale, reads)
    pairs = [
        (mine[p.response_id], p)
        for p in reads.people
        if reads.sides.get(p.response_id) == DEV
        and p.response_id in mine
        and agreement_ci.snap([mine[p.response_id].value], labels)[0]
        != agreement_ci.snap([p.value], labels)[0]
    ]
    with store.connection() as con:
        texts = {t.response_id: t for t in sql.response_texts(con, sorted(mine))}
    found = [
        Disagreement(
            r.response_id,
            texts[r.response_id].item_id,
            texts[r.response_id].system,
            texts[r.response_id].question,
            texts[r.response_id].answer,
            r.value,
            r.explanation,
            p.rater,
            p.value,
            p.comment,
            p.rating_id,
        )
        for r, p in pairs
        if r.response_id in texts
    ]
    return sorted(found, key=lambda d: (-d.gap, d.response_id, d.person))


def explained(
    store: Store, *, rubric: str, judge: str, pairs: Sequence[tuple[str, str, float, float]]
) -> list[Disagreement]:
    """Compared pairs from elsewhere (Calibration's confusion cells: response, person, the
    judge's rating, the person's) as disagreement rows: the question and answer, the judge's
    current explanation (none for the panel, a mean of judges) and the person's comment."""
    ids = sorted({p[0] for p in pairs})
    with store.connection() as con:
        texts = {t.response_id: t for t in sql.response_texts(con, ids)}
        notes = sql.current_notes(con, rubric=rubric, judge=judge, response_ids=ids)
    said = {n.response_id: n.explanation for n in notes if n.rater_kind == "llm"}
    people = {(n.response_id, n.rater): n for n in notes if n.rater_kind == "human"}
    found = []
    for response_id, person, judge_value, person_value in pairs:
        text, note = texts.get(response_id), people.get((response_id, person))
        if text is None:
            continue
        found.append(
            Disagreement(
                response_id,
                text.item_id,
                text.system,
                text.question,
                text.answer,
                judge_value,
                said.get(response_id),
                person,
                person_value,
                note.comment if note else None,
                note.rating_id if note else "",
            )
        )
    return sorted(found, key=lambda d: (-d.gap, d.response_id, d.person))
