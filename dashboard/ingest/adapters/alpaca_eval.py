"""AlpacaEval annotations: `output_1` (the baseline) against `output_2`, one judge verdict each."""

from __future__ import annotations

from dashboard.ingest import load_sql, read_sql
from dashboard.ingest.adapters.common import (
    ARRAY,
    Adapter,
    field,
    item_select,
    run_stage,
    stage_pairs,
    stage_prefs,
    write,
)
from dashboard.ingest.formats import NUMBER, TEXT
from dashboard.ingest.generic import check_stage
from dashboard.ingest.plan import Counts, FilePlan
from dashboard.store.connection import Connection


def stage_file(con: Connection, path: str, *, dataset: str) -> None:
    """AlpacaEval annotations: `output_1` (the baseline) against `output_2`, one judge verdict.

    `preference` is 1 (output_1 better), 2 (output_2 better), 1.5 or 0 (a draw); the weighted
    annotator's continuous value in [1, 2] becomes a verdict by its side of 1.5, and the raw
    value is kept in `raw_output`.
    """
    item = item_select(
        {"dataset": "$dataset", "task_type": "'pairwise'", "question": "instruction"}
    )
    select = (
        f"SELECT {item}, json_object('dataset', r.dataset) AS metadata, "
        f"generator_1 AS system_a, output_1 AS answer_a, generator_2 AS system_b, "
        f"output_2 AS answer_b, annotator, TRY_CAST(preference AS DOUBLE) AS preference, "
        f"{_completion_text(con, path)} AS completion FROM {ARRAY} r"
    )
    problems = (
        "CASE WHEN question IS NULL THEN 'instruction' || chr(31) || 'is missing' "
        + " ".join(
            f"WHEN {c} IS NULL THEN '{c}' || chr(31) || 'is missing' "
            for c in ("system_a", "answer_a", "system_b", "answer_b")
        )
        + "WHEN preference IS NOT NULL AND NOT (preference = 0 OR preference BETWEEN 1 "
        "AND 2) THEN 'preference' || chr(31) || 'expected 1, 2, 1.5 or 0, or a value "
        "in [1, 2]' END"
    )
    stage_pairs(con, select, problems, path, dataset)
    verdict = (
        "CASE WHEN preference IS NULL THEN NULL WHEN preference = 0 OR preference = 1.5 "
        "THEN 'tie' WHEN preference < 1.5 THEN 'A' ELSE 'B' END"
    )
    select = f"""
        SELECT item_id, response_a, response_b, 'llm' AS rater_kind,
               coalesce(annotator, $rater) AS rater, 'alpaca-eval' AS rubric,
               '1' AS rubric_version, {verdict} AS verdict, 'A' AS shown_first,
               CASE WHEN preference IS NULL THEN 'no preference in the file' END
                   AS unscored_reason,
               completion AS explanation, CAST(preference AS VARCHAR) AS raw_output
        FROM _stage ORDER BY rowid"""
    stage_prefs(con, select, {"rater": dataset})


def _completion_text(con: Connection, path: str) -> str:
    """The judge's own text, when the file keeps it (the weighted annotator's raw_completion)."""
    if "raw_completion" not in read_sql.columns_of(con, f"SELECT * FROM {ARRAY}", {"path": path}):
        return "NULL::VARCHAR"
    return "to_json(r.raw_completion) ->> '$.text'"


def import_file(con: Connection, plan: FilePlan, dataset: str) -> tuple[Counts, int]:
    run_stage(con, plan, stage_file, str(plan.path), dataset=dataset)
    check_stage(con, plan, None)
    counts = write(con, plan, dataset, items="_stage", responses="_stage", preferences="_prefs")
    return counts, load_sql.record_count(con, "_stage")


ADAPTER = Adapter(
    "alpaca_eval",
    "AlpacaEval annotations",
    (frozenset({"instruction", "generator_1", "generator_2", "preference"}),),
    import_file,
    required=(
        frozenset(
            {
                "instruction",
                "output_1",
                "generator_1",
                "output_2",
                "generator_2",
                "preference",
                "annotator",
                "dataset",
            }
        ),
    ),
    fields=(
        *(field(c, TEXT) for c in ("instruction", "output_1", "output_2", "annotator")),
        *(field(c, TEXT) for c in ("generator_1", "generator_2")),
        field("preference", NUMBER),
    ),
)
