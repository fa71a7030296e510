"""Labelling campaigns: a named set of responses, each to be labelled by `overlap` people.

A campaign's responses are chosen once, when it is created: a seeded random sample of the
size asked for (a simple random sample: the first `size` responses of a seeded random order
of every response the rubric applies to), or the first `size` by a rule (worst first, most
judge disagreement), which is a targeted pick. Each label given in the campaign records the
campaign's name and that selection.

Each person has their own queue: the response they hold, else the first one in the
campaign's order that they have not labelled and that fewer than `overlap` other people
labelled or hold. Taking a response holds it for that person for `hold_minutes`; an expired
hold frees it for others. On a file store the choice and the hold are one transaction under
the store's write lock, so two sessions of one server never take the same response beyond
`overlap`. On a PostgreSQL store, where processes on several machines write at once, a take
and a save's check run as PostgreSQL's own SQL under row locks on the answer's rows
(`takes.py`): two takers pass over each other, and the takes and saves of one answer take
turns.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from dashboard.auth.roles import require_admin
from dashboard.auth.users import User
from dashboard.campaigns import campaigns_sql as sql, rules, rules_sql
from dashboard.campaigns.campaigns_sql import Assignment, Campaign as Campaign, PersonCount
from dashboard.ids import utc_now
from dashboard.judging.rubrics import Rubric
from dashboard.store import Store, transaction
from dashboard.store.connection import Connection

if TYPE_CHECKING:
    from dashboard.campaigns.takes import Turn

RULES: dict[str, str] = {
    "random": "Random sample (seeded)",
    "worst": "Worst first (targeted)",
    "disagreement": "Most judge disagreement (targeted)",
}
DEFAULT_HOLD_MINUTES = 30.0


class CampaignError(ValueError):
    """A campaign that cannot be created or used; the message says what to change."""


@dataclass(frozen=True)
class Progress:
    """How far a campaign is: `n_done` of its `n_items` responses have `overlap` labels."""

    campaign: Campaign
    n_items: int
    n_done: int
    n_labels: int
    people: tuple[PersonCount, ...]

    @property
    def n_wanted(self) -> int:
        return self.n_items * self.campaign.overlap


def create_campaign(
    store: Store,
    name: str,
    rubric: Rubric,
    *,
    dataset: str | None,
    rule: str,
    size: int,
    seed: int = 0,
    overlap: int = 1,
    hold_minutes: float = DEFAULT_HOLD_MINUTES,
    created_by: str | None = None,
    actor: User | None = None,
    instructions: str | None = None,
    point_notes: Mapping[str, str] | None = None,
    tags: Sequence[CampaignTag] = (),
    review_spread: float = 0.0,
    rule_filter: rules.CampaignFilter | None = None,
    questions: Sequence[Rubric] = (),
) -> Progress:
    """Create a campaign and choose its responses; refuses a name in use or an empty set, and
    a signed-in labeller (`actor`). `instructions` (Markdown) and `point_notes` (what each
    point of the rubric's scale means here, by point: {"1": "wrong"}) are shown to people;
    answers whose labels differ by more than `review_spread` go to review (`adjudication`).
    With `rule_filter`, a rule fills it: the matching answers now, up to `size`, and those
    that arrive later (`rules.fill_all`); it may start empty. `questions`: further rubrics
    asked about each answer in the same pass (a 0 to 1 scale is a pass/fail check)."""
    require_admin(actor, "create campaigns")
    name = (name or "").strip()
    if not name:
        raise CampaignError("Give the campaign a name.")
    if rule not in RULES:
        raise CampaignError(f"Unknown rule {rule!r}; use one of {', '.join(RULES)}.")
    if size < 1 or overlap < 1 or hold_minutes <= 0:
        raise CampaignError("The size, the overlap and the hold must all be above zero.")
    if review_spread < 0:
        raise CampaignError("The review threshold cannot be below zero.")
    if rubric.is_pairwise or rubric.scale_low is None:
        raise CampaignError(f"The rubric {rubric.name} has no scale to rate on.")
    campaign = Campaign(
        name,
        rubric.name,
        dataset,
        rule,
        size,
        seed,
        overlap,
        hold_minutes,
        0,
        created_by,
        instructions=(instructions or "").strip() or None,
        point_notes=_notes_json(rubric, point_notes),
        tags=_tags_json(tags),
        review_spread=float(review_spread),
        filter=rules.filter_json(rule_filter) if rule_filter is not None else None,
        questions=_questions_json(rubric, questions),
    )
    with store.write_lock, store.connection() as con, transaction(con):
        if sql.get_campaign(con, name) is not None:
            raise CampaignError(f"A campaign named {name!r} exists already; pick another name.")
        stamped = Campaign(**{**campaign.__dict__, "created_utc": utc_now()})
        chosen, _ = sql.insert_campaign(con, stamped, task_types=list(rubric.task_types) or None)
        if rule_filter is not None:
            rules.fill_in(con, stamped)
        elif chosen == 0:
            raise CampaignError("No response matches this rubric and dataset: nothing to label.")
    return progress(store, name)


@dataclass(frozen=True)
class CampaignTag:
    """A tag people may tick on an answer of the campaign ("hallucination"), with what it
    means there."""

    name: str
    description: str = ""


def _questions_json(rubric: Rubric, questions: Sequence[Rubric]) -> str | None:
    names = [q.name for q in questions]
    if rubric.name in names or len(set(names)) != len(names):
        raise CampaignError("Ask each rubric once: the further questions repeat a rubric.")
    for question in questions:
        if question.is_pairwise or question.scale_low is None:
            raise CampaignError(f"The rubric {question.name} has no scale to rate on.")
    return json.dumps(names) if names else None


def rubric_names(campaign: Campaign) -> list[str]:
    """The rubrics the campaign asks about each answer: its own first, then its further
    questions in the order its admin gave them."""
    more = json.loads(campaign.questions) if campaign.questions else []
    return [campaign.rubric, *more]


def _tags_json(tags: Sequence[CampaignTag]) -> str | None:
    names = [t.name.strip() for t in tags]
    if any(not n for n in names) or len(set(names)) != len(names):
        raise CampaignError("Each tag needs a name of its own.")
    found = [{"name": t.name.strip(), "description": t.description.strip()} for t in tags]
    return json.dumps(found) if found else None


def parse_tags(text: str) -> list[CampaignTag]:
    """Lines "hallucination: a fact not in the context" as tags (the description optional)."""
    found = []
    for line in text.splitlines():
        name, _, description = line.partition(":")
        if name.strip():
            found.append(CampaignTag(name.strip(), description.strip()))
    return found


def tags_of(campaign: Campaign) -> list[CampaignTag]:
    """The campaign's tags, in the order its admin gave them."""
    return [CampaignTag(**t) for t in json.loads(campaign.tags)] if campaign.tags else []


def _notes_json(rubric: Rubric, notes: Mapping[str, str] | None) -> str | None:
    """The point notes as stored, checked against the rubric's scale."""
    kept = {str(k).strip(): str(v).strip() for k, v in (notes or {}).items() if str(v).strip()}
    if rubric.scale_low is None or rubric.scale_high is None:
        return None
    points = [f"{p:g}" for p in range(int(rubric.scale_low), int(rubric.scale_high) + 1)]
    wrong = sorted(set(kept) - set(points))
    if wrong:
        raise CampaignError(
            f"No point {', '.join(wrong)} on the {rubric.name} scale; describe points among "
            f"{', '.join(points)}."
        )
    return json.dumps({p: kept[p] for p in points if p in kept}) if kept else None


def parse_point_notes(text: str) -> dict[str, str]:
    """Lines "4: helpful, one small gap" as {"4": "helpful, one small gap"}; a line without a
    colon is refused, naming it."""
    found: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        point, colon, note = line.partition(":")
        if not colon or not point.strip():
            raise CampaignError(f"Line {number}: write a point, a colon, then what it means.")
        key = point.strip()
        try:
            key = f"{float(key):g}"
        except ValueError:
            raise CampaignError(f"Line {number}: {key!r} is not a point of the scale.") from None
        found[key] = note.strip()
    return found


def point_notes(campaign: Campaign) -> dict[str, str]:
    """What each point of the scale means in the campaign, by point ("4")."""
    return dict(json.loads(campaign.point_notes)) if campaign.point_notes else {}


def find_campaign(store: Store, name: str) -> Campaign | None:
    with store.connection() as con:
        return sql.get_campaign(con, name)


def set_instructions(
    store: Store,
    name: str,
    rubric: Rubric,
    *,
    instructions: str | None,
    point_notes: Mapping[str, str] | None = None,
    actor: User | None = None,
) -> None:
    """Replace a campaign's instructions and point notes (an admin's)."""
    require_admin(actor, "edit a campaign's instructions")
    notes = _notes_json(rubric, point_notes)
    with store.write_lock, store.connection() as con, transaction(con):
        _campaign(con, name)
        text = (instructions or "").strip() or None
        sql.set_instructions(con, name, instructions=text, point_notes=notes)


def list_campaigns(store: Store, rubric: str | None = None) -> list[Campaign]:
    """Every campaign (of `rubric`, when given), newest first."""
    with store.connection() as con:
        return sql.list_campaigns(con, rubric)


def _campaign(con: Connection, name: str) -> Campaign:
    found = sql.get_campaign(con, name)
    if found is None:
        raise CampaignError(f"No campaign is named {name!r}.")
    return found


def assign(
    store: Store,
    name: str,
    person: str,
    *,
    skipped: Sequence[str] = (),
    only_mine: bool = False,
) -> Assignment | None:
    """The response `person` labels next in the campaign, now held for them (None: nothing
    left for them): the answers assigned to them come first (with `only_mine`, alone).
    Skipped responses (this session's, and those they skipped before) are passed over."""
    now = utc_now()
    if store.on_server:
        from dashboard.campaigns import takes  # psycopg: only on a PostgreSQL store

        found_campaign = takes.find_campaign(store, name)
        if found_campaign is None:
            raise CampaignError(f"No campaign is named {name!r}.")
        return takes.take(
            store, found_campaign, person, now=now, skipped=list(skipped), only_mine=only_mine
        )
    with store.write_lock, store.connection() as con, transaction(con):
        campaign = _campaign(con, name)
        found = sql.next_assignment(
            con, campaign, person, now=now, skipped=list(skipped), only_mine=only_mine
        )
        if found is not None and not found.held_by_me:
            expires = now + timedelta(minutes=campaign.hold_minutes)
            sql.add_hold(con, name, found.response_id, person, at=now, expires=expires)
        return found


@contextmanager
def label_turn(store: Store, name: str, response_id: str) -> Iterator[Turn | None]:
    """The block saves a label of `response_id` in the campaign: pass what it yields to
    `label_refusal`. On a PostgreSQL store, the check locks the answer's rows until the block
    ends, after the label's write committed, so that no take or save of the answer runs
    meanwhile (`takes.py`). A file store's writers already take turns on the file: None."""
    if not store.on_server:
        yield None
        return
    from dashboard.campaigns import takes  # psycopg: only on a PostgreSQL store

    with takes.saving(store, name, response_id) as turn:
        yield turn


def release(store: Store, name: str, response_id: str, person: str) -> None:
    """End `person`'s hold on a response (a skip), so that someone else may take it; the
    skip is kept, so their queue does not serve it again and a rule never adds it back."""
    now = utc_now()
    with store.write_lock, store.connection() as con, transaction(con):
        sql.add_hold(con, name, response_id, person, at=now, expires=now)
        rules_sql.add_removal(con, name, response_id, person, kind="skip", at=now)


def label_refusal(
    con: Connection, name: str, response_id: str, person: str, *, turn: Turn | None = None
) -> str | None:
    """Why `person` may not save a label of `response_id` in the campaign now, in words (None:
    they may). Overlap is a hard limit: a label is taken only from someone who holds the
    answer, or who edits their own label of it, and never beyond `overlap` people. Called in
    the transaction that writes the label, inside `label_turn` (its `turn`), so two saves
    cannot both pass."""
    if turn is not None:
        campaign, slot = turn.slot(person)
    else:
        now = utc_now()
        campaign = sql.get_campaign(con, name)
        slot = (
            None
            if campaign is None
            else sql.label_slot(con, campaign, response_id, person, now=now)
        )
    if campaign is None or slot is None:
        return f"No campaign is named {name!r} any more, so the label was not saved."
    if not slot.in_campaign:
        return f"This answer is not one of campaign {name}'s, so it was not saved in it."
    if slot.labelled_by_me:
        return None  # an edit of one's own label
    if slot.others >= campaign.overlap:
        return (
            f"This answer already has its {campaign.overlap} label(s) or holder(s) in campaign "
            f"{name}, so yours was not saved. Here is the next answer."
        )
    if not slot.held_by_me:
        return (
            f"Your hold on this answer ended (after {campaign.hold_minutes:g} minutes, or when "
            "you skipped it), so your label was not saved. Here is the next answer."
        )
    return None


def release_after_save(con: Connection, name: str, response_id: str, person: str) -> None:
    """The person's hold ends with their label (the label counts towards overlap now)."""
    now = utc_now()
    sql.add_hold(con, name, response_id, person, at=now, expires=now)


def campaign_item(store: Store, name: str, response_id: str) -> Assignment | None:
    """How one of the campaign's responses was chosen (None: not one of its responses)."""
    with store.connection() as con:
        return sql.item_of(con, name, response_id)


def progress(store: Store, name: str) -> Progress:
    """Labels per person, and how many responses have all their `overlap` labels."""
    with store.connection() as con:
        campaign = _campaign(con, name)
        labels = sql.campaign_labels(con, campaign)
        people = sql.person_counts(con, campaign)
        n_items = sql.count_items(con, name)
    per_item: dict[str, int] = {}
    for label in labels:
        per_item[label.response_id] = per_item.get(label.response_id, 0) + 1
    n_done = sum(1 for n in per_item.values() if n >= campaign.overlap)
    return Progress(campaign, n_items, n_done, len(labels), tuple(people))
