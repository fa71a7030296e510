"""The vocabulary of judgeboard: task types, rater kinds and the records that move between layers.

Everything here is plain data. The store turns rows into these records; pages, the CLI, the
judge panel and the report pass them around. Field names follow the database columns.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, Field, dataclass, field, fields
from datetime import datetime
from typing import Any

TASK_TYPES: tuple[str, ...] = (
    "open_qa",
    "open_qa_context",
    "mcqa_single",
    "mcqa_multi",
    "hallucination",
    "conversational_qa",
    "pairwise",
)
VERDICTS: tuple[str, ...] = ("A", "B", "tie")
# How the responses a person labelled were chosen: a random sample (uniform, or with each
# response's inclusion probability recorded), every response (a census), a targeted pick
# (worst first, disagreement, by hand), or not known. Only random and census labels are a
# sample an estimate may be corrected with (docs/metrics.md, "Judge-corrected estimates").
SELECTIONS: tuple[str, ...] = ("random", "census", "targeted", "unknown")
SAMPLED_SELECTIONS: tuple[str, ...] = ("random", "census")
# Where a rating, preference or tag label was written: a labelling page, the notebook API
# (`add_ratings`, `add_preferences`), `judgeboard import`, or a judge run.
SOURCES: tuple[str, ...] = ("page", "notebook", "import", "judge")
# Who gave a rating: a judge, a person, or a reference score (a score an eval tool computed
# against the item's reference, such as lm-eval's acc: in no panel and no calibration).
# Preferences are a judge's or a person's only.
RATER_KIND_NOUNS: dict[str, str] = {
    "llm": "judge",
    "human": "person",
    "reference": "reference score",
}


@dataclass(frozen=True)
class Dataset:
    name: str
    description: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class DatasetSummary:
    name: str
    n_items: int
    n_responses: int
    n_ratings: int
    n_preferences: int
    task_types: tuple[str, ...] = ()
    systems: tuple[str, ...] = ()


def _column(sql_type: str, kind: str, *, file_column: str | None = None) -> dict[str, str]:
    """The declaration of an item field beyond its Python type (see `ItemField`)."""
    return {"sql_type": sql_type, "kind": kind, "file_column": file_column or ""}


@dataclass(frozen=True)
class Item:
    """One question (with what it is judged against) of a dataset.

    Each field declares its `items` column's DuckDB type and the kind of value an import reads
    into it; `ITEM_FIELDS` lists them. Every other list of item columns (the importer's
    formats, stage and inserts, the export, the answer detail) is derived from it, and
    tests/test_item_fields.py checks them all against it.
    """

    item_id: str = field(metadata=_column("VARCHAR", "key"))
    dataset: str = field(metadata=_column("VARCHAR", "text"))
    task_type: str = field(metadata=_column("VARCHAR", "task"))
    question: str = field(metadata=_column("VARCHAR", "text"))
    reference_answers: tuple[str, ...] = field(default=(), metadata=_column("VARCHAR[]", "texts"))
    reference_context: str | None = field(default=None, metadata=_column("VARCHAR", "passage"))
    document: str | None = field(default=None, metadata=_column("VARCHAR", "text"))
    # The text under test in hallucination detection.
    candidate_answer: str | None = field(default=None, metadata=_column("VARCHAR", "text"))
    # MCQA option texts; option i has letter chr(65 + i).
    options: tuple[str, ...] = field(default=(), metadata=_column("VARCHAR[]", "options"))
    gold_letters: tuple[str, ...] = field(default=(), metadata=_column("VARCHAR[]", "letters"))
    # True = the candidate answer is hallucinated.
    hallucination_gold: bool | None = field(default=None, metadata=_column("BOOLEAN", "label"))
    # Earlier turns: {"role": ..., "content": ...}.
    history: tuple[dict[str, str], ...] = field(default=(), metadata=_column("JSON", "history"))
    external_id: str | None = field(default=None, metadata=_column("VARCHAR", "key"))
    metadata: dict[str, Any] = field(
        default_factory=dict, metadata=_column("JSON", "object", file_column="item_metadata")
    )


@dataclass(frozen=True)
class ItemField:
    """One field of `Item`: the DuckDB type of its column in `items`, the kind of value an
    import reads into it (a kind of `dashboard/ingest/formats.py`: "text", "texts", ...), and
    its column in the files judgeboard exports and imports."""

    name: str
    sql_type: str
    kind: str
    file_column: str


def _item_field(declared: Field[Any]) -> ItemField:
    meta = declared.metadata
    return ItemField(
        declared.name, meta["sql_type"], meta["kind"], meta["file_column"] or declared.name
    )


ITEM_FIELDS: tuple[ItemField, ...] = tuple(_item_field(f) for f in fields(Item))
# What an item says: every field but its id and its metadata. These are what an import stages
# before it computes the id, and what the id covers (`ingest/ids_sql.item_id_sql` states that
# rule on its own, in its own order).
ITEM_CONTENT_FIELDS: tuple[ItemField, ...] = tuple(
    f for f in ITEM_FIELDS if f.name not in ("item_id", "metadata")
)


@dataclass(frozen=True)
class Response:
    response_id: str
    item_id: str
    dataset: str
    system: str
    answer: str
    contexts: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Judgement:
    """What every rating and preference carries beside what it judges and its verdict: the
    rater (an LLM judge or a person) and the rubric, then its provenance, keyword-only.

    `Rating` and `Preference` derive from it, so these fields (and their columns in `ratings`
    and `preferences`) are declared once. `unscored_reason` says why a judgement has no value
    or verdict; `supersedes` names the earlier judgement of the same stream that this one
    replaces; `call_id` is the judge call it came from.
    """

    rater_kind: str
    rater: str
    rubric: str
    rubric_version: str
    _: KW_ONLY
    created_utc: datetime | None = None
    unscored_reason: str | None = None
    explanation: str | None = None
    raw_output: str | None = None
    comment: str | None = None
    supersedes: str | None = None
    call_id: str | None = None
    # How the response was chosen for this label (`SELECTIONS`; None: not recorded, counted as
    # unknown), the chance it had to be chosen when `selection` is "random" and the sample was
    # not uniform, the labelling campaign it belongs to, and whether the person saw no
    # judge's or other person's label before saving it. Judges leave them None.
    selection: str | None = None
    inclusion_probability: float | None = None
    campaign: str | None = None
    blind: bool | None = None
    # Where the row was written (`SOURCES`): a labelling page, the notebook API, an import
    # or a judge run. None: not recorded (rows written before it was).
    source: str | None = None


@dataclass(frozen=True)
class _Rated:
    """What a rating judges; a base of its own so that these come first, as they always have
    (`Rating("r1", "resp1", "human", "ana", ...)`)."""

    rating_id: str
    response_id: str


@dataclass(frozen=True)
class Rating(Judgement, _Rated):
    """One rating of one response by one rater (an LLM judge or a person).

    `value` is on the rubric's own scale [scale_low, scale_high]; None means unscored, and then
    `unscored_reason` says why. `supersedes` names the earlier rating of the same rater on the
    same response and rubric that this one replaces. `overrides` names a judge's rating that a
    person contradicts: the judge's rating stays current for the judge's own metrics, while the
    person's rating becomes the response's effective score.
    """

    value: float | None
    scale_low: float
    scale_high: float
    overrides: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class _Compared:
    """What a preference judges: two responses to one item (see `_Rated`)."""

    preference_id: str
    item_id: str
    response_a: str
    response_b: str


@dataclass(frozen=True)
class Preference(Judgement, _Compared):
    """One pairwise verdict on two responses to the same item.

    `verdict` is in the canonical frame: "A" means `response_a` is better, whatever side it was
    shown on. `shown_first` says which of the two was presented first (on the left).
    """

    verdict: str | None
    shown_first: str


@dataclass(frozen=True)
class JudgeCall:
    """One LLM call made by the judge panel: the unit of caching and of cost.

    `cache_key` identifies the request (model, endpoint, parameters and prompt); a call with
    status "ok" and the same key is never paid for again. `cost_usd` None means unknown.
    """

    call_id: str
    cache_key: str
    run_id: str
    judge: str
    model: str
    rubric: str
    rubric_version: str
    prompt_hash: str
    target_kind: str  # "rating" or "preference"
    status: str  # "ok" or "failed"
    response_id: str | None = None
    item_id: str | None = None
    response_a: str | None = None
    response_b: str | None = None
    shown_first: str | None = None
    error: str | None = None
    raw_output: str | None = None
    attempts: int = 1
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    created_utc: datetime | None = None
    # The model version the provider reported (LiteLLM's response `model`), if any.
    model_version: str | None = None
    # Which of the N asks of `judge --epochs N` this call is (0-based); None before epochs.
    epoch: int | None = None


@dataclass(frozen=True)
class EpochRating:
    """One epoch's rating of a response by a judge asked N times (`judge --epochs N`). The
    rating in `ratings` is the reducer of the N; these rows keep each one, for the judge's
    self-consistency. `value` None means unscored, with its `unscored_reason`."""

    epoch_rating_id: str
    call_id: str
    judge: str
    rubric: str
    rubric_version: str
    response_id: str
    epoch: int
    epochs: int
    value: float | None = None
    unscored_reason: str | None = None
    created_utc: datetime | None = None


@dataclass(frozen=True)
class Probe:
    """One judge result on a perturbed copy of real responses (`kind` "padding": a response
    with a fixed sentence added; "order": a pair in one presentation order). Probes are kept
    apart from ratings and preferences: no system metric reads them."""

    probe_id: str
    kind: str
    judge: str
    rubric: str
    rubric_version: str
    item_id: str
    call_id: str
    response_id: str | None = None
    response_a: str | None = None
    response_b: str | None = None
    shown_first: str | None = None
    value: float | None = None
    verdict: str | None = None
    unscored_reason: str | None = None
    created_utc: datetime | None = None


@dataclass(frozen=True)
class TagLabel:
    """A person's tag of one answer in a campaign (`ticked` or not), saved with their rating;
    `supersedes` names their earlier row of the same tag on the answer."""

    tag_id: str
    response_id: str
    campaign: str
    tag: str
    rater_kind: str
    rater: str
    ticked: bool
    created_utc: datetime | None = None
    supersedes: str | None = None
    selection: str | None = None
    blind: bool | None = None
    source: str | None = None  # as a rating's (`SOURCES`)
    withdrawn: bool = False  # an undo took the save's tag back: counted nowhere


@dataclass(frozen=True)
class Anchor:
    """A response re-judged whenever a judge, its model version or a rubric version changes;
    `chosen_by` is "picked" (by a person) or "sample" (a seeded draw)."""

    anchor_id: str
    response_id: str
    chosen_by: str
    created_utc: datetime | None = None
