"""The SQL of the Pairwise page: its queue (pairs of responses to one item by two systems that
a person has not voted on yet, in a seeded random order) and a person's current vote on a pair.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from dashboard.review.requests import PairRequest
from dashboard.store import keys
from dashboard.store.connection import Connection
from dashboard.store.rows import Window, fetch, fetch_window, scalar, window_sql
from dashboard.types import Preference


@dataclass(frozen=True)
class PairRow:
    """Two responses to one item, oriented: `response_a` is A in every verdict on the pair."""

    item_id: str
    dataset: str
    response_a: str
    response_b: str


# Pairs of responses to one item by two systems, oriented as earlier verdicts on the pair
# were (so that a person's vote and a judge's verdict land on the same pair key), else with
# system_a's response as A.
_PAIRS = """
    WITH a AS (SELECT response_id, item_id, dataset FROM responses
               WHERE system = $system_a AND ($dataset IS NULL OR dataset = $dataset)),
    b AS (SELECT response_id, item_id, dataset FROM responses
          WHERE system = $system_b AND ($dataset IS NULL OR dataset = $dataset)),
    raw AS (SELECT a.item_id, a.dataset, a.response_id AS ra, b.response_id AS rb
            FROM a JOIN b ON b.item_id = a.item_id AND b.dataset = a.dataset
            WHERE a.response_id <> b.response_id),
    flipped AS (SELECT DISTINCT p.item_id, p.response_a, p.response_b FROM preferences p
                SEMI JOIN raw ON raw.item_id = p.item_id AND raw.rb = p.response_a
                             AND raw.ra = p.response_b),
    pairs AS (
        SELECT raw.item_id, raw.dataset,
               CASE WHEN f.item_id IS NULL THEN raw.ra ELSE raw.rb END AS response_a,
               CASE WHEN f.item_id IS NULL THEN raw.rb ELSE raw.ra END AS response_b
        FROM raw LEFT JOIN flipped f
          ON f.item_id = raw.item_id AND f.response_a = raw.rb AND f.response_b = raw.ra)
    SELECT * FROM pairs p
    WHERE NOT EXISTS (
        SELECT 1 FROM current_preferences q
        WHERE q.rater_kind = 'human' AND q.rater = $annotator AND q.item_id = p.item_id
          AND ((q.response_a = p.response_a AND q.response_b = p.response_b)
               OR (q.response_a = p.response_b AND q.response_b = p.response_a)))"""


def _pair_params(request: PairRequest) -> dict[str, Any]:
    return {
        "system_a": request.system_a,
        "system_b": request.system_b,
        "dataset": request.dataset,
        "annotator": request.annotator,
    }


def pair_rows(con: Connection, request: PairRequest, *, limit: int, offset: int) -> Window[PairRow]:
    """Pairs `request.annotator` has not voted on, in a random order fixed by the seed; and
    how many there are (None when the window is empty)."""
    return fetch_window(
        con.execute(
            window_sql(
                f"SELECT item_id, dataset, response_a, response_b FROM ({_PAIRS})",
                order="md5(concat_ws(chr(31), $seed, item_id, response_a, response_b)), item_id",
            ),
            {**_pair_params(request), "seed": str(request.seed), "limit": limit, "offset": offset},
        ),
        PairRow,
    )


def count_pairs(con: Connection, request: PairRequest) -> int:
    return int(scalar(con.execute(f"SELECT count(*) FROM ({_PAIRS})", _pair_params(request))))


_PREFERENCE_FIELDS = ", ".join(f.name for f in fields(Preference))


def preference_rows(con: Connection, preference_ids: list[str]) -> list[Preference]:
    """Preferences by id (any of them: current or superseded)."""
    query = f"SELECT {_PREFERENCE_FIELDS} FROM preferences WHERE {{among}}"
    return keys.fetch_by_key(con, query, "preference_id", preference_ids, Preference)


def current_vote(
    con: Connection, annotator: str, rubric: str, item_id: str, response_a: str, response_b: str
) -> Preference | None:
    """The person's current vote on the pair (in either orientation; a withdrawn one too)."""
    found = fetch(
        con.execute(
            f"""
        SELECT {_PREFERENCE_FIELDS} FROM current_preferences
        WHERE rater_kind = 'human' AND rater = $annotator AND rubric = $rubric
          AND item_id = $item_id
          AND ((response_a = $a AND response_b = $b) OR (response_a = $b AND response_b = $a))
        ORDER BY created_utc DESC, preference_id LIMIT 1""",
            {
                "annotator": annotator,
                "rubric": rubric,
                "item_id": item_id,
                "a": response_a,
                "b": response_b,
            },
        ),
        Preference,
    )
    return found[0] if found else None


def voted_as(con: Connection, response_a: str, response_b: str) -> bool:
    """Whether some verdict on the pair has `response_a` as its A (how the queue orients it)."""
    return bool(
        scalar(
            con.execute(
                "SELECT count(*) > 0 FROM preferences WHERE response_a = ? AND response_b = ?",
                [response_a, response_b],
            )
        )
    )


@dataclass(frozen=True)
class MyVote:
    """A person's current vote on one pair; `verdict` None = withdrawn."""

    preference_id: str
    item_id: str
    response_a: str
    response_b: str
    verdict: str | None
    shown_first: str
    created_utc: datetime


def my_votes(con: Connection, annotator: str, rubric: str, *, limit: int) -> list[MyVote]:
    """The person's current votes on the rubric, newest first (withdrawn ones included)."""
    return fetch(
        con.execute(
            """
        WITH mine AS (
            SELECT preference_id, item_id, response_a, response_b, verdict, shown_first,
                   created_utc
            FROM preferences
            WHERE rater_kind = 'human' AND rater = $annotator AND rubric = $rubric)
        SELECT * FROM mine
        WHERE preference_id NOT IN (
            SELECT supersedes FROM preferences
            WHERE supersedes IN (SELECT preference_id FROM mine))
        ORDER BY created_utc DESC, preference_id
        LIMIT $limit""",
            {"annotator": annotator, "rubric": rubric, "limit": limit},
        ),
        MyVote,
    )
