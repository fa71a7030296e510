"""The SQL of tags: per system, campaign and tag, how many of people's current tag labels
there are and how many are ticked (a withdrawn row, an undone save's, counts in neither), and
the rows one save wrote, for its undo."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

from dashboard.store import keys
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch
from dashboard.types import TagLabel

# A row written before migration 22 has no `withdrawn` (NULL): it is not withdrawn.
_TAG_COLUMNS = ", ".join(
    "coalesce(withdrawn, false) AS withdrawn" if f.name == "withdrawn" else f.name
    for f in dataclasses.fields(TagLabel)
)


@dataclass(frozen=True)
class TagCount:
    system: str
    campaign: str
    tag: str
    n: int
    n_ticked: int


def tag_counts(
    con: Connection, *, dataset: str | None, systems: tuple[str, ...] | None
) -> list[TagCount]:
    """People's current tag labels (the latest row of each person, answer and tag), counted."""
    return fetch(
        con.execute(
            """
        SELECT r.system, t.campaign, t.tag, count(*) AS n,
               count(*) FILTER (WHERE t.ticked) AS n_ticked
        FROM tag_labels t JOIN responses r ON r.response_id = t.response_id
        WHERE NOT t.superseded AND t.withdrawn IS NOT TRUE
          AND ($dataset IS NULL OR r.dataset = $dataset)
          AND ($systems IS NULL OR list_contains($systems, r.system))
        GROUP BY ALL ORDER BY t.campaign, t.tag, r.system""",
            {"dataset": dataset, "systems": list(systems) if systems else None},
        ),
        TagCount,
    )


def ticked_by(con: Connection, *, response_id: str, person: str, campaign: str) -> list[str]:
    """The tags the person currently ticks on the answer in the campaign."""
    rows = con.execute(
        "SELECT tag FROM tag_labels WHERE NOT superseded AND ticked AND response_id = $r "
        "AND rater_kind = 'human' AND rater = $person AND campaign = $campaign ORDER BY tag",
        {"r": response_id, "person": person, "campaign": campaign},
    ).fetchall()
    return [str(row[0]) for row in rows]


def saved_tags(
    con: Connection, *, response_id: str, person: str, campaign: str, created_utc: datetime
) -> list[TagLabel]:
    """The person's current tag labels of the answer in the campaign that one save wrote (a
    save's tag rows carry its rating's time); a later save's rows are not among them."""
    return fetch(
        con.execute(
            f"SELECT {_TAG_COLUMNS} FROM tag_labels WHERE NOT superseded AND response_id = $r "
            "AND rater_kind = 'human' AND rater = $person AND campaign = $campaign "
            "AND created_utc = $at ORDER BY tag",
            {"r": response_id, "person": person, "campaign": campaign, "at": created_utc},
        ),
        TagLabel,
    )


def tag_rows(con: Connection, ids: list[str]) -> list[TagLabel]:
    """The tag labels of these ids (any of them missing: left out)."""
    query = f"SELECT {_TAG_COLUMNS} FROM tag_labels WHERE {{among}}"
    return keys.fetch_by_key(con, query, "tag_id", ids, TagLabel)
