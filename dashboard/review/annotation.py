"""People's labels: the annotation queue, and writing a rating or an override.

A person's rating is a `Rating` with `rater_kind="human"` and `rater` = the annotator's name,
written through `Store.add_ratings`, so it enters every metric through the same queries as a
judge's rating. The store chains `supersedes`: rating the same answer again on the same rubric
replaces the person's earlier rating, which stays in the history. An override is a person's
rating that names the judge rating it contradicts (`overrides`) and says why (`comment`); the
judge's rating stays as it was.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from dashboard.campaigns import campaigns
from dashboard.ids import new_id, utc_now
from dashboard.judging.rubrics import Rubric, list_rubrics
from dashboard.review import queue_sql as sql
from dashboard.review.detail import ResponseDetail, response_detail
from dashboard.review.paging import paged
from dashboard.review.queue_sql import QueueEntry
from dashboard.review.requests import QueueRequest as QueueRequest
from dashboard.store import Store, WriteResult
from dashboard.store.connection import Connection
from dashboard.store.journal import Batch
from dashboard.store.writes import record_row
from dashboard.types import Preference, Rating, TagLabel

Record = TypeVar("Record", Rating, Preference)

# The first is the default: a random order's first answers are a simple random sample of the
# answers left to label, which calibration and corrected estimates can use; the others are a
# targeted pick and are recorded as such (`ORDER_SELECTION`).
QUEUE_ORDERS: dict[str, str] = {
    "random": "Random (seeded)",
    "worst": "Worst first",
    "disagreement": "Most judge disagreement",
    "unlabelled": "Not yet labelled by a person",
}
ORDER_SELECTION: dict[str, str] = {
    "random": "random",
    "worst": "targeted",
    "disagreement": "targeted",
    "unlabelled": "targeted",
}
# The `unscored_reason` of a row that takes a person's label back: it supersedes the label and,
# having no value, counts in no metric.
WITHDRAWN = "withdrawn"


@dataclass(frozen=True)
class Provenance:
    """How the answer of a label was chosen (`dashboard.types.SELECTIONS`), its inclusion
    probability when the sample was not uniform, its campaign, and whether it was blind."""

    selection: str = "unknown"
    inclusion_probability: float | None = None
    campaign: str | None = None
    blind: bool | None = None

    @classmethod
    def of_order(cls, order: str, *, blind: bool) -> Provenance:
        return cls(ORDER_SELECTION.get(order, "unknown"), None, None, blind)


class AnnotationError(ValueError):
    """A label that cannot be saved; the message tells the person what to fix."""


class LabelRefused(AnnotationError):
    """A campaign's label refused by its rules (overlap reached, hold ended): nothing was
    saved, and the person moves on to the next answer."""


@dataclass(frozen=True)
class Saved(Generic[Record]):
    """A person's label as written. `pending` is True when the database was busy and the
    label waits in the spool; it is applied by the next process that opens the file."""

    record: Record
    pending: bool = False


@dataclass(frozen=True)
class Queue:
    """A window of the queue: `entries` start at `offset` among `remaining` answers."""

    entries: tuple[QueueEntry, ...]
    remaining: int
    offset: int


def annotation_queue(
    store: Store, request: QueueRequest, *, offset: int = 0, limit: int = 20
) -> Queue:
    """The answers `request.annotator` has not rated on the rubric yet, in the chosen order
    (with "unlabelled", only answers no person has rated). A rated answer leaves the queue,
    so after a save the next answer moves up to the same position; past the end (answers
    left the queue) the window starts at the last one."""
    if request.order not in QUEUE_ORDERS:
        raise AnnotationError(
            f"unknown queue order {request.order!r}; use one of {', '.join(QUEUE_ORDERS)}"
        )
    with store.connection() as con:
        found = paged(
            lambda at, size: sql.queue_rows(con, request, limit=size, offset=at),
            lambda: sql.count_queue(con, request),
            offset=offset,
            limit=limit,
        )
    return Queue(found.rows, found.total, found.offset)


def _require_annotator(annotator: str) -> str:
    name = (annotator or "").strip()
    if not name:
        raise AnnotationError(
            "Type your name in the sidebar's Annotator box first: every "
            "rating is stored with the name of the person who gave it."
        )
    return name


def rating_scale(rubric: Rubric) -> tuple[float, float]:
    """A rating rubric's scale (low, high); a rubric without one cannot be labelled on."""
    if rubric.scale_low is None or rubric.scale_high is None:
        raise AnnotationError(f"The rubric {rubric.name} has no scale to rate on.")
    return rubric.scale_low, rubric.scale_high


def scale_points(low: float, high: float) -> list[float]:
    """The whole-number points of a rubric's scale, e.g. [1, 2, 3, 4, 5]."""
    return [float(v) for v in range(math.ceil(low), math.floor(high) + 1)]


def human_rating(
    response_id: str,
    *,
    annotator: str,
    rubric: str,
    rubric_version: str,
    value: float | None,
    scale: tuple[float, float],
    comment: str | None = None,
    overrides: str | None = None,
    provenance: Provenance | None = None,
) -> Rating:
    """A person's rating, checked: a name, a value on the scale, a comment on an override."""
    name = _require_annotator(annotator)
    if value is None:
        raise AnnotationError("Pick a rating before saving.")
    low, high = scale
    if not low <= value <= high:
        raise AnnotationError(f"A rating must lie on the rubric's scale, {low:g} to {high:g}.")
    comment = (comment or "").strip() or None
    chosen = provenance or Provenance()
    if overrides and not comment:
        raise AnnotationError("Say why you override the judge: an override needs a comment.")
    return Rating(
        rating_id=new_id(),
        response_id=response_id,
        rater_kind="human",
        rater=name,
        rubric=rubric,
        rubric_version=rubric_version,
        value=float(value),
        scale_low=low,
        scale_high=high,
        created_utc=utc_now(),
        comment=comment,
        overrides=overrides or None,
        selection=chosen.selection,
        inclusion_probability=chosen.inclusion_probability,
        campaign=chosen.campaign,
        blind=chosen.blind,
        source="page",
    )


def check_override(rating: Rating, detail: ResponseDetail) -> None:
    """An override must name a judge's rating of the same answer, as the person saw it."""
    if not rating.overrides:
        return
    judged = detail.find(rating.overrides)
    if (
        judged is None
        or judged.rating.rater_kind != "llm"
        or judged.rating.response_id != rating.response_id
        or detail.response.response_id != rating.response_id
    ):
        raise AnnotationError(
            "The rating to override is not a judge's rating of this answer; "
            "reload the page and pick it again."
        )


def tag_labels(rating: Rating, ticked: Mapping[str, bool]) -> list[TagLabel]:
    """The person's tags of the answer, one row per tag of the campaign (`ticked`: by tag
    name), with the rating's provenance; none outside a campaign."""
    if rating.campaign is None:
        return []
    return [
        TagLabel(
            new_id(),
            rating.response_id,
            rating.campaign,
            tag,
            "human",
            rating.rater,
            bool(value),
            created_utc=rating.created_utc,
            selection=rating.selection,
            blind=rating.blind,
            source=rating.source,
        )
        for tag, value in ticked.items()
    ]


def save_rating(
    store: Store,
    rating: Rating,
    *,
    detail: ResponseDetail | None = None,
    tags: Sequence[TagLabel] = (),
    also: Sequence[Rating] = (),
) -> WriteResult:
    """Store a person's rating. An override is checked against `detail`, the answer with the
    ratings the page showed: no extra read, so that while another process holds the file the
    override still reaches the spool. Without `detail` it is read from the store.

    A label given in a campaign is checked against the campaign's rules in the transaction
    that writes it (`campaigns.label_refusal`), and so is never kept in the journal: it is in
    the database when this returns, or it raises (`LabelRefused`, or `StoreBusy` when the
    file stayed busy for the store's whole wait). `also`: the person's ratings of the same
    answer on a campaign's further rubrics (`questions.ratings_of`), saved with it, in its
    transaction, or not at all."""
    if rating.overrides:
        found = detail if detail is not None else response_detail(store, rating.response_id)
        if found is None:
            raise AnnotationError("That answer is no longer in the database.")
        check_override(rating, found)
    campaign = rating.campaign
    if campaign is None:
        return store.add_ratings([rating, *also])

    # The tags and further answers go with the rating, in its transaction, or not at all.
    batches = [Batch("ratings", tuple(map(record_row, (rating, *also))))]
    if tags:
        batches.append(Batch("tag_labels", tuple(map(record_row, tags))))
    # No other save or take of the answer from the check until the label is committed.
    with campaigns.label_turn(store, campaign, rating.response_id) as turn:

        def within_rules(con: Connection) -> None:
            response, rater = rating.response_id, rating.rater
            refusal = campaigns.label_refusal(con, campaign, response, rater, turn=turn)
            if refusal is not None:
                raise LabelRefused(refusal)
            campaigns.release_after_save(con, campaign, response, rater)

        return store.write(batches, spool_if_busy=False, check=within_rules)


def rate(
    store: Store,
    response_id: str,
    *,
    annotator: str,
    rubric: str,
    rubric_version: str,
    value: float | None,
    scale: tuple[float, float],
    comment: str | None = None,
    overrides: str | None = None,
    detail: ResponseDetail | None = None,
    provenance: Provenance | None = None,
) -> Saved[Rating]:
    """Check and store a person's rating (or override) of one answer; `detail` is the
    answer as shown (see `save_rating`). Rating an answer again supersedes the earlier label."""
    rating = human_rating(
        response_id,
        annotator=annotator,
        rubric=rubric,
        rubric_version=rubric_version,
        value=value,
        scale=scale,
        comment=comment,
        overrides=overrides,
        provenance=provenance,
    )
    result = save_rating(store, rating, detail=detail)
    return Saved(rating, pending=result.pending is not None)


def rubrics_of_kind(kind: str, rubrics: Sequence[Rubric] | None = None) -> tuple[Rubric, ...]:
    """The rubrics (by default every known one) that rate single answers ("rating") or
    compare two ("pairwise")."""
    return tuple(r for r in (list_rubrics() if rubrics is None else rubrics) if r.kind == kind)


def default_rubric_name(names: Sequence[str], *preferred: str | None) -> str | None:
    """The rubric to offer first: the first of `preferred` that is known, else the first
    known one."""
    for name in preferred:
        if name in names:
            return name
    return names[0] if names else None


def scale_legend(rubric: Rubric, *, notes: Mapping[str, str] | None = None) -> str:
    """One line per scale point: "4  helpful: room for some improvement…", then what the
    point means in a campaign (`notes`, by point), as "— here: …"."""
    if rubric.scale_low is None or rubric.scale_high is None:
        return ""
    lines = []
    for point in scale_points(rubric.scale_low, rubric.scale_high):
        label = rubric.labels.get(f"{point:g}", "")
        note = (notes or {}).get(f"{point:g}")
        lines.append(f"{point:g}  {label}".rstrip() + (f" — here: {note}" if note else ""))
    return "\n".join(lines)
