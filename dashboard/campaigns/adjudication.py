"""Adjudication: the answers a campaign's people disagree on go to a reviewer, who sets the
adjudicated label.

An answer is in the campaign's review queue when two or more people labelled it and their
labels' range (highest minus lowest, on the rubric's scale) is above the campaign's
`review_spread` (0: any disagreement, as a pass/fail campaign wants). A reviewer (or an
admin) sees each person's label and comment and sets the adjudicated label; it is stored
with its reviewer, time, reason and the labels as they stood (`adjudication_sql.py`), and
people's own labels stay as they are. Calibration can take adjudicated labels as the
people's reference (`human_reference` "adjudicated").
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass

from dashboard.auth.roles import require_admin, require_reviewer
from dashboard.auth.users import User
from dashboard.campaigns import adjudication_sql as sql, campaigns_sql
from dashboard.campaigns.adjudication_sql import Adjudication, ReviewLabel
from dashboard.campaigns.campaigns import CampaignError
from dashboard.ids import new_id, utc_now
from dashboard.store import Store, transaction
from dashboard.store.connection import Connection


@dataclass(frozen=True)
class ReviewItem:
    """An answer of the campaign its people disagree on beyond the threshold."""

    response_id: str
    labels: tuple[ReviewLabel, ...]
    adjudication: Adjudication | None  # the current one (None: not adjudicated yet)

    @property
    def spread(self) -> float:
        values = [label.value for label in self.labels]
        return max(values) - min(values)

    @property
    def scale(self) -> tuple[float, float]:
        return self.labels[0].scale_low, self.labels[0].scale_high


@dataclass(frozen=True)
class ReviewQueue:
    campaign: str
    rubric: str
    review_spread: float
    items: tuple[ReviewItem, ...]  # not adjudicated first, then by spread, widest first

    @property
    def n_open(self) -> int:
        return sum(1 for item in self.items if item.adjudication is None)


def _campaign(con: Connection, name: str) -> campaigns_sql.Campaign:
    found = campaigns_sql.get_campaign(con, name)
    if found is None:
        raise CampaignError(f"No campaign is named {name!r}.")
    return found


def _queue(con: Connection, campaign: campaigns_sql.Campaign) -> tuple[ReviewItem, ...]:
    labels: dict[str, list[ReviewLabel]] = defaultdict(list)
    for label in sql.review_labels(con, campaign.name, campaign.rubric):
        labels[label.response_id].append(label)
    done = {a.response_id: a for a in sql.current_adjudications(con, campaign.name)}
    found = [
        ReviewItem(response_id, tuple(rows), done.get(response_id))
        for response_id, rows in labels.items()
        if len(rows) >= 2
    ]
    kept = [item for item in found if item.spread > campaign.review_spread]
    return tuple(sorted(kept, key=lambda i: (i.adjudication is not None, -i.spread, i.response_id)))


def review_queue(store: Store, name: str, *, actor: User | None = None) -> ReviewQueue:
    """The campaign's answers to adjudicate, with each person's label and comment: a
    reviewer's or an admin's to see (`actor`), since it shows everyone's labels."""
    require_reviewer(actor, "see the review queue (everyone's labels)")
    with store.connection() as con:
        campaign = _campaign(con, name)
        items = _queue(con, campaign)
    return ReviewQueue(name, campaign.rubric, campaign.review_spread, items)


def adjudicate(
    store: Store,
    name: str,
    response_id: str,
    value: float,
    *,
    reviewer: str | None = None,
    reason: str | None = None,
    actor: User | None = None,
) -> Adjudication:
    """Set the adjudicated label of an answer in the campaign's review queue (a reviewer's or
    an admin's: `actor`; with no sign-in, `reviewer` names who). A later adjudication of the
    same answer supersedes this one; people's labels are never changed."""
    require_reviewer(actor, "adjudicate")
    who = (actor.name if actor else (reviewer or "")).strip()
    if not who:
        raise CampaignError(
            "Type your name in the sidebar first: an adjudication names its reviewer."
        )
    with store.write_lock, store.connection() as con, transaction(con):
        campaign = _campaign(con, name)
        item = next((i for i in _queue(con, campaign) if i.response_id == response_id), None)
        if item is None:
            raise CampaignError(
                f"Answer {response_id} is not in campaign {name}'s review queue: it needs two "
                f"or more labels that differ by more than {campaign.review_spread:g}."
            )
        low, high = item.scale
        if not low <= value <= high:
            raise CampaignError(
                f"{value:g} is off the scale; give a label from {low:g} to {high:g}."
            )
        seen = [{"rater": x.rater, "value": x.value, "comment": x.comment} for x in item.labels]
        row = Adjudication(
            new_id(),
            name,
            response_id,
            campaign.rubric,
            float(value),
            who,
            (reason or "").strip() or None,
            json.dumps(seen),
            item.adjudication.adjudication_id if item.adjudication else None,
            utc_now(),
        )
        sql.add_adjudication(con, row)
    return row


def set_review_spread(store: Store, name: str, spread: float, *, actor: User | None = None) -> None:
    """Change the campaign's threshold (an admin's): answers whose labels differ by more than
    `spread` go to review."""
    require_admin(actor, "change a campaign's review threshold")
    if spread < 0:
        raise CampaignError("The review threshold cannot be below zero.")
    with store.write_lock, store.connection() as con, transaction(con):
        _campaign(con, name)
        campaigns_sql.set_review_spread(con, name, float(spread))
