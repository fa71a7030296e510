"""Tags, an error taxonomy: each tag's share of an answer's labels per system, with its
bootstrap 95% interval and n (the people's current tag labels of the system's answers; a
person saving an answer in a campaign labels each of its tags, ticked or not)."""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.campaigns import tags_sql as sql
from dashboard.store import Store
from scoring.stats import bootstrap_mean_ci_from_counts


@dataclass(frozen=True)
class TagShare:
    """The share of a system's tag labels that tick the tag, [low, high] its 95% interval."""

    campaign: str
    tag: str
    system: str
    share: float
    low: float
    high: float
    n: int


def tag_shares(
    store: Store, *, dataset: str | None = None, systems: tuple[str, ...] | None = None
) -> list[TagShare]:
    """Each campaign tag's share per system (systems without a tag label are left out)."""
    with store.connection() as con:
        counts = sql.tag_counts(con, dataset=dataset, systems=systems)
    found = []
    for c in counts:
        ci = bootstrap_mean_ci_from_counts([1.0, 0.0], [c.n_ticked, c.n - c.n_ticked])
        found.append(TagShare(c.campaign, c.tag, c.system, ci.estimate, ci.low, ci.high, c.n))
    return found


def ticked_by(store: Store, response_id: str, person: str, campaign: str) -> frozenset[str]:
    """The tags `person` currently ticks on the answer: what their form shows when reopened."""
    with store.connection() as con:
        found = sql.ticked_by(con, response_id=response_id, person=person, campaign=campaign)
    return frozenset(found)
