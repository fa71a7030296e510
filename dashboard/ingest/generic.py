"""Importing a file in one of the known formats: stage it with SQL, check it, insert what is new."""

from __future__ import annotations

from dashboard.export.formulas import is_judgeboard_csv
from dashboard.ids import utc_now
from dashboard.ingest import load_sql, read_sql
from dashboard.ingest.errors import IngestError, reader_reason
from dashboard.ingest.formats import FORMATS, PAIR, PREFERENCE, RATING, SINGLE, Format
from dashboard.ingest.locate import jsonl_line, locate
from dashboard.ingest.plan import Counts, FilePlan
from dashboard.ingest.stage_sql import StageField, StagePlan, stage_params, stage_select, stage_sql
from dashboard.store.connection import Connection, DatabaseError
from dashboard.store.writes import ensure_dataset
from dashboard.types import TASK_TYPES, Dataset


def source_name(fmt: Format, plan: FilePlan, index: int) -> str:
    """The file's own name for a format's field (the --map source when mapped)."""
    name = fmt.fields[index].name
    found = plan.columns.view.get(name)
    return found.name if found else name


def stage_plan(plan: FilePlan, fmt: Format) -> StagePlan:
    fields = []
    claimed = set()
    for index, f in enumerate(fmt.fields):
        found = plan.columns.view.get(f.name)
        if found is None and f.required:
            raise IngestError(
                "is missing",
                file=plan.path,
                record=1,
                field=f.name,
                line=jsonl_line(plan.path, 1) if plan.kind == "jsonl" else None,
                file_kind=plan.kind,
            )
        if found is not None:
            claimed.add(found.name)
        column, raw_type = (found.name, found.sql_type) if found else (None, None)
        fields.append(
            StageField(index, column, raw_type, f.kind, f.target, f.required, f.nullable, f.group)
        )
    extras = tuple(c for c in plan.columns.file_columns if c not in claimed and c not in fmt.ignore)
    params = {
        "path": str(plan.path),
        "dataset_override": plan.dataset,
        "dataset_default": plan.dataset_default,
        "system": plan.system,
        "system_default": plan.path.stem,
        "rater_default": plan.path.stem,
        "task_types": list(TASK_TYPES),
    }
    reader = read_sql.reader_sql(
        plan.kind, size_bytes=plan.size_bytes, full_sample=plan.full_sample
    )
    restore = is_judgeboard_csv(plan.kind, plan.columns.file_columns)
    return StagePlan(
        reader, plan.kind == "csv", fmt.shape, fmt.task_rule, tuple(fields), extras, params, restore
    )


def read_error(plan: FilePlan, fmt: Format | None, error: Exception) -> IngestError:
    """Our own message for a file DuckDB's reader refused."""
    found = locate(plan.path, plan.kind, fmt, plan.mapping)
    if found is not None:
        return found
    reason = reader_reason(str(error))
    return IngestError(f"cannot read the file: {reason}", file=plan.path, file_kind=plan.kind)


def check_stage(
    con: Connection, plan: FilePlan, fmt: Format | None, *, rows: load_sql.Rows | None = None
) -> None:
    """Raise IngestError for the first bad record of the staged rows (default: `_stage`,
    built in file order)."""
    found = load_sql.first_problem(con, rows or load_sql.ordered_stage())
    if found is None:
        return
    key, _, problem = found.problem.partition("\x1f")
    field_name = source_name(fmt, plan, int(key)) if key.isdigit() and fmt else key
    record = found.index + 1
    line = jsonl_line(plan.path, record) if plan.kind == "jsonl" else None
    raise IngestError(
        problem, file=plan.path, record=record, line=line, field=field_name, file_kind=plan.kind
    )


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
        record=found.index + 1,
        field=field_name,
        line=jsonl_line(plan.path, found.index + 1) if plan.kind == "jsonl" else None,
        file_kind=plan.kind,
    )


def check_scales(con: Connection, plan: FilePlan, fmt: Format, rows: load_sql.Rows) -> None:
    """A rubric has one scale: a rating on another scale than the stored ratings of its
    rubric, or than an earlier record's, is refused, naming both scales."""
    found = load_sql.scale_conflict(con, rows)
    if found is None:
        return
    where = "the ratings already stored" if found.other_index < 0 else None
    raise IngestError(
        scale_message(found, where or f"record {found.other_index + 1} of this file"),
        file=plan.path,
        record=found.index + 1,
        field=source_name(fmt, plan, _index_of(fmt, "scale_low")),
        line=jsonl_line(plan.path, found.index + 1) if plan.kind == "jsonl" else None,
        file_kind=plan.kind,
    )


def scale_message(found: load_sql.ScaleConflict, where: str) -> str:
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
    """
    sql, params = stage_sql(staged), stage_params(staged)
    in_order = fmt.shape != SINGLE
    try:
        if in_order:
            read_sql.run_with_progress(con, sql, params, on_fraction=on_progress)
            return load_sql.ordered_stage()
        with load_sql.unordered(con):
            read_sql.run_with_progress(con, sql, params, on_fraction=on_progress)
    except DatabaseError as error:
        raise read_error(plan, fmt, error) from None
    return load_sql.reread(stage_select(staged), read_sql.bind(stage_select(staged), params))


def import_generic(
    con: Connection, plan: FilePlan, *, on_progress: read_sql.ProgressFn | None = None
) -> tuple[Counts, int, tuple[str, ...]]:
    """Stage, check and insert one file; return (counts, records, datasets)."""
    fmt = FORMATS[plan.fmt]
    rows = _stage(con, plan, fmt, stage_plan(plan, fmt), on_progress)
    records = load_sql.record_count(con)
    if records == 0:
        raise IngestError("the file holds no records", file=plan.path)
    if load_sql.has_problem(con):
        check_stage(con, plan, fmt, rows=rows)
    if load_sql.has_external_ids(con) and load_sql.has_conflict(con):
        check_ids(con, plan, fmt, rows)
    if fmt.shape == RATING and load_sql.has_scale_conflict(con):
        check_scales(con, plan, fmt, rows)
    datasets = tuple(load_sql.datasets_of(con, "_stage"))
    counts = insert_stage(con, plan, fmt, datasets)
    read_sql.drop(con, "_stage")
    return counts, records, datasets


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
