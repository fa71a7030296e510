"""The SQL of labelling campaigns: their items, who holds what, who labelled what.

A person's labels are read from `ratings` directly, not from the `current_ratings` view: only
people's rows of one rubric on the campaign's responses are read (a filter DuckDB applies
while scanning), and their `supersedes` chain is resolved among those few rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dashboard.review.failures_sql import SCORED
from dashboard.review.queue_sql import QUEUE_ORDERS
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch, fetch_one, scalar

# How a campaign chooses its responses, each a code constant of the queue's orders.
RULE_ORDERS: dict[str, str] = {
    "random": QUEUE_ORDERS["random"],
    "worst": QUEUE_ORDERS["worst"],
    "disagreement": QUEUE_ORDERS["disagreement"],
}


@dataclass(frozen=True)
class Campaign:
    """A named set of responses to rate on `rubric`, each by `overlap` different people."""

    name: str
    rubric: str
    dataset: str | None
    rule: str
    size: int
    seed: int
    overlap: int
    hold_minutes: float
    population: int
    created_by: str | None = None
    created_utc: datetime | None = None
    instructions: str | None = None  # Markdown, the admin's: shown beside every answer
    point_notes: str | None = None  # JSON {"<point>": "what it means in this campaign"}
    tags: str | None = None  # JSON [{"name": ..., "description": ...}]: its error taxonomy
    # Answers whose labels differ by more than this go to review (0: any disagreement).
    review_spread: float = 0.0
    filter: str | None = None  # JSON: a rule-filled campaign's saved filter (`rules.py`)
    # JSON ["eve-0-5", "pass-fail"]: the further rubrics asked with `rubric` (`questions.py`)
    questions: str | None = None


@dataclass(frozen=True)
class Assignment:
    """The response a person labels next in a campaign, with how it was chosen."""

    response_id: str
    position: int
    selection: str
    inclusion_probability: float | None
    held_by_me: bool


@dataclass(frozen=True)
class PersonCount:
    person: str
    n_labels: int


@dataclass(frozen=True)
class CampaignLabel:
    """One person's current scored rating of one of the campaign's responses."""

    response_id: str
    rater: str
    value: float


def _population_params(rubric: str, dataset: str | None, task_types: list[str] | None) -> dict:
    return {
        "rubric": rubric,
        "dataset": dataset,
        "system": None,
        "judge": None,
        "task_types": task_types,
        "pattern": None,
        "annotator": None,
        "panel_judges": None,  # worst first and disagreement by every judge's ratings
        "panel_versions": None,
    }


def insert_campaign(
    con: Connection, campaign: Campaign, *, task_types: list[str] | None
) -> tuple[int, int]:
    """Store the campaign and choose its responses by its rule; (chosen, population)."""
    params = _population_params(campaign.rubric, campaign.dataset, task_types)
    population = int(scalar(con.execute(f"SELECT count(*) FROM ({SCORED})", params)))
    con.execute(
        "INSERT INTO campaigns (name, rubric, dataset, rule, size, seed, overlap, hold_minutes, "
        "population, created_by, created_utc, instructions, point_notes, tags, review_spread, "
        "filter, questions) VALUES ($name, $rubric, $dataset, $rule, $size, $seed, $overlap, "
        "$hold, $population, $by, $at, $instructions, $point_notes, $tags, $review_spread, "
        "$filter, $questions)",
        {
            "name": campaign.name,
            "rubric": campaign.rubric,
            "dataset": campaign.dataset,
            "rule": campaign.rule,
            "size": campaign.size,
            "seed": campaign.seed,
            "overlap": campaign.overlap,
            "hold": campaign.hold_minutes,
            "population": population,
            "by": campaign.created_by,
            "at": campaign.created_utc,
            "instructions": campaign.instructions,
            "point_notes": campaign.point_notes,
            "tags": campaign.tags,
            "review_spread": campaign.review_spread,
            "filter": campaign.filter,
            "questions": campaign.questions,
        },
    )
    if campaign.filter is not None:
        return 0, population  # a rule fills it (`rules.fill`)
    # Every response is in (a census) when the size covers the population; a seeded random
    # order's first `size` responses are a simple random sample (uniform: no probability kept).
    census = campaign.size >= population
    selection = "census" if census else ("random" if campaign.rule == "random" else "targeted")
    con.execute(
        f"""
        INSERT INTO campaign_items
        SELECT $campaign, response_id, row_number() OVER () - 1, $selection, NULL
        FROM (SELECT response_id FROM ({SCORED})
              ORDER BY {RULE_ORDERS[campaign.rule]} LIMIT $size)""",
        {
            **params,
            **({"seed": str(campaign.seed)} if campaign.rule == "random" else {}),
            "campaign": campaign.name,
            "selection": selection,
            "size": campaign.size,
        },
    )
    chosen = int(
        scalar(
            con.execute("SELECT count(*) FROM campaign_items WHERE campaign = ?", [campaign.name])
        )
    )
    return chosen, population


def list_campaigns(con: Connection, rubric: str | None = None) -> list[Campaign]:
    return fetch(
        con.execute(
            "SELECT * FROM campaigns WHERE $rubric IS NULL OR rubric = $rubric "
            "ORDER BY created_utc DESC, name",
            {"rubric": rubric},
        ),
        Campaign,
    )


def set_instructions(
    con: Connection, name: str, *, instructions: str | None, point_notes: str | None
) -> None:
    con.execute(
        "UPDATE campaigns SET instructions = $instructions, point_notes = $notes "
        "WHERE name = $name",
        {"name": name, "instructions": instructions, "notes": point_notes},
    )


def set_review_spread(con: Connection, name: str, spread: float) -> None:
    con.execute(
        "UPDATE campaigns SET review_spread = $spread WHERE name = $name",
        {"name": name, "spread": spread},
    )


def get_campaign(con: Connection, name: str) -> Campaign | None:
    return fetch_one(con.execute("SELECT * FROM campaigns WHERE name = ?", [name]), Campaign)


# Who each answer of the campaign is assigned to now: its latest assignment row (a NULL
# person: unassigned).
ASSIGNED = """
    SELECT response_id, arg_max(person, created_utc) AS person
    FROM campaign_assignments WHERE campaign = $campaign GROUP BY response_id"""

# The campaign's current labels: people's rows on its responses under its rubric and with its
# name, minus the rows a later row supersedes; withdrawn rows (no value) drop out after that.
_LABELS = """
    WITH items AS (SELECT response_id, position, selection, inclusion_probability
                   FROM campaign_items WHERE campaign = $campaign),
    rows AS (
        SELECT rating_id, response_id, rater, value FROM ratings
        WHERE rater_kind = 'human' AND rubric = $rubric AND campaign = $campaign
          AND response_id IN (SELECT response_id FROM items)),
    labels AS (
        SELECT response_id, rater, value FROM rows
        WHERE rating_id NOT IN (
            SELECT supersedes FROM ratings
            WHERE supersedes IN (SELECT rating_id FROM rows))
          AND value IS NOT NULL)"""

LABELS = _LABELS  # for the campaign's other SQL (`assignment_sql`)

# The same current labels in PostgreSQL's own SQL (`takes_sql`, run through psycopg): the text
# above with its parameters spelt `%(name)s`; nothing else in it is DuckDB's own.
PG_LABELS = re.sub(r"\$(\w+)", r"%(\1)s", _LABELS)

_NEXT = f"""{_LABELS},
    latest AS (
        SELECT response_id, person, arg_max(expires_utc, held_utc) AS expires
        FROM campaign_holds WHERE campaign = $campaign GROUP BY response_id, person),
    busy AS (
        SELECT response_id, person FROM latest WHERE expires > $now
        UNION SELECT response_id, rater FROM labels),
    others AS (
        SELECT response_id, count(DISTINCT person) AS n FROM busy
        WHERE person <> $person GROUP BY response_id),
    assigned AS ({ASSIGNED})
    SELECT i.response_id, i.position, i.selection, i.inclusion_probability,
           i.response_id IN (SELECT response_id FROM latest
                             WHERE person = $person AND expires > $now) AS held_by_me
    FROM items i LEFT JOIN others o USING (response_id)
    LEFT JOIN assigned a USING (response_id)
    WHERE i.response_id NOT IN (SELECT response_id FROM labels WHERE rater = $person)
      AND NOT list_contains($skipped::VARCHAR[], i.response_id)
      AND i.response_id NOT IN (
          SELECT response_id FROM campaign_removals
          WHERE campaign = $campaign AND person = $person AND kind = 'skip')
      AND coalesce(o.n, 0) < $overlap
      -- an answer assigned to someone else is theirs to label; with $only_mine, only mine
      AND (a.person IS NULL AND NOT $only_mine OR a.person = $person)
    ORDER BY held_by_me DESC, a.person = $person DESC NULLS LAST, i.position
    LIMIT 1"""


def next_params(
    campaign: Campaign, person: str, *, now: datetime, skipped: list[str], only_mine: bool
) -> dict[str, Any]:
    """The parameters of `_NEXT` here and of `takes_sql`'s `NEXT`, `NEXT_UNLOCKED` and (with
    "response") `NEXT_OF`."""
    return {
        "campaign": campaign.name,
        "rubric": campaign.rubric,
        "person": person,
        "now": now,
        "skipped": skipped,
        "overlap": campaign.overlap,
        "only_mine": only_mine,
    }


def next_assignment(
    con: Connection,
    campaign: Campaign,
    person: str,
    *,
    now: datetime,
    skipped: list[str],
    only_mine: bool = False,
) -> Assignment | None:
    """The response `person` labels next: the one they hold, else the first of those assigned
    to them, else the first in the campaign's order that they have not labelled or skipped,
    that nobody else is assigned, and that fewer than `overlap` other people hold or
    labelled (with `only_mine`, their assignments alone)."""
    return fetch_one(
        con.execute(
            _NEXT, next_params(campaign, person, now=now, skipped=skipped, only_mine=only_mine)
        ),
        Assignment,
    )


def add_hold(
    con: Connection, campaign: str, response_id: str, person: str, *, at: Any, expires: Any
) -> None:
    con.execute(
        "INSERT INTO campaign_holds VALUES (?, ?, ?, ?, ?)",
        [campaign, response_id, person, at, expires],
    )


def item_of(con: Connection, campaign: str, response_id: str) -> Assignment | None:
    """A response of the campaign with how it was chosen (None: not one of its responses)."""
    return fetch_one(
        con.execute(
            "SELECT response_id, position, selection, inclusion_probability, "
            "false AS held_by_me FROM campaign_items WHERE campaign = ? AND response_id = ?",
            [campaign, response_id],
        ),
        Assignment,
    )


def person_counts(con: Connection, campaign: Campaign) -> list[PersonCount]:
    return fetch(
        con.execute(
            f"{_LABELS} SELECT rater AS person, count(*) AS n_labels FROM labels "
            "GROUP BY rater ORDER BY n_labels DESC, rater",
            {"campaign": campaign.name, "rubric": campaign.rubric},
        ),
        PersonCount,
    )


def campaign_labels(con: Connection, campaign: Campaign) -> list[CampaignLabel]:
    return fetch(
        con.execute(
            f"{_LABELS} SELECT response_id, rater, value FROM labels ORDER BY ALL",
            {"campaign": campaign.name, "rubric": campaign.rubric},
        ),
        CampaignLabel,
    )


def count_items(con: Connection, campaign: str) -> int:
    return int(
        scalar(con.execute("SELECT count(*) FROM campaign_items WHERE campaign = ?", [campaign]))
    )


@dataclass(frozen=True)
class LabelSlot:
    """Where one person stands on one of a campaign's responses, read when they save."""

    in_campaign: bool
    held_by_me: bool  # an unexpired hold of theirs
    labelled_by_me: bool  # a current label of theirs (a save is then an edit)
    others: int  # other people with a current label or an unexpired hold


_SLOT = f"""{_LABELS},
    latest AS (
        SELECT person, arg_max(expires_utc, held_utc) AS expires FROM campaign_holds
        WHERE campaign = $campaign AND response_id = $response GROUP BY person),
    busy AS (
        SELECT person FROM latest WHERE expires > $now
        UNION SELECT rater FROM labels WHERE response_id = $response)
    SELECT EXISTS (SELECT 1 FROM items WHERE response_id = $response) AS in_campaign,
           EXISTS (SELECT 1 FROM latest WHERE person = $person AND expires > $now) AS held_by_me,
           EXISTS (SELECT 1 FROM labels WHERE response_id = $response AND rater = $person)
               AS labelled_by_me,
           (SELECT count(*) FROM busy WHERE person <> $person) AS others"""


def label_slot(
    con: Connection, campaign: Campaign, response_id: str, person: str, *, now: datetime
) -> LabelSlot:
    found = fetch_one(
        con.execute(
            _SLOT,
            {
                "campaign": campaign.name,
                "rubric": campaign.rubric,
                "response": response_id,
                "person": person,
                "now": now,
            },
        ),
        LabelSlot,
    )
    assert found is not None  # a SELECT without FROM returns one row
    return found
