"""The input formats judgeboard knows without a mapping (docs/formats.md).

Plain data: for each format, its fields, what kind of value each holds, which are required,
and which stage column each fills. `fields_sql.py` and `stage_sql.py` turn these into SQL
and `locate.py` into Python checks. The real public sets (PandaLM,
AlpacaEval, LLMBar, NQ-open, MT-Bench) have their own adapters (`ingest/adapters/`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from dashboard.types import ITEM_FIELDS

# Kinds of value a field of an imported file holds; the stage column holds the normalized form
# (`fields_sql.py` turns each kind into SQL, `locate.py` into Python checks).
TEXT = "text"  # a string
KEY = "key"  # a string or a whole number, kept as text (ids, versions)
SCALAR_TEXT = "scalar_text"  # a string, number or boolean, kept as text (a model's verdict)
TEXTS = "texts"  # a string or a list of strings -> a list
PASSAGE = "passage"  # a string or a list of strings -> one string, paragraphs joined
STRINGS = "strings"  # a list of strings
OPTIONS = "options"  # a list of option texts, or an object {"A": text, ...}
LETTERS = "letters"  # "B", "A, C" or ["A", "C"] -> a list of capital letters
LABEL = "label"  # hallucination gold: true/yes/hallucinated/1 or false/no/faithful/0
NUMBER = "number"  # a number (or a numeric string, as CSV has)
HISTORY = "history"  # [{"role", "content"}, ...] or alternating user/assistant strings
VERDICT = "verdict"  # "A", "B" or "tie"
SIDE = "side"  # "A" or "B"
RATER_KIND = "rater_kind"  # "llm" or "human"
# A rating's rater kind: "llm", "human", or "reference" (a score an eval tool computed against
# the item's reference, such as lm-eval's acc: neither a judge nor a person).
RATING_RATER_KIND = "rating_rater_kind"
SELECTION = "selection"  # how a label's response was chosen: dashboard.types.SELECTIONS
SOURCE = "source"  # where a label was written: dashboard.types.SOURCES
PROBABILITY = "probability"  # a number in (0, 1]
FLAG = "flag"  # true/yes/1 or false/no/0
TASK = "task"  # one of dashboard.types.TASK_TYPES
TIMESTAMP = "timestamp"  # an ISO date-time
OBJECT = "object"  # a JSON object (metadata), or its JSON text

# Shapes of a record: what one record of a format holds.
SINGLE = "single"  # one response per record
PAIR = "pair"  # two responses per record (answer_a, answer_b), maybe a preference
RATING = "rating"  # one response and one rating per record
PREFERENCE = "preference"  # two responses and one preference per record
# Groups of fields a rating record may leave out whole: its rating (an item and a response
# nobody rated), or its rating and its response (an item alone).
RATED = "rated"
RESPONDED = "responded"


@dataclass(frozen=True)
class Field:
    name: str  # the column name in the file (after --map)
    kind: str
    target: str  # the stage column it fills
    required: bool = False  # the file must have it, and (unless nullable) every record too
    nullable: bool = False  # required as a column, but a record may leave it null
    # RATED or RESPONDED: the field is part of a record's rating or response, which a record
    # may leave out whole (every field of the group null); required only when it has one.
    group: str | None = None


@dataclass(frozen=True)
class Format:
    name: str
    shape: str
    task_rule: str  # how the task type is chosen when the record does not say
    fields: tuple[Field, ...]
    detect: tuple[frozenset[str], ...]  # the format is detected when any key set is present

    # Columns read and dropped: what `judgeboard export` adds for people, derivable here.
    ignore: frozenset[str] = frozenset()

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields if f.required)


def _f(
    name: str,
    kind: str,
    target: str | None = None,
    *,
    required: bool = False,
    nullable: bool = False,
    group: str | None = None,
) -> Field:
    return Field(name, kind, target or name, required, nullable, group)


def _grouped(group: str, *fields: Field) -> tuple[Field, ...]:
    return tuple(replace(f, group=group) for f in fields)


_RECORD = (_f("id", KEY, "external_id"), _f("system", TEXT), _f("task_type", TASK))
# The item's fields as a file names them (`dashboard.types.ITEM_FIELDS`); the item's own id
# comes last in the formats, and the importer reads it as `given_item_id`.
_ITEM = tuple(
    _f(f.file_column, f.kind, required=f.name == "question")
    for f in ITEM_FIELDS
    if f.name != "item_id"
)
# How the labelled response was chosen, and the campaign and blindness of the label.
_PROVENANCE = (
    _f("selection", SELECTION),
    _f("inclusion_probability", PROBABILITY),
    _f("campaign", TEXT),
    _f("blind", FLAG),
    _f("source", SOURCE),
)
_JUDGEMENT = (
    _f("rater_kind", RATER_KIND, required=True),
    _f("rater", TEXT, required=True),
    _f("rubric", TEXT, required=True),
    _f("rubric_version", KEY),
    _f("unscored_reason", TEXT),
    _f("explanation", TEXT),
    _f("raw_output", TEXT),
    _f("comment", TEXT),
    _f("created_utc", TIMESTAMP),
    _f("supersedes", KEY),
    *_PROVENANCE,
)

RAG = Format(
    "rag",
    SINGLE,
    "context",
    (
        _f("question", TEXT, required=True),
        _f("answer", TEXT, required=True),
        _f("gt_answer", TEXTS, "reference_answers"),
        _f("gt_context", PASSAGE, "reference_context"),
        _f("document", TEXT),
        _f("contexts", STRINGS),
        *_RECORD,
    ),
    (frozenset({"question", "answer"}),),
)

MCQA = Format(
    "mcqa",
    SINGLE,
    "letters",
    (
        _f("question", TEXT, required=True),
        _f("options", OPTIONS, required=True),
        _f("gold", LETTERS, "gold_letters", required=True),
        _f("answer", TEXT, required=True),
        *_RECORD,
    ),
    (frozenset({"options", "gold"}),),
)

HALLUCINATION = Format(
    "hallucination",
    SINGLE,
    "hallucination",
    (
        _f("question", TEXT, required=True),
        _f("context", PASSAGE, "reference_context"),
        _f("candidate", TEXT, "candidate_answer", required=True),
        _f("label", LABEL, "hallucination_gold", required=True),
        _f("prediction", SCALAR_TEXT, "answer", required=True),
        *_RECORD,
    ),
    (frozenset({"candidate", "label"}), frozenset({"prediction", "label"})),
)

CONVERSATIONAL = Format(
    "conversational",
    SINGLE,
    "conversational",
    (
        _f("history", HISTORY, required=True),
        _f("question", TEXT, required=True),
        _f("gold_answers", TEXTS, "reference_answers"),
        _f("answer", TEXT, required=True),
        *_RECORD,
    ),
    (frozenset({"history", "question"}),),
)

PAIRWISE = Format(
    "pairwise",
    PAIR,
    "pairwise",
    (
        _f("question", TEXT, required=True),
        _f("answer_a", TEXT, required=True),
        _f("answer_b", TEXT, required=True),
        _f("system_a", TEXT, required=True),
        _f("system_b", TEXT, required=True),
        # winner is in the file's own frame (A = answer_a) whichever answer was shown first.
        _f("winner", VERDICT, "verdict"),
        _f("shown_first", SIDE),
        _f("rater", TEXT),
        _f("rater_kind", RATER_KIND),
        _f("rubric", TEXT),
        _f("explanation", TEXT),
        *_PROVENANCE,
        _f("id", KEY, "external_id"),
    ),
    (frozenset({"answer_a", "answer_b"}),),
)

# What `judgeboard export` adds for people, derivable from the rest: read and dropped. The ids
# it writes (item_id, response_id, response_a/_b, rating_id, preference_id) are fields, used
# instead of the content hashes, so an export re-imports onto the same rows even when they
# were made with other ids.
_EXPORTED = frozenset({"is_current", "effective_score", "effective_source"})

# A record whose rating fields are all null holds an item and a response nobody rated; one
# whose response fields are null too holds an item alone. That is how an export carries them.
RATINGS = Format(
    "ratings",
    RATING,
    "context",
    (
        *_ITEM,
        *_grouped(
            RESPONDED,
            _f("system", TEXT, required=True),
            _f("answer", TEXT, required=True),
            _f("contexts", STRINGS),
            _f("response_metadata", OBJECT),
            _f("response_id", KEY, "given_response_id"),
        ),
        *_grouped(
            RATED,
            _f("rater_kind", RATING_RATER_KIND, required=True),
            *_JUDGEMENT[1:],
            _f("value", NUMBER, required=True, nullable=True),
            _f("scale_low", NUMBER, required=True),
            _f("scale_high", NUMBER, required=True),
            _f("rating_id", KEY),
            _f("overrides", KEY),
            _f("call_id", KEY),
        ),
        _f("item_id", KEY, "given_item_id"),
    ),
    (frozenset({"rater_kind", "rater", "rubric", "value"}),),
    _EXPORTED,
)

PREFERENCES = Format(
    "preferences",
    PREFERENCE,
    "pairwise",
    (
        *_ITEM,
        _f("system_a", TEXT, required=True),
        _f("answer_a", TEXT, required=True),
        _f("system_b", TEXT, required=True),
        _f("answer_b", TEXT, required=True),
        _f("contexts_a", STRINGS),
        _f("contexts_b", STRINGS),
        _f("response_metadata_a", OBJECT),
        _f("response_metadata_b", OBJECT),
        *_JUDGEMENT,
        _f("verdict", VERDICT, required=True, nullable=True),
        _f("shown_first", SIDE),
        _f("preference_id", KEY),
        _f("call_id", KEY),
        _f("item_id", KEY, "given_item_id"),
        _f("response_a", KEY, "given_response_a"),
        _f("response_b", KEY, "given_response_b"),
    ),
    (frozenset({"rater_kind", "rater", "rubric", "verdict"}),),
    _EXPORTED,
)

# Detection tries these in order: the most specific key sets first.
FORMATS: dict[str, Format] = {
    f.name: f for f in (RATINGS, PREFERENCES, PAIRWISE, MCQA, HALLUCINATION, CONVERSATIONAL, RAG)
}
