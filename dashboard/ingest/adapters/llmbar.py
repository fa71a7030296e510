"""LLMBar: `output_1` against `output_2` with a curated gold label, and an evaluator's result
file with its verdict in both presentation orders."""

from __future__ import annotations

import re

from dashboard.ingest import load_sql
from dashboard.ingest.adapters.common import (
    ARRAY,
    Adapter,
    item_select,
    run_stage,
    stage_pairs,
    stage_prefs,
    write,
)
from dashboard.ingest.formats import TEXT
from dashboard.ingest.generic import check_stage
from dashboard.ingest.plan import Counts, FilePlan
from dashboard.store.connection import Connection

_RESULT = re.compile(r"^[^_]+_(?P<judge>.+)_(?P<method>[^_]+)_result$")


def stage_file(con: Connection, path: str, *, dataset: str, judge: str | None) -> None:
    """LLMBar: `output_1` against `output_2`, the gold `label` as a person's preference and,
    in a result file, the judge's verdict in both presentation orders.

    In LLMBar's LLMEvaluator/evaluate.py (`annotate`), the swap = True prompt shows output_2
    first, and the parsed winner is passed through `reverse_label` before it is stored:
    `"winner": winner if not swap else reverse_label(winner)`. So both stored winners are in
    the original frame ("1" = output_1 better). We keep that canonical verdict and record the
    presentation order in `shown_first`: "A" for swap = False, "B" for swap = True.
    """
    item = item_select({"dataset": "$dataset", "task_type": "'pairwise'", "question": "input"})
    results = "to_json(r.results[-1])" if judge else "NULL::JSON"
    select = (
        f"SELECT {item}, NULL::JSON AS metadata, 'output_1' AS system_a, "
        f"output_1 AS answer_a, 'output_2' AS system_b, output_2 AS answer_b, "
        f"label, {results} AS result FROM {ARRAY} r"
    )
    problems = (
        "CASE WHEN question IS NULL THEN 'input' || chr(31) || 'is missing' "
        "WHEN answer_a IS NULL THEN 'output_1' || chr(31) || 'is missing' "
        "WHEN answer_b IS NULL THEN 'output_2' || chr(31) || 'is missing' "
        "WHEN label IS NULL OR label NOT IN (1, 2) THEN 'label' || chr(31) || "
        "'expected 1 or 2' END"
    )
    stage_pairs(con, select, problems, path, dataset)
    gold = (
        "SELECT item_id, response_a, response_b, 'human' AS rater_kind, "
        "'llmbar-gold' AS rater, 'llmbar' AS rubric, '1' AS rubric_version, "
        "CASE label WHEN 1 THEN 'A' WHEN 2 THEN 'B' END AS verdict, 'A' AS shown_first, "
        "NULL AS unscored_reason, NULL AS explanation, CAST(label AS VARCHAR) AS raw_output, "
        "rowid * 3 AS _ord FROM _stage"
    )
    parts = [gold]
    for n, (swap, side) in enumerate((("swap = False", "A"), ("swap = True", "B")), start=1):
        winner = f"result ->> '$.\"{swap}\".winner'"
        parts.append(
            f"SELECT item_id, response_a, response_b, 'llm', $rater, 'llmbar', '1', "
            f"CASE {winner} WHEN '1' THEN 'A' WHEN '2' THEN 'B' END, '{side}', "
            f"CASE WHEN {winner} IS NULL OR {winner} NOT IN ('1', '2') THEN "
            f"'the judge''s output named no winner' END, NULL, "
            f"result ->> '$.\"{swap}\".completion[0]', rowid * 3 + {n} FROM _stage "
            f"WHERE result IS NOT NULL"
        )
    union = " UNION ALL ".join(parts)
    stage_prefs(con, f"SELECT * EXCLUDE (_ord) FROM ({union}) ORDER BY _ord", {"rater": judge})


def judge_name(plan: FilePlan) -> str | None:
    """ "gpt-4/vanilla" for natural_gpt-4_vanilla_result.json (LLMBar names evaluators so)."""
    if "results" not in plan.columns.names:
        return None
    match = _RESULT.match(plan.path.stem)
    return f"{match['judge']}/{match['method']}" if match else plan.path.stem


def import_file(con: Connection, plan: FilePlan, dataset: str) -> tuple[Counts, int]:
    run_stage(con, plan, stage_file, str(plan.path), dataset=dataset, judge=judge_name(plan))
    check_stage(con, plan, None)
    counts = write(con, plan, dataset, items="_stage", responses="_stage", preferences="_prefs")
    return counts, load_sql.record_count(con, "_stage")


ADAPTER = Adapter(
    "llmbar",
    (frozenset({"input", "output_1", "output_2"}),),
    "llmbar",
    import_file,
    kinds={"input": TEXT, "output_1": TEXT, "output_2": TEXT},
)
