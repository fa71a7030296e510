"""NQ-open EfficientQA test: each question an item with its reference answers; each rated
prediction a response with one human rating on the 3-level rubric `nq-correctness`."""

from __future__ import annotations

from dashboard.ingest import load_sql, read_sql
from dashboard.ingest.adapters.common import (
    JSONL,
    RATING_ID,
    Adapter,
    field,
    item_select,
    run_stage,
    write,
)
from dashboard.ingest.formats import TEXT
from dashboard.ingest.generic import check_stage
from dashboard.ingest.ids_sql import item_id_sql, response_id_sql
from dashboard.ingest.plan import Counts, FilePlan
from dashboard.store.connection import Connection

SYSTEM = "efficientqa-predictions"
RATER = "efficientqa-raters"
# NQ-open's three levels of human correctness, on the scale 0-2 of rubric nq-correctness.
NQ_LEVELS = (
    ("def_correct_predictions", 2),
    ("poss_correct_predictions", 1),
    ("def_incorrect_predictions", 0),
)
_LEVELS = frozenset(column for column, _ in NQ_LEVELS)


def _strings(column: str) -> str:
    """A list column as VARCHAR[] whatever DuckDB typed it (a list that is empty in every
    record is JSON[]; casting its elements would keep their JSON quotes)."""
    return f"""from_json(to_json({column}), '["VARCHAR"]')"""


def stage_file(con: Connection, path: str, *, dataset: str, system: str, rater: str) -> None:
    """Each question is an item; each rated prediction a response with one human rating.

    A prediction listed under two levels of one question would be one response (its id is
    the question, system and text) with two ratings in one stream, the later superseding the
    earlier. The EfficientQA test file has no such prediction: its 5,886 rated predictions are
    5,886 distinct (question, prediction) pairs, so they are 5,886 responses.
    """
    item = item_select(
        {
            "dataset": "$dataset",
            "task_type": "'open_qa'",
            "question": "question",
            "reference_answers": _strings("answer"),
        }
    )
    levels = ", ".join(f"{_strings(column)} AS level_{value}" for column, value in NQ_LEVELS)
    not_lists = " ".join(
        f"WHEN {column} IS NOT NULL AND json_type(to_json({column})) <> 'ARRAY' "
        f"THEN '{column}' || chr(31) || 'expected a list of strings' "
        for column in ("answer", *(c for c, _ in NQ_LEVELS))
    )
    problem = (
        "CASE WHEN question IS NULL THEN 'question' || chr(31) || 'is missing' "
        "WHEN answer IS NULL THEN 'answer' || chr(31) || 'is missing' "
        f"{not_lists}END"
    )
    read_sql.execute(
        con,
        f"""
        CREATE TEMP TABLE _items AS SELECT *, {item_id_sql()} AS item_id FROM (
            SELECT {item}, json_object('answer_and_def_correct_predictions',
                   answer_and_def_correct_predictions) AS metadata, {levels},
                   {problem} AS _problem
            FROM {JSONL})""",
        {"path": path, "dataset": dataset},
    )
    rated = " UNION ALL ".join(
        f"SELECT item_id, dataset, unnest(level_{value}) AS answer, {value}.0 AS value, "
        f"rowid * 3 + {n} AS _ord FROM _items"
        for n, (_, value) in enumerate(NQ_LEVELS)
    )
    read_sql.execute(
        con,
        f"""
        CREATE TEMP TABLE _stage AS
        SELECT *, {RATING_ID} AS rating_id FROM (
            SELECT *, {response_id_sql("item_id", "system", "answer")} AS response_id,
                   'human' AS rater_kind, $rater AS rater, 'nq-correctness' AS rubric,
                   '1' AS rubric_version, 0.0 AS scale_low, 2.0 AS scale_high,
                   CAST(value AS VARCHAR) AS raw_output
            FROM (SELECT item_id, dataset, $system AS system, answer, value
                  FROM ({rated}) ORDER BY _ord))""",
        {"system": system, "rater": rater},
    )


def import_file(con: Connection, plan: FilePlan, dataset: str) -> tuple[Counts, int]:
    run_stage(
        con,
        plan,
        stage_file,
        str(plan.path),
        dataset=dataset,
        system=plan.system or SYSTEM,
        rater=RATER,
    )
    check_stage(con, plan, None, rows=load_sql.ordered_stage("_items"))
    counts = write(con, plan, dataset, items="_items", responses="_stage", ratings="_stage")
    return counts, load_sql.record_count(con, "_items")


ADAPTER = Adapter(
    "nq_open",
    "NQ-open EfficientQA",
    (frozenset({"question", "def_correct_predictions"}),),
    import_file,
    records_table=("_items",),
    required=(frozenset({"question", "answer", "answer_and_def_correct_predictions"} | _LEVELS),),
    fields=(field("question", TEXT),),
    kind="jsonl",
)
