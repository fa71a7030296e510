"""Importing a file in one of the known formats: stage it with SQL, check it, insert what is new."""

from __future__ import annotations

import logging
from typing import Any

from dashboard.export.formulas import is_judgeboard_csv
from dashboard.ids import utc_now
from dashboard.ingest import counts_sql, load_sql, read_sql, rejects, rejects_sql, scales_sql
from dashboard.ingest.errors import (
    IngestError,
    map_value,
    other_format,
    pick_column,
    reader_reason,
)
from dashboard.ingest.formats import FORMATS, PAIR, PREFERENCE, RATING, SINGLE, Field, Format
from dashboard.ingest.locate import jsonl_line, locate
from dashboard.ingest.mapping_sql import UNMAPPED
from dashboard.ingest.plan import Counts, FilePlan, Imported, Reject
from dashboard.ingest.stage_sql import StageField, StagePlan, stage_params, stage_select, stage_sql
from dashboard.store.connection import Connection, DatabaseError
from dashboard.store.writes import ensure_dataset
from dashboard.types import TASK_TYPES, Dataset

log = logging.getLogger(__name__)
UNMAPPED_MARK = UNMAPPED + "\x1e"


def source_name(fmt: Format, plan: FilePlan, index: int) -> str:
    """The file's own name for a format's field (the --map source when mapped)."""
    name = fmt.fields[index].name
    found = plan.columns.view.get(name)
    return found.name if found else name


def _missing_column(plan: FilePlan, name: str) -> IngestError:
    return IngestError(
        f"the file has no such column (it has: {', '.join(plan.columns.file_columns)})",
        file=plan.path,
        field=name,
        remedy=pick_column(name),
    )


def _stage_field(plan: FilePlan, index: int, f: Field, params: dict[str, Any]) -> StageField:
    """The stage's view of one field: its column, or the mapping's constant or value map
    (whose values are bound parameters named after the field's position)."""
    found = plan.columns.view.get(f.name)
    mapped = plan.mapping.get(f.name)
    column, raw_type = (found.name, found.sql_type) if found else (None, None)
    constant = value_map = None
    if mapped is not None and mapped.constant is not None:
        constant, column = f"const_{index}", None
        params[constant] = mapped.constant
    elif mapped is not None and mapped.values is not None:
        value_map = f"map_{index}"
        params[f"{value_map}_from"] = [raw for raw, _ in mapped.values]
        params[f"{value_map}_to"] = [to for _, to in mapped.values]
    return StageField(
        index,
        column,
        raw_type,
        f.kind,
        f.target,
        f.required,
        f.nullable,
        f.group,
        constant,
        value_map,
    )


def stage_plan(plan: FilePlan, fmt: Format) -> StagePlan:
    params: dict[str, Any] = {
        "path": str(plan.read_path),
        "dataset_override": plan.dataset,
        "dataset_default": plan.dataset_default,
        "system": plan.system,
        "system_default": plan.path.stem,
        "rater_default": plan.path.stem,
        "task_types": list(TASK_TYPES),
    }
    fields = []
    for index, f in enumerate(fmt.fields):
        if f.required and f.name not in plan.columns.view:
            raise _missing_column(plan, f.name)
        fields.append(_stage_field(plan, index, f, params))
    claimed = {f.column for f in fields if f.column is not None}
    extras = tuple(c for c in plan.columns.file_columns if c not in claimed and c not in fmt.ignore)
    reader = read_sql.reader_sql(
        plan.kind, size_bytes=plan.size_bytes, full_sample=plan.full_sample
    )
    restore = is_judgeboard_csv(plan.kind, plan.columns.file_columns)
    return StagePlan(
        reader, plan.kind == "csv", fmt.shape, fmt.task_rule, tuple(fields), extras, params, restore
    )


KIND_NAMES = {"jsonl": "JSONL", "json": "a JSON array", "csv": "CSV", "parquet": "Parquet"}


def read_error(
    plan: FilePlan, fmt: Format | None, error: Exception, *, what: str | None = None
) -> IngestError:
    """Our own message for a file DuckDB refused: the bad record when a scan finds it, else
    what the file could not be read as. DuckDB's own text stays in the log."""
    log.debug("%s: DuckDB refused the file: %s", plan.path, error)
    found = locate(plan.path, plan.kind, fmt, plan.mapping)
    if found is not None:
        return found
    reason = reader_reason(str(error), kind=plan.kind)  # the refusals we can say in words
    if what is None:
        return IngestError(
            f"cannot read the file as {KIND_NAMES.get(plan.kind, plan.kind)}"
            + (f": {reason}" if reason else ""),
            file=plan.path,
            file_kind=plan.kind,
        )
    return IngestError(
        f"cannot read the file as {what}: a column holds values of another type than "
        f"{what} has there (columns: {plan.columns.described()})",
        file=plan.path,
        file_kind=plan.kind,
        remedy=other_format(),
    )


def staged_error(
    plan: FilePlan, fmt: Format | None, found: load_sql.Problem, *, record: int | None = None
) -> IngestError:
    """The IngestError of a staged `_problem` ("<field index or name>\x1f<message>"), the
    record numbered `record` (default: its index in the file, plus 1)."""
    key, _, problem = found.problem.partition("\x1f")
    field_name = source_name(fmt, plan, int(key)) if key.isdigit() and fmt else key
    record = record or plan.original_record(found.index)
    line = jsonl_line(plan.path, record) if plan.kind == "jsonl" else None
    remedy = None
    if UNMAPPED_MARK in problem and fmt is not None and key.isdigit():
        problem, _, value = problem.partition(UNMAPPED_MARK)
        mapped = plan.mapping[fmt.fields[int(key)].name]
        listed = ", ".join(repr(raw) for raw in mapped.mapped_from)
        problem = f"the value {value!r} {UNMAPPED} (mapped: {listed})"
        remedy = map_value(value, column=field_name, spec=mapped.spec())
    return IngestError(
        problem,
        file=plan.path,
        record=record,
        line=line,
        field=field_name,
        file_kind=plan.kind,
        remedy=remedy,
    )


def check_stage(
    con: Connection, plan: FilePlan, fmt: Format | None, *, rows: load_sql.Rows | None = None
) -> None:
    """Raise IngestError for the first bad record of the staged rows (default: `_stage`,
    built in file order)."""
    found = load_sql.first_problem(con, rows or load_sql.ordered_stage())
    if found is not None:
        raise staged_error(plan, fmt, found)


def check_ids(con: Connection, plan: FilePlan, fmt: Format, rows: load_sql.Rows) -> None:
    """Two records of one dataset with the same id must hold the same item."""
    found = load_sql.conflicting_id(con, rows)
    if found is None:
        return
    where = (
        "an item already stored in this dataset"
        if found.earlier_index < 0
        else f"record {found.earlier_index + 1}"
    )
    field_name = next(
        (source_name(fmt, plan, i) for i, f in enumerate(fmt.fields) if f.target == "external_id"),
        "id",
    )
    raise IngestError(
        f"duplicate id {found.external_id!r}: {where} has this id with different content",
        file=plan.path,
        record=plan.original_record(found.index),
        field=field_name,
        line=jsonl_line(plan.path, plan.original_record(found.index))
        if plan.kind == "jsonl"
        else None,
        file_kind=plan.kind,
    )


def check_scales(con: Connection, plan: FilePlan, fmt: Format, rows: load_sql.Rows) -> None:
    """A rubric has one scale: a rating on another scale than the stored ratings of its
    rubric, or than an earlier record's, is refused, naming both scales."""
    found = scales_sql.scale_conflict(con, rows)
    if found is None:
        return
    where = "the ratings already stored" if found.other_index < 0 else None
    raise IngestError(
        scale_message(found, where or f"record {found.other_index + 1} of this file"),
        file=plan.path,
        record=plan.original_record(found.index),
        field=source_name(fmt, plan, _index_of(fmt, "scale_low")),
        line=jsonl_line(plan.path, plan.original_record(found.index))
        if plan.kind == "jsonl"
        else None,
        file_kind=plan.kind,
    )


def scale_message(found: scales_sql.ScaleConflict, where: str) -> str:
    return (
        f"rubric {found.rubric!r} is on the scale {found.scale_low:g}–{found.scale_high:g} "
        f"here, but on {found.other_low:g}–{found.other_high:g} in {where}; a rubric keeps one "
        "scale in every dataset: give this one another rubric name, or fix its scale"
    )


def _index_of(fmt: Format, name: str) -> int:
    return next(i for i, f in enumerate(fmt.fields) if f.name == name)


def _stage(
    con: Connection,
    plan: FilePlan,
    fmt: Format,
    staged: StagePlan,
    on_progress: read_sql.ProgressFn | None,
) -> load_sql.Rows:
    """Build `_stage`; return how to number its rows in file order.

    Single answers, the big files, are staged in any order: DuckDB's reader then needs no
    reordering buffers (a million RAG records staged in 2.5 s instead of 3-4 s, within the
    memory limit). Numbering records is for error messages only, so it reads the file again.
    Under --on-error skip every bad record is numbered, so the stage keeps the file's order.
    """
    sql, params = stage_sql(staged), stage_params(staged)
    in_order = fmt.shape != SINGLE or plan.skip_bad
    try:
        if in_order:
            read_sql.run_with_progress(con, sql, params, on_fraction=on_progress)
            return load_sql.ordered_stage()
        with load_sql.unordered(con):
            read_sql.run_with_progress(con, sql, params, on_fraction=on_progress)
    except DatabaseError as error:
        raise read_error(plan, fmt, error) from None
    return load_sql.reread(stage_select(staged), read_sql.bind(stage_select(staged), params))


def _id_field(plan: FilePlan, fmt: Format) -> tuple[int, str]:
    """The position of the format's id field, and the file's name for it."""
    index = next(i for i, f in enumerate(fmt.fields) if f.target == "external_id")
    return index, source_name(fmt, plan, index)


def _skip_bad(con: Connection, plan: FilePlan, fmt: Format, rows: load_sql.Rows) -> list[Reject]:
    """Leave the stage's bad records out; return them as rejects."""
    if load_sql.has_external_ids(con):
        rejects_sql.mark_id_conflicts(con, _id_field(plan, fmt)[0])
    found = [staged_error(plan, fmt, problem) for problem in rejects_sql.problems(con, rows)]
    raws = rejects.raw_records(plan.path, plan.kind, (e.record or 0 for e in found))
    rejects_sql.keep_good(con)
    return [rejects.as_reject(error, raws.get(error.record or 0)) for error in found]


def _check(con: Connection, plan: FilePlan, fmt: Format, rows: load_sql.Rows) -> None:
    """Stop at the file's first bad record."""
    if load_sql.has_problem(con):
        check_stage(con, plan, fmt, rows=rows)
    if load_sql.has_external_ids(con) and load_sql.has_conflict(con):
        check_ids(con, plan, fmt, rows)


def import_generic(
    con: Connection, plan: FilePlan, *, on_progress: read_sql.ProgressFn | None = None
) -> Imported:
    """Stage, check and insert one file."""
    fmt = FORMATS[plan.fmt]
    rows = _stage(con, plan, fmt, stage_plan(plan, fmt), on_progress)
    unreadable = list(plan.readable.rejects) if plan.readable else []
    records = load_sql.record_count(con) + len(unreadable)
    if records == 0:
        raise IngestError("the file holds no records", file=plan.path)
    if plan.skip_bad:
        unreadable += _skip_bad(con, plan, fmt, rows)
    else:
        _check(con, plan, fmt, rows)
    if fmt.shape == RATING and scales_sql.has_scale_conflict(con):
        check_scales(con, plan, fmt, rows)
    datasets = tuple(load_sql.datasets_of(con, "_stage"))
    counts = insert_stage(con, plan, fmt, datasets)
    counts.duplicates = counts_sql.exact_duplicates(con, "_stage", key=_DUPLICATE_KEYS[fmt.shape])
    if fmt.shape in _JUDGED:
        table, id_column, value_column = _JUDGED[fmt.shape]
        counts.unscored[table] = counts_sql.unscored(con, "_stage", id_column, value_column)
    read_sql.drop(con, "_stage")
    return Imported(counts, records, datasets, tuple(unreadable))


# The table a shape's judgements go to, and their id in the stage.
_JUDGED = {
    RATING: ("ratings", "rating_id", "value"),
    PAIR: ("preferences", "preference_id", "verdict"),
    PREFERENCE: ("preferences", "preference_id", "verdict"),
}
# Records that are exact duplicates share these ids (a cheap first test; see exact_duplicates).
_DUPLICATE_KEYS = {
    SINGLE: "response_id",
    PAIR: "concat_ws(chr(31), response_a, response_b, coalesce(preference_id, ''))",
    RATING: "concat_ws(chr(31), item_id, coalesce(response_id, ''), coalesce(rating_id, ''))",
    PREFERENCE: "concat_ws(chr(31), response_a, response_b, coalesce(preference_id, ''))",
}


def insert_stage(con: Connection, plan: FilePlan, fmt: Format, datasets: tuple[str, ...]) -> Counts:
    for name in datasets:
        ensure_dataset(con, Dataset(name, source=str(plan.path)))
    now = utc_now()
    counts = Counts()
    counts.add("items", load_sql.insert_items(con, "_stage", now=now))
    # A ratings record may hold an item alone, or an item and a response nobody rated.
    responded = "response_id IS NOT NULL" if fmt.shape == RATING else "true"
    counts.add("responses", load_sql.insert_responses(con, "_stage", now=now, where=responded))
    if fmt.shape == RATING:
        counts.add(
            "ratings",
            load_sql.insert_ratings(con, "_stage", now=now, where="rating_id IS NOT NULL"),
        )
    elif fmt.shape in (PAIR, PREFERENCE):
        counts.add(
            "preferences",
            load_sql.insert_preferences(con, "_stage", now=now, where="preference_id IS NOT NULL"),
        )
    return counts
