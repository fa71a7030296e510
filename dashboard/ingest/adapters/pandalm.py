"""PandaLM test set v1: each `idx` is a pair of two 7B models' responses to an instruction.

`testset-v1.json` holds the pairs: the two models of `cmp_key` are the systems, and the three
annotators become human preferences (0 = tie, 1 = response1 better, 2 = response2 better).
The judge files (`gpt-3.5-turbo-testset-v1.json`, `pandalm-7b-testset-v1.json`) carry only
`idx`, a verdict and a reason, and join to the stored pairs, so they import last.
"""

from __future__ import annotations

from dataclasses import dataclass

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
from dashboard.ingest.errors import IngestError, Remedy
from dashboard.ingest.fields_sql import non_blank
from dashboard.ingest.formats import KEY, NUMBER, SCALAR_TEXT, TEXT
from dashboard.ingest.generic import check_stage
from dashboard.ingest.plan import Counts, FilePlan
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch_one

_JUDGES = {"gpt_result": "gpt_reason", "pandalm_result": "pandalm_reason"}


def _text(column: str) -> str:
    # PandaLM's file holds a few responses as JSON booleans (a model that answered "True");
    # they are kept as the text Python would print.
    return (
        f"CASE json_type(to_json({column})) WHEN 'BOOLEAN' THEN CASE WHEN "
        f"to_json({column})::VARCHAR = 'true' THEN 'True' ELSE 'False' END "
        f"ELSE to_json({column}) ->> '$' END"
    )


def stage_pairs_file(con: Connection, path: str, *, dataset: str) -> None:
    """PandaLM test set: each idx is a pair; `cmp_key` names the two systems ("a_b")."""
    item = item_select(
        {
            "dataset": "$dataset",
            "task_type": "'pairwise'",
            "external_id": "CAST(idx AS VARCHAR)",
            "question": f"CASE WHEN {non_blank('input')} "
            "THEN instruction || chr(10) || chr(10) || input ELSE instruction END",
        }
    )
    select = (
        f"SELECT {item}, json_object('motivation_app', motivation_app, 'cmp_key', "
        f"cmp_key) AS metadata, split_part(cmp_key, '_', 1) AS system_a, "
        f"{_text('response1')} AS answer_a, split_part(cmp_key, '_', 2) AS system_b, "
        f"{_text('response2')} AS answer_b, annotator1, annotator2, annotator3 "
        f"FROM {ARRAY}"
    )
    problems = (
        "CASE WHEN external_id IS NULL THEN 'idx' || chr(31) || 'is missing' "
        "WHEN question IS NULL THEN 'instruction' || chr(31) || 'is missing' "
        "WHEN system_a = '' OR system_b = '' THEN 'cmp_key' || chr(31) || "
        "'expected two model names joined by _' "
        "WHEN answer_a IS NULL THEN 'response1' || chr(31) || 'is missing' "
        "WHEN answer_b IS NULL THEN 'response2' || chr(31) || 'is missing' "
        + " ".join(
            f"WHEN annotator{n} IS NULL OR TRY_CAST(annotator{n} AS DOUBLE) NOT IN (0, 1, 2) THEN "
            f"'annotator{n}' || chr(31) || 'expected 0 (tie), 1 or 2' "
            for n in (1, 2, 3)
        )
        + "END"
    )
    stage_pairs(con, select, problems, path, dataset)
    # The three annotators: 0 = tie, 1 = response1 better, 2 = response2 better.
    humans = " UNION ALL ".join(
        f"SELECT item_id, response_a, response_b, 'human' AS rater_kind, "
        f"'annotator{n}' AS rater, 'pandalm' AS rubric, '1' AS rubric_version, "
        f"['tie', 'A', 'B'][annotator{n} + 1] AS verdict, 'A' AS shown_first, "
        f"NULL AS unscored_reason, NULL AS explanation, "
        f"CAST(annotator{n} AS VARCHAR) AS raw_output, rowid * 3 + {n} AS _ord FROM _stage"
        for n in (1, 2, 3)
    )
    stage_prefs(con, f"SELECT * EXCLUDE (_ord) FROM ({humans}) ORDER BY _ord", {})


def stage_judge(
    con: Connection, path: str, *, dataset: str, rater: str, result: str, reason: str
) -> None:
    """A PandaLM judge file (only `idx`, a verdict and a reason), joined to stored pairs."""
    read_sql.execute(con, f"CREATE TEMP TABLE _raw AS SELECT * FROM {ARRAY}", {"path": path})
    # '1'/'2' = response 1/2 better, 'Tie' or 0 = tie; anything else ('garbage') is unscored.
    verdict = (
        f"CASE lower(CAST(r.{result} AS VARCHAR)) WHEN '1' THEN 'A' WHEN '2' THEN 'B' "
        f"WHEN 'tie' THEN 'tie' WHEN '0' THEN 'tie' END"
    )
    select = f"""
        SELECT i.item_id, a.response_id AS response_a, b.response_id AS response_b,
               'llm' AS rater_kind, $rater AS rater, 'pandalm' AS rubric,
               '1' AS rubric_version, {verdict} AS verdict, 'A' AS shown_first,
               CASE WHEN {verdict} IS NULL THEN 'the judge''s verdict is not a verdict: '
                    || coalesce(CAST(r.{result} AS VARCHAR), 'null') END AS unscored_reason,
               CAST(r.{reason} AS VARCHAR) AS explanation,
               CAST(r.{result} AS VARCHAR) AS raw_output
        FROM _raw r
        JOIN items i ON i.dataset = $dataset AND i.external_id = CAST(r.idx AS VARCHAR)
        JOIN responses a ON a.item_id = i.item_id
             AND a.system = split_part(i.metadata ->> 'cmp_key', '_', 1)
        JOIN responses b ON b.item_id = i.item_id
             AND b.system = split_part(i.metadata ->> 'cmp_key', '_', 2)
        ORDER BY r.rowid"""
    stage_prefs(con, select, {"rater": rater, "dataset": dataset})


@dataclass(frozen=True)
class UnmatchedIdx:
    """A judge record whose idx names no stored pair: its 0-based index, and the idx."""

    index: int
    idx: str  # "null" when the record has none


def unmatched_idx(con: Connection, *, dataset: str) -> UnmatchedIdx | None:
    """The first judge record whose idx names no stored pair, if any."""
    return fetch_one(
        read_sql.execute(
            con,
            """
            SELECT r.rowid - (SELECT min(rowid) FROM _raw) AS index,
                   coalesce(CAST(r.idx AS VARCHAR), 'null') AS idx
            FROM _raw r
            ANTI JOIN (SELECT external_id FROM items WHERE dataset = $dataset) i
                 ON i.external_id = CAST(r.idx AS VARCHAR)
            ORDER BY r.rowid LIMIT 1""",
            {"dataset": dataset},
        ),
        UnmatchedIdx,
    )


def import_file(con: Connection, plan: FilePlan, dataset: str) -> tuple[Counts, int]:
    names = plan.columns.names
    if "annotator1" in names:
        run_stage(con, plan, stage_pairs_file, str(plan.path), dataset=dataset)
        check_stage(con, plan, None)
        counts = write(con, plan, dataset, items="_stage", responses="_stage", preferences="_prefs")
        return counts, load_sql.record_count(con, "_stage")
    result = next(r for r in _JUDGES if r in names)
    rater = plan.path.stem.split("-testset")[0]
    run_stage(
        con,
        plan,
        stage_judge,
        str(plan.path),
        dataset=dataset,
        rater=rater,
        result=result,
        reason=_JUDGES[result],
    )
    missing = unmatched_idx(con, dataset=dataset)
    if missing is not None:
        raise IngestError(
            f"idx {missing.idx} has no pair in dataset {dataset!r}",
            file=plan.path,
            record=missing.index + 1,
            field="idx",
            file_kind=plan.kind,
            remedy=Remedy(
                "import it with PandaLM's testset-v1.json (their folder), or pass --dataset "
                "NAME of the dataset that holds its pairs",
                "import PandaLM's testset-v1.json first, or type in Dataset the name of the "
                "dataset that holds its pairs",
            ),
        )
    return write(con, plan, dataset, preferences="_prefs"), load_sql.record_count(con, "_raw")


ADAPTER = Adapter(
    "pandalm",
    "PandaLM",
    (
        frozenset({"idx", "annotator1", "response1", "response2"}),
        frozenset({"idx", "gpt_result"}),
        frozenset({"idx", "pandalm_result"}),
    ),
    import_file,
    late=lambda columns: "annotator1" not in columns,
    records_table=("_stage", "_raw"),
    required=(
        frozenset(
            {"idx", "motivation_app", "cmp_key", "instruction", "input", "response1", "response2"}
            | {f"annotator{n}" for n in (1, 2, 3)}
        ),
        frozenset({"idx", "gpt_result", "gpt_reason"}),
        frozenset({"idx", "pandalm_result", "pandalm_reason"}),
    ),
    fields=(
        field("idx", KEY),
        *(field(c, TEXT) for c in ("instruction", "input", "cmp_key")),
        *(field(c, SCALAR_TEXT) for c in ("response1", "response2")),
        *(field(f"annotator{n}", NUMBER) for n in (1, 2, 3)),
        *(field(c, SCALAR_TEXT) for c in ("gpt_result", "pandalm_result")),
    ),
)
