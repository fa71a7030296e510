"""The SQL of gold answers: people's corrected references of an item, append-only.

An edit holds the item's whole new list of references and the list it replaced; it
supersedes the item's edit that was current (None: the imported references, which stay in
`items`). The current reference of an item is its edit no later edit supersedes, else the
imported one (`CURRENT_ITEMS`: read in place of `items` wherever references feed a metric,
an answer's detail or the golden export).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from dashboard.store.connection import Connection
from dashboard.store.rows import fetch, fetch_one, scalar

# Each item's current edit: the edits no other edit supersedes (one per item).
CURRENT_EDITS = """
    SELECT item_id, dataset, reference_answers FROM reference_edits
    WHERE edit_id NOT IN (SELECT supersedes FROM reference_edits WHERE supersedes IS NOT NULL)"""
# The items with their current references (every other column as imported), in place of
# `items` where references feed a metric, a detail or the golden export.
CURRENT_ITEMS = f"""
    SELECT i.* REPLACE (coalesce(g.reference_answers, i.reference_answers) AS reference_answers)
    FROM items i LEFT JOIN ({CURRENT_EDITS}) g USING (item_id, dataset)"""


@dataclass(frozen=True)
class ReferenceEdit:
    """A person's corrected references of an item, with where they came from."""

    edit_id: str
    item_id: str
    dataset: str
    reference_answers: list[str]
    previous: list[str] | None
    supersedes: str | None
    author: str
    reason: str | None
    response_id: str | None
    campaign: str | None
    created_utc: datetime


@dataclass(frozen=True)
class ItemReferences:
    """An item's imported references, and its current edit (None: never corrected)."""

    item_id: str
    dataset: str
    imported: list[str] | None
    edit_id: str | None
    corrected: list[str] | None


def item_references(con: Connection, item_id: str, dataset: str) -> ItemReferences | None:
    return fetch_one(
        con.execute(
            """
            SELECT i.item_id, i.dataset, i.reference_answers AS imported,
                   e.edit_id, e.reference_answers AS corrected
            FROM items i LEFT JOIN (
                SELECT * FROM reference_edits
                WHERE item_id = $item AND dataset = $dataset AND edit_id NOT IN (
                    SELECT supersedes FROM reference_edits WHERE supersedes IS NOT NULL)) e
                USING (item_id, dataset)
            WHERE i.item_id = $item AND i.dataset = $dataset LIMIT 1""",
            {"item": item_id, "dataset": dataset},
        ),
        ItemReferences,
    )


def add_edit(con: Connection, edit: ReferenceEdit) -> None:
    """Append an edit; the caller holds the transaction."""
    con.execute(
        "INSERT INTO reference_edits VALUES ($edit_id, $item_id, $dataset, $reference_answers, "
        "$previous, $supersedes, $author, $reason, $response_id, $campaign, $created_utc)",
        edit.__dict__,
    )


def drop_item_scores(con: Connection, item_id: str, dataset: str) -> int:
    """Drop the stored reference scores of the item's responses, for scoring to compute
    them again against the corrected references; how many responses lost them."""
    ids = "SELECT response_id FROM responses WHERE item_id = $item AND dataset = $dataset"
    params = {"item": item_id, "dataset": dataset}
    n = int(scalar(con.execute(f"SELECT count(*) FROM ({ids})", params)))
    con.execute(f"DELETE FROM auto_scores WHERE response_id IN ({ids})", params)
    return n


def edits_of(con: Connection, item_id: str, dataset: str) -> list[ReferenceEdit]:
    """Every edit of an item, oldest first."""
    return fetch(
        con.execute(
            "SELECT * FROM reference_edits WHERE item_id = ? AND dataset = ? "
            "ORDER BY created_utc, edit_id",
            [item_id, dataset],
        ),
        ReferenceEdit,
    )


def count_corrected(con: Connection, dataset: str | None) -> int:
    """How many items (of the dataset, or all) have corrected references."""
    return int(
        scalar(
            con.execute(
                "SELECT count(DISTINCT item_id) FROM reference_edits "
                "WHERE $dataset IS NULL OR dataset = $dataset",
                {"dataset": dataset},
            )
        )
    )
