"""Rules that keep a campaign filled: a saved filter whose matching answers join the campaign
as they arrive.

A rule-filled campaign stores its filter (`CampaignFilter`, as JSON in `campaigns.filter`).
It is filled when it is created and again after every import and every judge run (`fill_all`,
called where those finish), up to its `size`. Scores are normalized onto [0, 1] as on the
Failures page: the judges' panel score, the judges' spread (highest minus lowest), the gap
between the panel and the people's mean. An answer the campaign holds, held, that a person
skipped in it or that an admin removed from it is never added again (`campaign_removals`).
Answers a rule adds are a targeted pick (`selection` "targeted"), lowest panel score first.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass

from dashboard.auth.roles import require_admin
from dashboard.auth.users import User
from dashboard.campaigns import campaigns_sql, rules_sql
from dashboard.campaigns.campaigns_sql import Campaign
from dashboard.campaigns.rules_sql import CampaignAnswer as CampaignAnswer
from dashboard.ids import utc_now
from dashboard.judging.rubrics import list_rubrics
from dashboard.store import Store, StoreError, transaction
from dashboard.store.connection import Connection

log = logging.getLogger(__name__)
DISAGREEMENTS: dict[str, str] = {
    "judges": "the judges disagree",
    "people": "the judges and the people disagree",
}


@dataclass(frozen=True)
class CampaignFilter:
    """Which answers a rule adds (every condition given must hold). `dataset` is the
    campaign's own; scores and `threshold` are on [0, 1]."""

    system: str | None = None
    score_low: float | None = None  # the judges' panel score, at least
    score_high: float | None = None  # and at most
    disagree: str | None = None  # "judges" (spread) or "people" (|panel - people|)
    threshold: float = 0.25  # how far apart counts as disagreeing
    tag: str | None = None  # a person ticked this tag
    unlabelled: bool = False  # no person's label yet on the campaign's rubric

    def describe(self) -> str:
        """The filter in words, for the Campaigns page."""
        parts = [f"system {self.system}"] if self.system else []
        if self.score_low is not None or self.score_high is not None:
            low = 0.0 if self.score_low is None else self.score_low
            high = 1.0 if self.score_high is None else self.score_high
            parts.append(f"judge score {low:g}–{high:g}")
        if self.disagree:
            parts.append(f"{DISAGREEMENTS[self.disagree]} by {self.threshold:g} or more")
        if self.tag:
            parts.append(f"tagged {self.tag}")
        if self.unlabelled:
            parts.append("not yet labelled")
        return ", ".join(parts) or "every answer"


class RuleError(ValueError):
    """A filter that cannot be saved; the message says what to change."""


def check_filter(found: CampaignFilter) -> CampaignFilter:
    """The filter, or `RuleError` naming its field."""
    for name in ("score_low", "score_high", "threshold"):
        value = getattr(found, name)
        if value is not None and not 0.0 <= value <= 1.0:
            raise RuleError(f"{name} is {value:g}; scores are on 0 to 1 (normalized).")
    if (
        found.score_low is not None
        and found.score_high is not None
        and found.score_low > found.score_high
    ):
        raise RuleError("score_low is above score_high: no answer could match.")
    if found.disagree is not None and found.disagree not in DISAGREEMENTS:
        raise RuleError(f"disagree is {found.disagree!r}; use one of {', '.join(DISAGREEMENTS)}.")
    return found


def filter_json(found: CampaignFilter) -> str:
    return json.dumps(asdict(check_filter(found)), sort_keys=True)


def filter_of(campaign: Campaign) -> CampaignFilter | None:
    """A rule-filled campaign's filter (None: its answers were chosen once)."""
    return CampaignFilter(**json.loads(campaign.filter)) if campaign.filter else None


def _params(campaign: Campaign, found: CampaignFilter) -> dict[str, object]:
    rubric = next((r for r in list_rubrics() if r.name == campaign.rubric), None)
    return {
        "rubric": campaign.rubric,
        "dataset": campaign.dataset,
        "system": found.system,
        "judge": None,
        "task_types": (list(rubric.task_types) or None) if rubric else None,
        "pattern": None,
        "annotator": None,
        "panel_judges": None,
        "panel_versions": None,
        "score_low": found.score_low,
        "score_high": found.score_high,
        "disagree": found.disagree,
        "threshold": found.threshold,
        "tag": found.tag,
        "unlabelled": found.unlabelled,
    }


def fill_in(con: Connection, campaign: Campaign) -> int:
    """Add the answers the campaign's rule matches now, up to its size; how many were added.
    Runs in the caller's transaction, under the store's write lock."""
    found = filter_of(campaign)
    if found is None:
        return 0
    room = campaign.size - campaigns_sql.count_items(con, campaign.name)
    if room <= 0:
        return 0
    return rules_sql.add_matches(con, campaign.name, _params(campaign, found), room=room)


def fill_all(store: Store) -> dict[str, int]:
    """Fill every rule-filled campaign (after an import or a judge run): {name: added}, for
    the campaigns that grew."""
    grown: dict[str, int] = {}
    with store.write_lock, store.connection() as con, transaction(con):
        for name, _ in rules_sql.rule_campaigns(con):
            campaign = campaigns_sql.get_campaign(con, name)
            if campaign is not None:
                added = fill_in(con, campaign)
                if added:
                    grown[name] = added
    if grown:
        log.info("rule-filled campaigns grew: %s", grown)
    return grown


def fill_after_run(store: Store) -> None:
    """`fill_all` after a judge run: a busy or broken database only logs (the run's ratings
    are saved already)."""
    try:
        fill_all(store)
    except StoreError as error:
        log.warning("rule-filled campaigns were not filled after the run: %s", error)


def remove_answer(
    store: Store, name: str, response_id: str, *, actor: User | None, by: str
) -> bool:
    """Take an answer out of a campaign for good (an admin's): its rule never adds it back.
    False when it was not one of the campaign's answers."""
    require_admin(actor, "remove answers from a campaign")
    with store.write_lock, store.connection() as con, transaction(con):
        dropped = rules_sql.drop_item(con, name, response_id)
        if dropped:
            rules_sql.add_removal(con, name, response_id, by, kind="remove", at=utc_now())
        return dropped


def list_answers(store: Store, name: str) -> list[CampaignAnswer]:
    """The campaign's answers in its order (what an admin may remove), with their system and
    question."""
    with store.connection() as con:
        return rules_sql.list_items(con, name)
