"""LLMBar: `output_1` against `output_2` with a curated gold label, and an evaluator's result
file with its verdict in both presentation orders."""

from __future__ import annotations

import re
from collections.abc import Sequence

from dashboard.ingest import load_sql
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
from dashboard.ingest.errors import IngestError, Remedy
from dashboard.ingest.formats import NUMBER, TEXT
from dashboard.ingest.generic import check_stage
from dashboard.ingest.plan import Counts, FilePlan
from dashboard.store.connection import Connection
from dashboard.store.rows import scalar
from dashboard.store.writes import STREAM_KEYS

EVALUATORS = "evaluators"  # LLMBar's folder of judge results: evaluators/<LLM>/<method>/
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
        "WHEN label IS NULL OR TRY_CAST(label AS DOUBLE) NOT IN (1, 2) THEN 'label' || chr(31) || "
        "'expected 1 or 2' END"
    )
    stage_pairs(con, select, problems, path, dataset)
    gold = (
        "SELECT item_id, response_a, response_b, 'human' AS rater_kind, "
        "'llmbar-gold' AS rater, 'llmbar' AS rubric, '1' AS rubric_version, "
        "CASE TRY_CAST(label AS DOUBLE) WHEN 1 THEN 'A' WHEN 2 THEN 'B' END AS verdict, "
        "'A' AS shown_first, "
        "NULL AS unscored_reason, NULL AS explanation, CAST(label AS VARCHAR) AS raw_output, "
        "rowid * 3 AS _ord FROM _stage"
    )
    parts = [gold]
    for n, (swap, side) in enumerate((("swap = False", "A"), ("swap = True", "B")), start=1):
        # Parenthesized: DuckDB 1.5 binds `->>` more loosely than OR and IS NULL.
        winner = f"(result ->> '$.\"{swap}\".winner')"
        parts.append(
            f"SELECT item_id, response_a, response_b, 'llm', $rater, 'llmbar', '1', "
            f"CASE {winner} WHEN '1' THEN 'A' WHEN '2' THEN 'B' END, '{side}', "
            f"CASE WHEN {winner} IS NULL OR {winner} NOT IN ('1', '2') THEN "
            f"'the judge''s output named no winner' END, NULL, "
            f"(result ->> '$.\"{swap}\".completion[0]'), rowid * 3 + {n} FROM _stage "
            f"WHERE result IS NOT NULL"
        )
    union = " UNION ALL ".join(parts)
    stage_prefs(con, f"SELECT * EXCLUDE (_ord) FROM ({union}) ORDER BY _ord", {"rater": judge})


def judge_name(plan: FilePlan) -> str | None:
    """The judge of a result file, from LLMBar's own layout: "GPT-4/Vanilla" for
    .../evaluators/GPT-4/Vanilla/result.json; else from the name the shared copies use,
    "gpt-4/vanilla" for natural_gpt-4_vanilla_result.json; else the file's name. None for a
    file without results (the dataset itself)."""
    if "results" not in plan.columns.names:
        return None
    parts = plan.path.parts
    if len(parts) >= 4 and parts[-4] == EVALUATORS:
        return f"{parts[-3]}/{parts[-2]}"
    match = _RESULT.match(plan.path.stem)
    return f"{match['judge']}/{match['method']}" if match else plan.path.stem


def check_judges(plans: Sequence[FilePlan]) -> None:
    """Two result files of one import and dataset must not give their verdicts to one
    judge: the second would supersede the first's verdicts pair by pair."""
    seen: dict[tuple[str, str], FilePlan] = {}
    for plan in plans:
        judge = judge_name(plan)
        if judge is None:
            continue
        key = (plan.dataset or plan.dataset_default, judge)
        first = seen.setdefault(key, plan)
        if first is not plan:
            raise IngestError(
                f"its verdicts would go to judge {judge!r} in dataset {key[0]!r}, as those of "
                f"{first.path} do: two result files must not become one judge",
                file=plan.path,
                remedy=Remedy(
                    "import one of them on its own, with --dataset NAME, or keep each in "
                    "LLMBar's layout (evaluators/<LLM>/<method>/result.json)",
                    "import one of them on its own into another dataset",
                ),
            )


def differing_verdicts(con: Connection) -> int:
    """Stored current verdicts of a staged judge on the same pair and order whose verdict or
    judge's output differ from the staged ones: another result file's, under one name."""
    on = " AND ".join(f"c.{k} = p.{k}" for k in STREAM_KEYS["preferences"])
    sql = (
        f"SELECT count(*) FROM _prefs p JOIN current_preferences c ON {on} "
        "WHERE p.rater_kind = 'llm' AND (c.preference_id <> p.preference_id "
        "OR c.raw_output IS DISTINCT FROM p.raw_output)"
    )
    return int(scalar(con.execute(sql)))


def check_stored_judge(con: Connection, plan: FilePlan, dataset: str, judge: str) -> None:
    """A result file must not take over (or silently join) the verdicts another file gave
    its judge in an earlier import."""
    n = differing_verdicts(con)
    if n:
        raise IngestError(
            f"judge {judge!r} already has {n:,} verdicts on its pairs in dataset {dataset!r} "
            "that differ from its own, from another result file: two result files must not "
            "become one judge",
            file=plan.path,
            remedy=Remedy(
                "import it into another dataset with --dataset NAME, or keep each file in "
                "LLMBar's layout (evaluators/<LLM>/<method>/result.json)",
                "type another name in Dataset, or upload the file under the name LLMBar "
                "gives it (<set>_<LLM>_<method>_result.json)",
            ),
        )


def import_file(con: Connection, plan: FilePlan, dataset: str) -> tuple[Counts, int]:
    judge = judge_name(plan)
    run_stage(con, plan, stage_file, str(plan.path), dataset=dataset, judge=judge)
    check_stage(con, plan, None)
    if judge is not None:
        check_stored_judge(con, plan, dataset, judge)
    counts = write(con, plan, dataset, items="_stage", responses="_stage", preferences="_prefs")
    return counts, load_sql.record_count(con, "_stage")


ADAPTER = Adapter(
    "llmbar",
    "LLMBar",
    (frozenset({"input", "output_1", "output_2"}),),
    import_file,
    required=(frozenset({"input", "output_1", "output_2", "label"}),),
    fields=(
        field("input", TEXT),
        field("output_1", TEXT),
        field("output_2", TEXT),
        field("label", NUMBER),
    ),
)
