"""Tags, an error taxonomy: each tag's share of an answer's labels per system, with its
bootstrap 95% interval and n (the people's current tag labels of the system's answers; a
person saving an answer in a campaign labels each of its tags, ticked or not)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

from dashboard.campaigns import tags_sql as sql
from dashboard.ids import new_id
from dashboard.store import Store
from dashboard.types import TagLabel
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


def undone_tags(
    store: Store,
    *,
    response_id: str,
    person: str,
    campaign: str,
    saved_utc: datetime,
    at: datetime,
    withdraw: bool = False,
) -> list[TagLabel]:
    """The rows that take back the tags one save wrote (the save's rating time `saved_utc`),
    written at `at`: each tag back to the row the save superseded, else withdrawn (a first
    save's); with `withdraw`, each withdrawn (Withdraw takes the save back, not to the one
    before it). Only the save's own rows that are still current are taken back: a tag a
    later save wrote, or an earlier save's row the save did not replace, stays as it is."""
    with store.connection() as con:
        saved = sql.saved_tags(
            con, response_id=response_id, person=person, campaign=campaign, created_utc=saved_utc
        )
        named = sorted({t.supersedes for t in saved if t.supersedes and not withdraw})
        before = {t.tag_id: t for t in sql.tag_rows(con, named)} if named else {}
    found = []
    for row in saved:
        earlier = before.get(row.supersedes or "")
        base = earlier or dataclasses.replace(row, ticked=False, withdrawn=True)
        found.append(
            dataclasses.replace(
                base, tag_id=new_id(), created_utc=at, supersedes=row.tag_id, source="page"
            )
        )
    return found
