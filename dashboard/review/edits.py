"""A person's own labels: the list of them, changing one, withdrawing one, undoing the last.

Every change is a new row that supersedes the person's current label of the answer
(append-only; the history stays). Changing a label is rating the answer again
(`annotation.rate`). Withdrawing writes an unscored row (`annotation.WITHDRAWN`): it supersedes
the label and, having no value, counts in no metric. Undoing a change writes a row equal to
the label it replaced (or withdraws a first label), so an undo is itself a change on record.

Withdraw takes back one save whole as an undo does: the label on the page and every label of
the same save (a campaign's further questions) become unscored rows, and the tags that save
wrote are withdrawn (`tag_labels.withdrawn`), all in one transaction at one time.

An undo takes back one save whole: every label of the form (a campaign's rubric and its
further questions, which share the save's time) and the tags that save wrote, each back to
the row it replaced (a first save's: withdrawn). Tags another save wrote are never touched
(`campaigns.tags.undone_tags`). Undo last reaching back to the store takes the newest save of
the campaign on the page, or, outside a campaign, the newest label given outside any.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from dashboard.campaigns import campaigns, tags
from dashboard.ids import new_id, utc_now
from dashboard.review import edits_sql
from dashboard.review.annotation import WITHDRAWN, AnnotationError, Saved
from dashboard.review.detail import ResponseDetail, response_detail
from dashboard.review.edits_sql import MyLabel
from dashboard.store import Store
from dashboard.store.journal import Batch
from dashboard.store.writes import record_row
from dashboard.types import Rating, TagLabel

__all__ = [
    "MyLabel",
    "SaveWritten",
    "last_label",
    "last_save",
    "my_labels",
    "undo",
    "undo_all",
    "withdraw",
    "withdraw_save",
]


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


def last_save(
    store: Store,
    annotator: str,
    rubric: str,
    *,
    campaign: str | None,
    skip: Collection[str] = (),
) -> tuple[Rating, ...] | None:
    """The person's newest save on the rubric in `campaign` (None: outside any campaign) that
    Undo last can take back, as `last_label` finds it: its label on the rubric first, then
    its labels of the campaign's further questions made in the same save."""
    if not annotator:
        return None
    with store.connection() as con:
        found = edits_sql.my_labels(
            con, annotator, rubric, limit=len(skip) + 1, campaign=campaign, any_campaign=False
        )
    for label in found:
        if label.rating_id in skip:
            continue
        detail = response_detail(store, label.response_id)
        entry = detail.find(label.rating_id) if detail else None
        if detail is None or entry is None or entry.rating.source not in ("page", None):
            return None
        return (entry.rating, *_same_save(store, detail, entry.rating))
    return None


def _same_save(store: Store, detail: ResponseDetail, first: Rating) -> list[Rating]:
    """The person's current labels of the campaign's further questions saved with `first`."""
    found = campaigns.find_campaign(store, first.campaign) if first.campaign else None
    names = campaigns.rubric_names(found)[1:] if found is not None else []
    mine = {
        e.rating.rubric: e.rating
        for e in detail.human_ratings
        if e.current
        and e.rating.rater == first.rater
        and e.rating.campaign == first.campaign
        and e.rating.created_utc == first.created_utc
    }
    return [mine[name] for name in names if name in mine and name != first.rubric]


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
    """Take a person's label back with the rest of its save (`withdraw_save`); the row that
    withdraws `label` is returned."""
    saved = withdraw_save(store, label)
    return Saved(saved.record[0], pending=saved.pending)


@dataclass(frozen=True)
class SaveWritten:
    """One save's rows as written, as `Saved` has one label's: `record`, the rows;
    `pending`, the database was busy and they wait in the spool."""

    record: tuple[Rating, ...]
    pending: bool = False


def withdraw_save(store: Store, label: Rating) -> SaveWritten:
    """Take back the save that wrote `label`, whole: an unscored row superseding it and each
    of the person's current labels of the campaign's further questions saved with it, and
    the tags that save wrote withdrawn; one transaction, at one time (Undo last takes it all
    back again: `undo_all` of the rows returned, `label`'s first)."""
    detail = response_detail(store, label.response_id)
    entry = detail.find(label.rating_id) if detail else None
    stored = entry.rating if entry is not None else label
    more = _same_save(store, detail, stored) if detail is not None else []
    at = utc_now()
    rows = tuple(dataclasses.replace(_withdrawn(r), created_utc=at) for r in (stored, *more))
    batches = [Batch("ratings", tuple(map(record_row, rows)))]
    if stored.campaign is not None and stored.created_utc is not None:
        found = tags.undone_tags(
            store,
            response_id=stored.response_id,
            person=stored.rater,
            campaign=stored.campaign,
            saved_utc=stored.created_utc,
            at=at,
            withdraw=True,
        )
        if found:
            batches.append(Batch("tag_labels", tuple(map(record_row, found))))
    result = store.write(batches)
    return SaveWritten(rows, pending=result.pending is not None)


def _undone(store: Store, label: Rating) -> Rating:
    detail = response_detail(store, label.response_id)
    entry = detail.find(label.rating_id) if detail else None
    if entry is None or not entry.current:
        raise AnnotationError(
            "That label was changed since (in another tab?); open it from Your labels."
        )
    # The stored row names what it replaced: a label kept by the page since its save does not
    # (the store chains `supersedes` as it writes), and would be withdrawn, not restored.
    stored = entry.rating
    before = detail.find(stored.supersedes) if detail and stored.supersedes else None
    if before is None:
        return _withdrawn(stored)
    return _successor(before.rating, supersedes=stored.rating_id)


def _undone_tags(store: Store, first: Rating, at: datetime) -> list[TagLabel]:
    if first.campaign is None or first.created_utc is None:
        return []  # tags are given in a campaign only
    return tags.undone_tags(
        store,
        response_id=first.response_id,
        person=first.rater,
        campaign=first.campaign,
        saved_utc=first.created_utc,
        at=at,
    )


def _write_undo(store: Store, labels: tuple[Rating, ...]) -> Saved[Rating]:
    """Undo one save's labels and its tags in one transaction, all at one time (so that the
    undo is itself one save), none when any label is refused."""
    at = utc_now()
    rows = [dataclasses.replace(_undone(store, label), created_utc=at) for label in labels]
    batches = [Batch("ratings", tuple(map(record_row, rows)))]
    undone_tags = _undone_tags(store, labels[0], at)
    if undone_tags:
        batches.append(Batch("tag_labels", tuple(map(record_row, undone_tags))))
    result = store.write(batches)
    return Saved(rows[0], pending=result.pending is not None)


def undo(store: Store, label: Rating) -> Saved[Rating]:
    """Undo the change `label` made: back to the label it superseded, else withdrawn, with the
    tags its save wrote. Refused once the label is no longer the person's current one
    (changed since, elsewhere)."""
    return _write_undo(store, (label,))


def undo_all(store: Store, labels: tuple[Rating, ...]) -> Saved[Rating]:
    """Undo one save of several answers (a campaign's rubrics) together, with the tags it
    wrote: each as `undo`, all written in one transaction, none when any is refused. The
    first label's row is returned."""
    return _write_undo(store, labels)
