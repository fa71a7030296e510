"""A search over few-shot sets on dev (docs/judge-qa.md, "Propose"): candidate sets of
people's dev labels, drawn with a seed, each saved as a draft version of the parent with its
examples, the judge run on the dev answers under each (cached calls are not made again), and
each scored on dev with its own examples left out. Best first; no look at the test split.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from dashboard.auth.roles import User, require_admin
from dashboard.judging import BackgroundLoop, Panel
from dashboard.judging.rubrics import RubricError
from dashboard.store import Store
from dashboard.workbench import lab, propose, versions
from dashboard.workbench.agreement import VersionScore
from dashboard.workbench.versions import RubricVersion

AUTHOR = "search:few-shot"


@dataclass(frozen=True)
class ShotSet:
    version: RubricVersion
    example_ids: tuple[str, ...]
    dev: VersionScore | None  # None: no dev label left to score it on


def draw_sets(
    label_ids: dict[str, str], *, n_sets: int, k: int, seed: int
) -> list[tuple[str, ...]]:
    """`n_sets` distinct sets of `k` rating ids (one per response) from `label_ids`
    (rating id -> response id), drawn with `seed`."""
    by_response: dict[str, str] = {}
    for rating_id, response_id in sorted(label_ids.items()):
        by_response.setdefault(response_id, rating_id)
    pool = sorted(by_response.values())
    if len(pool) < k:
        raise RubricError(f"{len(pool)} dev responses are labelled: too few for sets of {k}")
    rng = random.Random(seed)
    found: list[tuple[str, ...]] = []
    for _ in range(n_sets * 20):
        drawn = tuple(sorted(rng.sample(pool, k)))
        if drawn not in found:
            found.append(drawn)
        if len(found) == n_sets:
            break
    return found


def _rank(s: ShotSet) -> tuple[float, float]:
    if s.dev is None:
        return (math.inf, math.inf)
    kappa, exact = s.dev.kappa_quadratic.value, s.dev.exact.value
    return (-kappa if not math.isnan(kappa) else math.inf, -exact if not math.isnan(exact) else 0)


def search_few_shot(
    store: Store,
    *,
    rubric: str,
    dataset: str,
    judge: str,
    judges: str | Panel,
    version: str,
    n_sets: int = 4,
    k: int = 3,
    seed: int = 0,
    loop: BackgroundLoop | None = None,
    actor: User | None = None,
) -> list[ShotSet]:
    """Candidate few-shot sets for `version`, each scored on dev, best (quadratic kappa,
    then exact agreement) first. Paid judge calls: an admin's."""
    require_admin(actor, "search few-shot sets (paid judge calls)")
    if not 1 <= k <= versions.MAX_EXAMPLES:
        raise ValueError(f"a set holds 1 to {versions.MAX_EXAMPLES} examples, not {k}")
    root = versions.list_versions(store, rubric)[0].rubric
    dev = lab.dev_labels(store, rubric=root.name, dataset=dataset)
    allowed = {e.rating_id: e.response_id for e in dev}
    saved = [
        versions.save_version(
            store,
            rubric,
            parent=version,
            changes={},
            example_ids=ids,
            allowed_examples=list(allowed),
            author=AUTHOR,
            actor=actor,
            note=f"few-shot set {i} of {n_sets}, seed {seed}",
        )
        for i, ids in enumerate(draw_sets(allowed, n_sets=n_sets, k=k, seed=seed), 1)
    ]
    scores = propose.score_on_dev(
        store,
        rubric=rubric,
        dataset=dataset,
        judge=judge,
        judges=judges,
        version_names=[v.version for v in saved],
        loop=loop,
        actor=actor,
    )
    by_version = {s.version: s for s in scores}
    found = [
        ShotSet(v, tuple(e.rating_id for e in v.rubric.examples), by_version.get(v.version))
        for v in saved
    ]
    return sorted(found, key=_rank)
