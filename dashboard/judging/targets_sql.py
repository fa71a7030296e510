"""The SQL of what a judge run judges: the responses (or pairs) of a selection with the fields
their prompts need, and how many there are before anything is planned.

Every function runs on a connection it is given (see `Store.connection()`); values are bound
parameters and the optional filters are code constants.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from dashboard.store.connection import Connection
from dashboard.store.rows import fetch, scalar


@dataclass(frozen=True)
class TargetItem:
    """The fields of an item that a judge's prompt shows."""

    item_id: str
    dataset: str
    task_type: str
    question: str
    reference_answers: list[str] | None
    reference_context: str | None
    history: str | None  # the earlier turns as JSON text


@dataclass(frozen=True)
class RatingTargetRow(TargetItem):
    """A response to rate, with its item's fields."""

    response_id: str
    system: str
    answer: str
    contexts: list[str] | None


@dataclass(frozen=True)
class PairTargetRow(TargetItem):
    """An item answered by both systems of a pair, with both responses."""

    a_response_id: str
    a_system: str
    a_answer: str
    a_contexts: list[str] | None
    b_response_id: str
    b_system: str
    b_answer: str
    b_contexts: list[str] | None


RatingKey = tuple[str, str, str, str]


def rating_key(row: RatingTargetRow) -> RatingKey:
    """Where a row stands in the order of `select_rating_targets`."""
    return (row.dataset, row.item_id, row.system, row.response_id)


_TARGET_COLUMNS = tuple(f.name for f in fields(TargetItem))
_RESPONSE_COLUMNS = tuple(f.name for f in fields(RatingTargetRow) if f.name not in _TARGET_COLUMNS)


def select_rating_targets(
    con: Connection,
    *,
    dataset: str | None = None,
    systems: Sequence[str] | None = None,
    task_types: Sequence[str] = (),
    response_ids: Sequence[str] | None = None,
    after: RatingKey | None = None,
    limit: int | None = None,
) -> list[RatingTargetRow]:
    """Every response to rate (of `response_ids` only, when given), with the item fields a
    prompt needs, in a stable order; with `after` and `limit`, the next page of that order
    after the row whose `rating_key` is `after` (a streamed plan reads a page at a time)."""
    # The page is chosen among the responses' keys first and only its rows are joined to
    # their items: a page reads the key columns of the selection, never every item's text
    # (joining first made each page of a streamed plan build a hash table of all the items,
    # so a page's time and memory grew with the plan).
    where: list[str] = ["TRUE"]
    params: list[Any] = []
    if dataset is not None:
        where.append("r.dataset = ?")
        params.append(dataset)
    if systems:
        where.append("list_contains(?::VARCHAR[], r.system)")
        params.append(list(systems))
    if task_types:
        where.append(
            "(r.dataset, r.item_id) IN (SELECT dataset, item_id FROM items "
            "WHERE list_contains(?::VARCHAR[], task_type))"
        )
        params.append(list(task_types))
    if response_ids is not None:
        where.append("list_contains(?::VARCHAR[], r.response_id)")
        params.append(list(response_ids))
    if after is not None:
        where.append("(r.dataset, r.item_id, r.system, r.response_id) > (?, ?, ?, ?)")
        params.extend(after)
    order = "ORDER BY r.dataset, r.item_id, r.system, r.response_id"
    page = (
        "SELECT r.dataset, r.item_id, r.system, r.response_id FROM responses r "
        f"WHERE {' AND '.join(where)} {order}"
    )
    if limit is not None:
        page += " LIMIT ?"
        params.append(limit)
    # A response may carry its own history (MT-Bench's turn 2 follows the model's own turn-1
    # answer, which differs per system); else the item's history is the conversation.
    item_columns = [f"i.{c}" for c in _TARGET_COLUMNS if c != "history"]
    columns = ", ".join(
        [
            *item_columns,
            "coalesce(r.metadata -> '$.history', i.history) AS history",
            *(f"r.{c}" for c in _RESPONSE_COLUMNS),
        ]
    )
    return fetch(
        con.execute(
            f"WITH page AS ({page}) SELECT {columns} FROM page p "
            "JOIN responses r ON r.response_id = p.response_id "
            "JOIN items i ON i.item_id = p.item_id AND i.dataset = p.dataset "
            f"{order.replace('r.', 'p.')}",
            params,
        ),
        RatingTargetRow,
    )


def select_pair_targets(
    con: Connection, *, system_a: str, system_b: str, dataset: str | None = None
) -> list[PairTargetRow]:
    """Every item answered by both systems, with both responses (a_* and b_* columns)."""
    where = ["a.system = ?", "b.system = ?"]
    params = [system_a, system_b]
    if dataset is not None:
        where.append("a.dataset = ?")
        params.append(dataset)
    columns = ", ".join(
        [
            *(f"i.{c}" for c in _TARGET_COLUMNS),
            *(f"a.{c} AS a_{c}" for c in _RESPONSE_COLUMNS),
            *(f"b.{c} AS b_{c}" for c in _RESPONSE_COLUMNS),
        ]
    )
    return fetch(
        con.execute(
            f"SELECT {columns} FROM responses a "
            "JOIN responses b ON b.item_id = a.item_id AND b.dataset = a.dataset "
            "JOIN items i ON i.item_id = a.item_id AND i.dataset = a.dataset "
            f"WHERE {' AND '.join(where)} AND a.response_id <> b.response_id "
            "ORDER BY a.dataset, i.item_id, a.response_id, b.response_id",
            params,
        ),
        PairTargetRow,
    )


def count_rating_targets(
    con: Connection,
    *,
    dataset: str | None,
    systems: Sequence[str] | None,
    task_types: Sequence[str],
) -> int:
    """How many responses a rating rubric would judge (as `judging.select_rating_targets`)."""
    sql = """
        SELECT count(*) FROM responses r
        JOIN items i ON i.item_id = r.item_id AND i.dataset = r.dataset
        WHERE ($dataset IS NULL OR r.dataset = $dataset)
          AND ($systems IS NULL OR list_contains($systems, r.system))
          AND (len($task_types) = 0 OR list_contains($task_types, i.task_type))"""
    params = {
        "dataset": dataset,
        "systems": list(systems) if systems else None,
        "task_types": list(task_types),
    }
    return int(scalar(con.execute(sql, params)))


def count_pair_targets(
    con: Connection, *, dataset: str | None, system_a: str, system_b: str
) -> int:
    """How many items both systems answered (each judged in both orders)."""
    sql = """
        SELECT count(*) FROM responses a
        JOIN responses b ON b.item_id = a.item_id AND b.dataset = a.dataset
        WHERE a.system = $a AND b.system = $b AND a.response_id <> b.response_id
          AND ($dataset IS NULL OR a.dataset = $dataset)"""
    return int(scalar(con.execute(sql, {"dataset": dataset, "a": system_a, "b": system_b})))


def labelled_response_ids(
    con: Connection, *, dataset: str | None, systems: Sequence[str] | None
) -> list[str]:
    """The responses a person gave a scored rating (of any rubric), in a stable order."""
    sql = """
        SELECT DISTINCT r.response_id FROM responses r
        SEMI JOIN current_ratings g ON g.response_id = r.response_id
             AND g.rater_kind = 'human' AND g.value IS NOT NULL
        WHERE ($dataset IS NULL OR r.dataset = $dataset)
          AND ($systems IS NULL OR list_contains($systems, r.system))
        ORDER BY r.response_id"""
    params = {"dataset": dataset, "systems": list(systems) if systems else None}
    return [str(row[0]) for row in con.execute(sql, params).fetchall()]
