"""Gold answers: a person writes the correct answer of an item, or fixes its reference.

A correction is a new reference edit with its author, time, reason and the answer it came
from (`gold_sql.py`); the imported references and every earlier edit are kept. From then on
EM and F1 (against several references, by the dataset's rule) use the corrected references:
the item's stored reference scores are dropped and computed again in the same call, and
`metrics --json` says how many items' references were corrected (`references`).
`judgeboard export --golden` writes the items with their current references
(`dashboard/export/golden.py`).
"""

from __future__ import annotations

from collections.abc import Sequence

from dashboard.auth.users import User
from dashboard.ids import new_id, utc_now
from dashboard.review import gold_sql as sql
from dashboard.review.gold_sql import ItemReferences as ItemReferences, ReferenceEdit
from dashboard.store import Store, transaction

# The separator between several references in a text box: a line holding only "---".
SEPARATOR = "---"


class GoldError(ValueError):
    """A correction that cannot be kept; nothing was written. The message says what to fix."""


def parse_references(text: str) -> list[str]:
    """A text box's references: blocks separated by lines of "---" (one block: one answer)."""
    blocks: list[list[str]] = [[]]
    for line in (text or "").splitlines():
        if line.strip() == SEPARATOR:
            blocks.append([])
        else:
            blocks[-1].append(line)
    return [b for b in ("\n".join(lines).strip() for lines in blocks) if b]


def references_text(answers: Sequence[str]) -> str:
    """References as the text box writes them (`parse_references` reads it back)."""
    return f"\n{SEPARATOR}\n".join(answers)


def correct_reference(
    store: Store,
    item_id: str,
    dataset: str,
    answers: Sequence[str],
    *,
    author: str | None,
    reason: str | None = None,
    response_id: str | None = None,
    campaign: str | None = None,
    actor: User | None = None,
) -> ReferenceEdit:
    """Keep `answers` as the item's references from now (the whole list), with provenance,
    and rescore its responses' EM and F1. Anyone who labels may: the edit names its author
    (the signed-in person, else `author`) and keeps the reference it replaced."""
    who = (actor.name if actor else (author or "")).strip()
    if not who:
        raise GoldError("Type your name in the sidebar first: a correction names its author.")
    kept = [a.strip() for a in answers if a and a.strip()]
    if not kept:
        raise GoldError("Write at least one reference answer; nothing was saved.")
    with store.write_lock, store.connection() as con, transaction(con):
        found = sql.item_references(con, item_id, dataset)
        if found is None:
            raise GoldError(f"No item {item_id!r} in dataset {dataset!r}; nothing was saved.")
        current = found.corrected if found.edit_id else found.imported
        if list(current or []) == kept:
            raise GoldError("These are the item's references already; nothing was saved.")
        edit = sql.ReferenceEdit(
            new_id(),
            item_id,
            dataset,
            kept,
            list(current) if current is not None else None,
            found.edit_id,
            who,
            (reason or "").strip() or None,
            response_id,
            campaign,
            utc_now(),
        )
        sql.add_edit(con, edit)
        sql.drop_item_scores(con, item_id, dataset)
    from dashboard.metrics.reference import refresh_auto_scores  # metrics reads review

    refresh_auto_scores(store, dataset=dataset)
    return edit


def item_references(store: Store, item_id: str, dataset: str) -> ItemReferences | None:
    """An item's imported references and its current correction (None: no such item)."""
    with store.connection() as con:
        return sql.item_references(con, item_id, dataset)


def reference_history(store: Store, item_id: str, dataset: str) -> list[ReferenceEdit]:
    """Every correction of an item's references, oldest first."""
    with store.connection() as con:
        return sql.edits_of(con, item_id, dataset)


def corrected_items(store: Store, dataset: str | None) -> int:
    """How many items (of the dataset, or all) have corrected references."""
    with store.connection() as con:
        return sql.count_corrected(con, dataset)
