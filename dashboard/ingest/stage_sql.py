"""The staging statement for the known formats: one pass from DuckDB's reader to `_stage`.

`stage_sql(plan)` builds one CREATE TEMP TABLE … AS SELECT in layers, each a projection over
the one below, so DuckDB streams the file once:
1. normalized fields (see fields_sql.py), unknown columns as `metadata`, and `_problem`,
   the first thing wrong with the record; for ratings, also whether the record has a rating
   (`_rated`) and a response (`_responded`): an export writes rows without them;
2. defaults (dataset, system, task type, rater), the rows' own metadata with the unknown
   columns added, and checks across fields (a gold letter beyond the options, a rating off
   its scale, a missing value with no reason);
3. the item id, then the response ids, then the rating or preference id (NULL where the
   record has none).
A stage of single answers is built without keeping the file's order (faster, and lighter on
memory); an error message then reads the file again in order to number the bad record (see
`load_sql.reread`). Other stages keep the order, and a row's rowid gives its record number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dashboard.export.formulas import restored_sql
from dashboard.ingest.fields_sql import (
    VALUE_TYPES,
    FieldSql,
    field_sql,
    first_problem,
    non_blank,
    quote,
    raw_column,
)
from dashboard.ingest.formats import PAIR, PREFERENCE, RATED, RATING, RESPONDED, SINGLE
from dashboard.ingest.ids_sql import content_id_sql, item_id_sql, response_id_sql
from dashboard.ingest.mapping_sql import mapped_sql
from dashboard.types import ITEM_CONTENT_FIELDS

# The item's fields (`dashboard.types.Item`, its id and metadata aside), each as the normalized
# value of its kind.
# The unscored reason of a judge's pairwise row whose file gives no winner.
NO_WINNER = "no winner in the file for this judge"
ITEM_STAGE_COLUMNS = {f.name: VALUE_TYPES[f.kind] for f in ITEM_CONTENT_FIELDS}
_ONE = {"system": "VARCHAR", "answer": "VARCHAR", "contexts": "VARCHAR[]"}
_TWO = {"system_a": "VARCHAR", "answer_a": "VARCHAR", "system_b": "VARCHAR", "answer_b": "VARCHAR"}
# The rows' own metadata, as an export writes it (the file's unknown columns are added to it).
_GIVEN_META_ONE = {"item_metadata": "JSON", "response_metadata": "JSON"}
_GIVEN_META_TWO = {
    "item_metadata": "JSON",
    "contexts_a": "VARCHAR[]",
    "contexts_b": "VARCHAR[]",
    "response_metadata_a": "JSON",
    "response_metadata_b": "JSON",
}
_JUDGEMENT = {
    "rater_kind": "VARCHAR",
    "rater": "VARCHAR",
    "rubric": "VARCHAR",
    "rubric_version": "VARCHAR",
    "unscored_reason": "VARCHAR",
    "explanation": "VARCHAR",
    "raw_output": "VARCHAR",
    "comment": "VARCHAR",
    "created_utc": "TIMESTAMP",
    "supersedes": "VARCHAR",
    "call_id": "VARCHAR",
    "selection": "VARCHAR",
    "inclusion_probability": "DOUBLE",
    "campaign": "VARCHAR",
    "blind": "BOOLEAN",
    "source": "VARCHAR",
}
_RATING = {
    "value": "DOUBLE",
    "scale_low": "DOUBLE",
    "scale_high": "DOUBLE",
    "rating_id": "VARCHAR",
    "overrides": "VARCHAR",
}
_PREFERENCE = {"verdict": "VARCHAR", "shown_first": "VARCHAR", "preference_id": "VARCHAR"}
# Ids an export wrote: used instead of the content hashes when present.
_GIVEN_ONE = {"given_item_id": "VARCHAR", "given_response_id": "VARCHAR"}
_GIVEN_TWO = {
    "given_item_id": "VARCHAR",
    "given_response_a": "VARCHAR",
    "given_response_b": "VARCHAR",
}
STAGE_COLUMNS = {
    SINGLE: {**ITEM_STAGE_COLUMNS, **_ONE},
    PAIR: {**ITEM_STAGE_COLUMNS, **_TWO, **_PREFERENCE, **_JUDGEMENT},
    RATING: {
        **ITEM_STAGE_COLUMNS,
        **_ONE,
        **_JUDGEMENT,
        **_RATING,
        **_GIVEN_ONE,
        **_GIVEN_META_ONE,
    },
    PREFERENCE: {
        **ITEM_STAGE_COLUMNS,
        **_TWO,
        **_JUDGEMENT,
        **_PREFERENCE,
        **_GIVEN_TWO,
        **_GIVEN_META_TWO,
    },
}
TASK_RULES = {
    "context": (
        f"CASE WHEN {non_blank('reference_context')} THEN 'open_qa_context' ELSE 'open_qa' END"
    ),
    "letters": "CASE WHEN len(gold_letters) = 1 THEN 'mcqa_single' ELSE 'mcqa_multi' END",
    "hallucination": "'hallucination'",
    "conversational": "'conversational_qa'",
    "pairwise": "'pairwise'",
}


@dataclass(frozen=True)
class StageField:
    index: int  # the field's position in its format; names it in error messages
    column: str | None  # the file's column, None when the file lacks it
    raw_type: str | None
    kind: str
    target: str
    required: bool = False
    nullable: bool = False
    group: str | None = None  # RATED or RESPONDED
    # From a mapping: the bound parameter holding the field's constant, or the prefix of the
    # bound lists mapping the column's values (`<prefix>_from`, `<prefix>_to`).
    constant: str | None = None
    value_map: str | None = None

    @property
    def present(self) -> bool:
        return self.column is not None or self.constant is not None

    @property
    def as_text(self) -> bool:
        """A constant or a mapped value is text, read the way a CSV cell is (so a list field's
        constant may be JSON text)."""
        return self.constant is not None or self.value_map is not None


@dataclass(frozen=True)
class StagePlan:
    reader: str  # read_sql.reader_sql(...), reading $path
    csv: bool
    shape: str
    task_rule: str
    fields: tuple[StageField, ...]
    extra_columns: tuple[str, ...] = ()  # kept in the item's metadata
    params: dict[str, Any] = field(default_factory=dict)
    # A judgeboard CSV export: its text cells lose the formula escape (`export/formulas.py`).
    restore_text: bool = False

    def index_of(self, target: str) -> int | None:
        return next((f.index for f in self.fields if f.target == target), None)


def _source(plan: StagePlan, f: StageField) -> str:
    """The file's own column, as read (before any value mapping); a judgeboard CSV export's
    text loses its formula escape first."""
    col = "r." + quote(f.column or "")
    return raw_column(restored_sql(col) if plan.restore_text else col, f.kind, csv=plan.csv)


def _raw(plan: StagePlan, f: StageField) -> str:
    """The field's raw value: the constant, the mapped value, or the column."""
    if f.constant is not None:
        return raw_column(f"${f.constant}::VARCHAR", f.kind, csv=True)
    if f.value_map is not None:
        return raw_column(_mapped(plan, f).value, f.kind, csv=True)
    return _source(plan, f)


def _mapped(plan: StagePlan, f: StageField) -> FieldSql:
    return mapped_sql("r." + quote(f.column or ""), f.raw_type or "JSON", f.value_map or "")


def _blank(plan: StagePlan, *groups: str) -> str | None:
    """SQL: every raw column of these field groups is null (None: the file has none)."""
    columns = [f"{_raw(plan, f)} IS NULL" for f in plan.fields if f.group in groups and f.present]
    return f"({' AND '.join(columns)})" if columns else None


def _presence(plan: StagePlan) -> dict[str, str]:
    """SQL for whether a record has a rating (`_rated`) and a response (`_responded`)."""
    if plan.shape != RATING:
        return {}
    unrated = _blank(plan, RATED) or "false"
    bare = _blank(plan, RATED, RESPONDED) or "false"
    return {RATED: f"NOT {unrated}", RESPONDED: f"NOT {bare}"}


def _missing(col: str, f: StageField, presence: dict[str, str]) -> str:
    """The "is missing" check of a required field: only where its group is there."""
    if f.group in presence:
        return f"CASE WHEN {col} IS NULL AND {presence[f.group]} THEN 'is missing' END"
    return f"CASE WHEN {col} IS NULL THEN 'is missing' END"


def _metadata(plan: StagePlan) -> str:
    """The file's unknown columns as a JSON object, or NULL."""
    if not plan.extra_columns:
        return "NULL::JSON"
    pairs = ", ".join(f"$meta_{i}, r.{quote(c)}" for i, c in enumerate(plan.extra_columns))
    return f"json_object({pairs})"


def _layer1(plan: StagePlan) -> str:
    values: dict[str, str] = {}
    problems: list[tuple[int, str]] = []
    presence = _presence(plan)
    for f in plan.fields:
        if not f.present:
            continue
        col = _raw(plan, f)
        raw_type = "VARCHAR" if f.as_text else f.raw_type or "JSON"
        sql = field_sql(f.kind, col, raw_type, csv=plan.csv or f.as_text)
        if f.value_map is not None:
            problems.append((f.index, _mapped(plan, f).problem))
        values[f.target] = sql.value
        check = (
            f"coalesce({_missing(col, f, presence)}, {sql.problem})"
            if f.required and not f.nullable
            else sql.problem
        )
        if check != "NULL":
            problems.append((f.index, check))
    select = [
        f"{values.get(name, 'NULL')}::{sql_type} AS {name}"
        for name, sql_type in STAGE_COLUMNS[plan.shape].items()
    ]
    select.append(f"{_metadata(plan)} AS metadata")
    select += [f"{sql} AS _{group}" for group, sql in presence.items()]
    select.append(f"{first_problem(problems)} AS _problem")
    return f"SELECT {', '.join(select)} FROM {plan.reader} r"


def _checks(plan: StagePlan) -> list[tuple[int, str]]:
    """Problems that need several fields of a record."""
    checks = []
    gold, options = plan.index_of("gold_letters"), plan.index_of("options")
    if gold is not None and plan.task_rule == "letters":
        checks.append((gold, "CASE WHEN len(gold_letters) = 0 THEN 'names no letter' END"))
    if gold is not None and options is not None:
        beyond = "list_filter(gold_letters, lambda g: ascii(g) - 64 > len(coalesce(options, [])))"
        checks.append(
            (
                gold,
                f"CASE WHEN len({beyond}) > 0 THEN 'letter ' || "
                f"array_to_string({beyond}, ', ') || ' is not among the ' || "
                "len(coalesce(options, [])) || ' options' END",
            )
        )
    value = plan.index_of("value")
    if value is not None:
        checks.append(
            (
                value,
                "CASE WHEN NOT _rated THEN NULL "
                "WHEN value IS NULL AND unscored_reason IS NULL THEN "
                "'is missing (an unscored rating needs unscored_reason)' "
                "WHEN scale_low >= scale_high THEN 'the scale ' || scale_low || "
                "'–' || scale_high || ' is empty' "
                "WHEN value < scale_low OR value > scale_high THEN 'value ' || "
                "value || ' is outside the scale ' || scale_low || '–' || "
                "scale_high END",
            )
        )
    verdict = plan.index_of("verdict")
    if verdict is not None and plan.shape == PREFERENCE:
        checks.append(
            (
                verdict,
                "CASE WHEN verdict IS NULL AND unscored_reason IS NULL THEN "
                "'is missing (an unscored verdict needs unscored_reason)' END",
            )
        )
    return checks


def _layer2(plan: StagePlan, below: str) -> str:
    replace = [
        "coalesce($dataset_override, dataset, $dataset_default) AS dataset",
        f"coalesce(task_type, {TASK_RULES[plan.task_rule]}) AS task_type",
        f"coalesce(_problem, {first_problem(_checks(plan))}) AS _problem",
    ]
    if plan.shape == SINGLE:
        replace.append("coalesce(system, $system, $system_default) AS system")
    if plan.shape == RATING:
        replace.append(
            "CASE WHEN _responded THEN coalesce(system, $system, $system_default) END AS system"
        )
    if plan.shape == PAIR:
        replace += [
            # A judge's row without a winner is a verdict that did not parse, counted as
            # unscored; a pair nobody judged (no judge named) is a pair alone.
            f"CASE WHEN verdict IS NULL AND rater_kind = 'llm' THEN '{NO_WINNER}' "
            "ELSE unscored_reason END AS unscored_reason",
            "coalesce(rater_kind, 'human') AS rater_kind",
            "coalesce(rater, $rater_default) AS rater",
            "coalesce(rubric, 'preference') AS rubric",
        ]
    if plan.shape != SINGLE:
        replace.append("coalesce(rubric_version, '1') AS rubric_version")
    if plan.shape in (PAIR, PREFERENCE):
        replace.append("coalesce(shown_first, 'A') AS shown_first")
    if plan.shape in (RATING, PREFERENCE):
        replace.append(f"{_merged('item_metadata', 'metadata')} AS metadata")
    if plan.shape == RATING:
        replace.append(f"{_merged('response_metadata', 'metadata')} AS response_metadata")
    return f"SELECT * REPLACE ({', '.join(replace)}) FROM ({below})"


def _merged(given: str, extra: str) -> str:
    """A row's own metadata with the file's unknown columns added to it (as JSON merge patch
    does: an unknown column that is null adds no key)."""
    return (
        f"CASE WHEN {extra} IS NULL THEN {given} WHEN {given} IS NULL THEN {extra} "
        f"ELSE json_merge_patch({given}, {extra}) END"
    )


def _given(plan: StagePlan, column: str, computed: str) -> str:
    given = f"given_{column}"
    return f"coalesce({given}, {computed})" if given in STAGE_COLUMNS[plan.shape] else computed


def _ids(plan: StagePlan, below: str) -> str:
    with_item = f"SELECT *, {_given(plan, 'item_id', item_id_sql())} AS item_id FROM ({below})"
    if plan.shape in (SINGLE, RATING):
        computed = response_id_sql("item_id", "system", "answer")
        responses = f"{_given(plan, 'response_id', computed)}"
        responses = (
            f"CASE WHEN _responded THEN {responses} END AS response_id"
            if plan.shape == RATING
            else f"{responses} AS response_id"
        )
    else:
        responses = ", ".join(
            _given(plan, f"response_{s}", response_id_sql("item_id", f"system_{s}", f"answer_{s}"))
            + f" AS response_{s}"
            for s in ("a", "b")
        )
    with_responses = f"SELECT *, {responses} FROM ({with_item})"
    judgement = ("rater_kind", "rater", "rubric", "rubric_version")
    notes = (
        "unscored_reason",
        "explanation",
        "raw_output",
        "comment",
        "CAST(created_utc AS VARCHAR)",
    )
    if plan.shape == RATING:
        rating = content_id_sql(
            "response_id", *judgement, "CAST(value AS VARCHAR)", *notes, "overrides"
        )
        return (
            f"SELECT * REPLACE (CASE WHEN _rated THEN coalesce(rating_id, {rating}) END "
            f"AS rating_id) FROM ({with_responses})"
        )
    if plan.shape in (PAIR, PREFERENCE):
        preference = content_id_sql(
            "item_id", "response_a", "response_b", *judgement, "verdict", "shown_first", *notes
        )
        return (
            f"SELECT * REPLACE (CASE WHEN verdict IS NOT NULL OR unscored_reason IS NOT NULL"
            f" THEN coalesce(preference_id, {preference}) END AS preference_id) "
            f"FROM ({with_responses})"
        )
    return with_responses


def stage_select(plan: StagePlan) -> str:
    """The SELECT that reads, checks and identifies the file's records."""
    return _ids(plan, _layer2(plan, _layer1(plan)))


def stage_sql(plan: StagePlan, *, name: str = "_stage") -> str:
    """CREATE TEMP TABLE `name` from the file; bind `stage_params(plan)`."""
    return f"CREATE TEMP TABLE {name} AS {stage_select(plan)}"


def stage_params(plan: StagePlan) -> dict[str, Any]:
    meta = {f"meta_{i}": c for i, c in enumerate(plan.extra_columns)}
    return {**plan.params, **meta}
