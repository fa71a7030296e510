"""A person's own labels: the list of them, changing one, withdrawing one, undoing the last.

Every change is a new row that supersedes the person's current label of the answer
(append-only; the history stays). Changing a label is rating the answer again
(`annotation.rate`). Withdrawing writes an unscored row (`annotation.WITHDRAWN`): it supersedes
the label and, having no value, counts in no metric. Undoing a change writes a row equal to
the label it replaced (or withdraws a first label), so an undo is itself a change on record.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from dashboard.ids import new_id, utc_now
from dashboard.review import edits_sql
from dashboard.review.annotation import WITHDRAWN, AnnotationError, Saved
from dashboard.review.detail import response_detail
from dashboard.review.edits_sql import MyLabel
from dashboard.store import Store
from dashboard.types import Rating

__all__ = ["MyLabel", "last_label", "my_labels", "undo", "undo_all", "withdraw"]


def my_labels(store: Store, annotator: str, rubric: str, *, limit: int = 50) -> list[MyLabel]:
    """The person's current labels on the rubric, newest first."""
    if not annotator:
        return []
    with store.connection() as con:
        return edits_sql.my_labels(con, annotator, rubric, limit=limit)


def last_label(
    store: Store, annotator: str, rubric: str, *, skip: Collection[str] = ()
) -> Rating | None:
    """The person's newest current label on the rubric saved on a page, leaving out `skip`
    (the rows undos wrote): what Undo last takes back when this session saved nothing."""
    for label in my_labels(store, annotator, rubric, limit=len(skip) + 1):
        if label.rating_id in skip:
            continue
        detail = response_detail(store, label.response_id)
        entry = detail.find(label.rating_id) if detail else None
        return entry.rating if entry and entry.rating.source in ("page", None) else None
    return None


def _successor(label: Rating, **changes: object) -> Rating:
    fields = {**dataclasses.asdict(label), "source": "page", **changes}
    return Rating(**{**fields, "rating_id": new_id(), "created_utc": utc_now()})


def _withdrawn(label: Rating) -> Rating:
    if label.rater_kind != "human":
        raise AnnotationError("Only a person's own label can be withdrawn.")
    return _successor(
        label,
        value=None,
        unscored_reason=WITHDRAWN,
        comment=None,
        overrides=None,
        supersedes=label.rating_id,
    )


def withdraw(store: Store, label: Rating) -> Saved[Rating]:
    """Take a person's label back: an unscored row superseding it."""
    row = _withdrawn(label)
    result = store.add_ratings([row])
    return Saved(row, pending=result.pending is not None)


def _undone(store: Store, label: Rating) -> Rating:
    detail = response_detail(store, label.response_id)
    entry = detail.find(label.rating_id) if detail else None
    if entry is None or not entry.current:
        raise AnnotationError(
            "That label was changed since (in another tab?); open it from Your labels."
        )
    before = detail.find(label.supersedes) if detail and label.supersedes else None
    if before is None:
        return _withdrawn(label)
    return _successor(before.rating, supersedes=label.rating_id)


def undo(store: Store, label: Rating) -> Saved[Rating]:
    """Undo the change `label` made: back to the label it superseded, else withdrawn. Refused
    once the label is no longer the person's current one (changed since, elsewhere)."""
    row = _undone(store, label)
    result = store.add_ratings([row])
    return Saved(row, pending=result.pending is not None)


def undo_all(store: Store, labels: tuple[Rating, ...]) -> Saved[Rating]:
    """Undo one save of several answers (a campaign's rubrics) together: each as `undo`, all
    written in one transaction, none when any is refused. The first label's row is returned."""
    rows = [_undone(store, label) for label in labels]
    result = store.add_ratings(rows)
    return Saved(rows[0], pending=result.pending is not None)
