"""The judge workbench's actions, as the Judge lab page and `judgeboard align` call them:
every scoring on the test split goes through here and is recorded as a look."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dashboard.auth.roles import User, require_admin
from dashboard.judging.rubrics import FewShotExample, Rubric, RubricError
from dashboard.store import Store
from dashboard.workbench import agreement, cards, split, versions
from dashboard.workbench.agreement import Comparison, Disagreement, VersionScore
from dashboard.workbench.cards import JudgeCard
from dashboard.workbench.split import DEV, TEST, Split
from dashboard.workbench.versions import RubricVersion

PASS_FAIL_RUBRICS = ("pass-fail",)


@dataclass(frozen=True)
class LabState:
    """What the Judge lab shows before any look: the split, the versions, the adoptions."""

    rubric: Rubric
    dataset: str
    split: Split
    versions: tuple[RubricVersion, ...]
    cards: tuple[JudgeCard, ...]  # each judge's adoption in force on the dataset
    looks: Mapping[str, int]  # judge -> looks at test since its own latest adoption here
    judges: tuple[str, ...]  # judges that rated labelled responses with the rubric

    def looks_of(self, judge: str) -> int:
        """The looks at the test split spent on this judge since its latest adoption here
        (ever, when never adopted); other judges' looks and adoptions do not count."""
        return self.looks.get(judge, 0)

    @property
    def card(self) -> JudgeCard | None:
        """The dataset's latest adoption, whichever judge's (None: none yet)."""
        return max(self.cards, key=lambda c: c.adopted_utc, default=None)

    def card_of(self, judge: str) -> JudgeCard | None:
        """The judge's card: its adoption in force here (None: never adopted for it)."""
        return next((c for c in self.cards if c.judge == judge), None)

    def in_force(self, judge: str) -> str:
        """The judge's version in force: its adopted one, else the rubric file's. Another
        judge's adoption is a draft for this one."""
        card = self.card_of(judge)
        return card.version if card else self.versions[0].version


def _scale(rubric: Rubric) -> tuple[float, float]:
    if rubric.scale_low is None or rubric.scale_high is None:
        raise RubricError(f"{rubric.name} is pairwise: the workbench compares rating rubrics")
    return rubric.scale_low, rubric.scale_high


def state(store: Store, *, rubric: str, dataset: str) -> LabState:
    """Reads only: nothing is written, no look is spent."""
    found = versions.list_versions(store, rubric)
    root = found[0].rubric
    in_force = cards.dataset_cards(store, rubric=root.name, dataset=dataset)
    reads = agreement.read(store, rubric=root.name, dataset=dataset)
    return LabState(
        root,
        dataset,
        split.read_split(store, rubric=root.name, dataset=dataset),
        tuple(found),
        in_force,
        split.looks_by_judge(store, rubric=root.name, dataset=dataset),
        tuple(sorted({r.judge for r in reads.judges})),
    )


def baseline_version(store: Store, *, rubric: str, dataset: str, judge: str) -> str:
    """The judge's version in force: its adopted one, else the rubric file's."""
    root = versions.list_versions(store, rubric)[0].rubric
    card = cards.adopted(store, rubric=root.name, dataset=dataset, judge=judge)
    return card.version if card else root.version


def score_on(
    store: Store,
    *,
    rubric: str,
    dataset: str,
    judge: str,
    side: str,
    by: str | None = None,
    actor: User | None = None,
) -> list[VersionScore]:
    """Each version of the judge against people on `side`; a look at TEST is recorded per
    version scored (it spends this judge's count of looks: an admin's)."""
    require_admin(actor, "use the judge lab")
    root = versions.list_versions(store, rubric)[0].rubric
    split.record_split(store, rubric=root.name, dataset=dataset)
    reads = agreement.read(store, rubric=root.name, dataset=dataset, judge=judge)
    found = agreement.score_versions(reads, scale=_scale(root), side=side)
    if side == TEST:
        for score in found:
            split.record_look(
                store,
                rubric=root.name,
                dataset=dataset,
                judge=judge,
                version=score.version,
                purpose="agreement",
                by=by,
            )
    return found


def compare(
    store: Store,
    *,
    rubric: str,
    dataset: str,
    judge: str,
    candidate: str,
    baseline: str | None = None,
    by: str | None = None,
    actor: User | None = None,
) -> Comparison:
    """The candidate against the baseline (default: the version in force) on test, paired;
    one recorded look."""
    require_admin(actor, "use the judge lab")
    root = versions.list_versions(store, rubric)[0].rubric
    baseline = baseline or baseline_version(store, rubric=root.name, dataset=dataset, judge=judge)
    split.record_split(store, rubric=root.name, dataset=dataset)
    reads = agreement.read(store, rubric=root.name, dataset=dataset, judge=judge)
    found = agreement.compare(
        reads,
        judge=judge,
        candidate=candidate,
        baseline=baseline,
        scale=_scale(root),
        pass_fail=root.name in PASS_FAIL_RUBRICS,
    )
    split.record_look(
        store,
        rubric=root.name,
        dataset=dataset,
        judge=judge,
        version=candidate,
        purpose=f"compare with {baseline}",
        by=by,
    )
    return found


def adopt(
    store: Store,
    *,
    rubric: str,
    dataset: str,
    judge: str,
    version: str,
    by: str | None,
    reason: str | None,
    actor: User | None = None,
) -> JudgeCard:
    """Adopt the version for the panel on the dataset; its test-split numbers (one recorded
    look) become the judge card. It changes everyone's panel numbers: an admin's."""
    require_admin(actor, "adopt a judge version")
    root = versions.list_versions(store, rubric)[0].rubric
    split.record_split(store, rubric=root.name, dataset=dataset)
    reads = agreement.read(store, rubric=root.name, dataset=dataset, judge=judge)
    scores = [
        s
        for s in agreement.score_versions(reads, scale=_scale(root), side=TEST)
        if s.version == version
    ]
    if not scores:
        raise RubricError(
            f"{judge} has no rating under {rubric} version {version} on the test split of "
            f"{dataset}: run the version on the labelled answers first"
        )
    split.record_look(
        store,
        rubric=root.name,
        dataset=dataset,
        judge=judge,
        version=version,
        purpose="adopt",
        by=by,
    )
    return cards.save_adoption(
        store,
        rubric=root.name,
        dataset=dataset,
        judge=judge,
        version=version,
        numbers=cards.card_numbers(scores[0]),
        by=by,
        reason=reason,
    )


def dev_disagreements(
    store: Store,
    *,
    rubric: str,
    dataset: str,
    judge: str,
    version: str,
    actor: User | None = None,
) -> list[Disagreement]:
    """The dev split's disagreements, worst first (reads only: dev costs no look). They show
    each person's label and comment: an admin's to see."""
    require_admin(actor, "see which person gave which label")
    root = versions.list_versions(store, rubric)[0].rubric
    reads = agreement.read(store, rubric=root.name, dataset=dataset, judge=judge)
    return agreement.disagreements(store, reads, judge=judge, version=version, scale=_scale(root))


def cell_disagreements(
    store: Store,
    *,
    rubric: str,
    judge: str,
    pairs: Sequence[tuple[str, str, float, float]],
    actor: User | None = None,
) -> list[Disagreement]:
    """Calibration's confusion-cell pairs (response, person, judge's rating, person's) as the
    rows of the dev disagreements: question, answer, explanation, comment. An admin's to see."""
    require_admin(actor, "see which person gave which label")
    return agreement.explained(store, rubric=rubric, judge=judge, pairs=pairs)


def dev_label_ids(store: Store, *, rubric: str, dataset: str) -> list[str]:
    """The rating ids of people's dev labels: what few-shot examples are picked from."""
    return [e.rating_id for e in dev_labels(store, rubric=rubric, dataset=dataset)]


def dev_labels(store: Store, *, rubric: str, dataset: str) -> list[FewShotExample]:
    """People's dev labels with their question and answer, to pick examples from."""
    dev = split.read_split(store, rubric=rubric, dataset=dataset).ids(DEV)
    return versions.dev_labels(store, rubric, dev)


def draft(
    parent: RubricVersion, changes: Mapping[str, Any], examples: Sequence[FewShotExample]
) -> RubricVersion:
    """The edit as it would be saved (version "draft"), for its preview and diff; no write."""
    unknown = set(changes) - set(versions.EDITABLE)
    if unknown:
        raise RubricError(f"cannot edit {', '.join(sorted(unknown))}")
    rubric = dataclasses.replace(
        parent.rubric, **changes, version="draft", examples=tuple(examples)
    )
    return RubricVersion(rubric, parent.version, versions.prompt_hash(rubric))
