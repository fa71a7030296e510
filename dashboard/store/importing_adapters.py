"""Staging SQL for the real pairwise sets: PandaLM, AlpacaEval and LLMBar.

Each function reads one published file with DuckDB's JSON reader and leaves TEMP tables with the
stage columns `importing.py` inserts from: `_stage` (items and their two responses) and
`_prefs` (preferences). A record's `_problem` is "<field>\\x1f<what is wrong>" or NULL. Ids are
content hashes of the source fields, so importing a file again adds nothing.
"""

from __future__ import annotations

from dashboard.store.connection import Connection
from dashboard.store.importing import execute
from dashboard.store.importing_fields import content_id_sql, item_id_sql, response_id_sql
from dashboard.store.importing_stage import STAGE_COLUMNS, SINGLE

_ARRAY = "read_json($path, format='array', sample_size=-1)"
_PREFERENCE_ID = content_id_sql("item_id", "response_a", "response_b", "rater_kind", "rater",
                                "rubric", "rubric_version", "verdict", "shown_first",
                                "unscored_reason", "explanation", "raw_output")
_PREFERENCE = ("item_id", "response_a", "response_b", "rater_kind", "rater", "rubric",
               "rubric_version", "verdict", "shown_first", "unscored_reason", "explanation",
               "raw_output")


def item_select(given: dict[str, str]) -> str:
    """Every item column of the stage: the given SQL expressions, NULL for the rest."""
    columns = dict(STAGE_COLUMNS[SINGLE])
    return ", ".join(f"({given[name]})::{sql_type} AS {name}" if name in given
                     else f"NULL::{sql_type} AS {name}"
                     for name, sql_type in columns.items() if name in _ITEM_NAMES)


_ITEM_NAMES = ("dataset", "task_type", "question", "reference_answers", "reference_context",
               "document", "candidate_answer", "options", "gold_letters", "hallucination_gold",
               "history", "external_id")


def _pairs(con: Connection, select: str, problems: str, path: str, dataset: str) -> None:
    """`_stage` from a SELECT of item columns plus system/answer _a and _b."""
    with_item = f"SELECT *, {item_id_sql()} AS item_id FROM ({select})"
    sql = (f"CREATE TEMP TABLE _stage AS SELECT *, "
           f"{response_id_sql('item_id', 'system_a', 'answer_a')} AS response_a, "
           f"{response_id_sql('item_id', 'system_b', 'answer_b')} AS response_b, "
           f"{problems} AS _problem FROM ({with_item})")
    execute(con, sql, {"path": path, "dataset": dataset})


def _prefs(con: Connection, select: str, params: dict[str, object]) -> None:
    """`_prefs` from a SELECT of preference columns (without the id) plus `_problem`."""
    execute(con, f"CREATE TEMP TABLE _prefs AS SELECT *, {_PREFERENCE_ID} AS preference_id "
                 f"FROM ({select})", params)


def _text(column: str) -> str:
    # PandaLM's file holds a few responses as JSON booleans (a model that answered "True");
    # they are kept as the text Python would print.
    return (f"CASE json_type(to_json({column})) WHEN 'BOOLEAN' THEN CASE WHEN "
            f"to_json({column})::VARCHAR = 'true' THEN 'True' ELSE 'False' END "
            f"ELSE to_json({column}) ->> '$' END")


def stage_pandalm_pairs(con: Connection, path: str, *, dataset: str) -> None:
    """PandaLM test set: each idx is a pair; `cmp_key` names the two systems ("a_b")."""
    item = item_select({
        "dataset": "$dataset", "task_type": "'pairwise'", "external_id": "CAST(idx AS VARCHAR)",
        "question": "CASE WHEN length(trim(coalesce(input, ''))) > 0 "
                    "THEN instruction || chr(10) || chr(10) || input ELSE instruction END"})
    select = (f"SELECT {item}, json_object('motivation_app', motivation_app, 'cmp_key', "
              f"cmp_key) AS metadata, split_part(cmp_key, '_', 1) AS system_a, "
              f"{_text('response1')} AS answer_a, split_part(cmp_key, '_', 2) AS system_b, "
              f"{_text('response2')} AS answer_b, annotator1, annotator2, annotator3 "
              f"FROM {_ARRAY}")
    problems = ("CASE WHEN external_id IS NULL THEN 'idx' || chr(31) || 'is missing' "
                "WHEN question IS NULL THEN 'instruction' || chr(31) || 'is missing' "
                "WHEN system_a = '' OR system_b = '' THEN 'cmp_key' || chr(31) || "
                "'expected two model names joined by _' "
                "WHEN answer_a IS NULL THEN 'response1' || chr(31) || 'is missing' "
                "WHEN answer_b IS NULL THEN 'response2' || chr(31) || 'is missing' " +
                " ".join(f"WHEN annotator{n} IS NULL OR annotator{n} NOT IN (0, 1, 2) THEN "
                         f"'annotator{n}' || chr(31) || 'expected 0 (tie), 1 or 2' "
                         for n in (1, 2, 3)) + "END")
    _pairs(con, select, problems, path, dataset)
    # The three annotators: 0 = tie, 1 = response1 better, 2 = response2 better.
    humans = " UNION ALL ".join(
        f"SELECT item_id, response_a, response_b, 'human' AS rater_kind, "
        f"'annotator{n}' AS rater, 'pandalm' AS rubric, '1' AS rubric_version, "
        f"['tie', 'A', 'B'][annotator{n} + 1] AS verdict, 'A' AS shown_first, "
        f"NULL AS unscored_reason, NULL AS explanation, "
        f"CAST(annotator{n} AS VARCHAR) AS raw_output, rowid * 3 + {n} AS _ord FROM _stage"
        for n in (1, 2, 3))
    _prefs(con, f"SELECT * EXCLUDE (_ord) FROM ({humans}) ORDER BY _ord", {})


def stage_pandalm_judge(con: Connection, path: str, *, dataset: str, rater: str,
                        result: str, reason: str) -> None:
    """A PandaLM judge file (only `idx`, a verdict and a reason), joined to stored pairs."""
    execute(con, f"CREATE TEMP TABLE _raw AS SELECT * FROM {_ARRAY}", {"path": path})
    # '1'/'2' = response 1/2 better, 'Tie' or 0 = tie; anything else ('garbage') is unscored.
    verdict = (f"CASE lower(CAST(r.{result} AS VARCHAR)) WHEN '1' THEN 'A' WHEN '2' THEN 'B' "
               f"WHEN 'tie' THEN 'tie' WHEN '0' THEN 'tie' END")
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
    _prefs(con, select, {"rater": rater, "dataset": dataset})


def unmatched_idx(con: Connection, *, dataset: str) -> tuple[int, str] | None:
    """The first judge record whose idx names no stored pair: (record index, idx)."""
    row = execute(con, """
        SELECT r.rowid - (SELECT min(rowid) FROM _raw), coalesce(CAST(r.idx AS VARCHAR), 'null')
        FROM _raw r
        ANTI JOIN (SELECT external_id FROM items WHERE dataset = $dataset) i
             ON i.external_id = CAST(r.idx AS VARCHAR)
        ORDER BY r.rowid LIMIT 1""", {"dataset": dataset}).fetchone()
    return (int(row[0]), row[1]) if row else None


def stage_alpaca_eval(con: Connection, path: str, *, dataset: str) -> None:
    """AlpacaEval annotations: `output_1` (the baseline) against `output_2`, one judge verdict.

    `preference` is 1 (output_1 better), 2 (output_2 better), 1.5 or 0 (a draw); the weighted
    annotator's continuous value in [1, 2] becomes a verdict by its side of 1.5, and the raw
    value is kept in `raw_output`.
    """
    item = item_select({"dataset": "$dataset", "task_type": "'pairwise'",
                        "question": "instruction"})
    select = (f"SELECT {item}, json_object('dataset', r.dataset) AS metadata, "
              f"generator_1 AS system_a, output_1 AS answer_a, generator_2 AS system_b, "
              f"output_2 AS answer_b, annotator, CAST(preference AS DOUBLE) AS preference, "
              f"{_completion_text(con, path)} AS completion FROM {_ARRAY} r")
    problems = ("CASE WHEN question IS NULL THEN 'instruction' || chr(31) || 'is missing' " +
                " ".join(f"WHEN {c} IS NULL THEN '{c}' || chr(31) || 'is missing' "
                         for c in ("system_a", "answer_a", "system_b", "answer_b")) +
                "WHEN preference IS NOT NULL AND NOT (preference = 0 OR preference BETWEEN 1 "
                "AND 2) THEN 'preference' || chr(31) || 'expected 1, 2, 1.5 or 0, or a value "
                "in [1, 2]' END")
    _pairs(con, select, problems, path, dataset)
    verdict = ("CASE WHEN preference IS NULL THEN NULL WHEN preference = 0 OR preference = 1.5 "
               "THEN 'tie' WHEN preference < 1.5 THEN 'A' ELSE 'B' END")
    select = f"""
        SELECT item_id, response_a, response_b, 'llm' AS rater_kind,
               coalesce(annotator, $rater) AS rater, 'alpaca-eval' AS rubric,
               '1' AS rubric_version, {verdict} AS verdict, 'A' AS shown_first,
               CASE WHEN preference IS NULL THEN 'no preference in the file' END
                   AS unscored_reason,
               completion AS explanation, CAST(preference AS VARCHAR) AS raw_output
        FROM _stage ORDER BY rowid"""
    _prefs(con, select, {"rater": dataset})


def _completion_text(con: Connection, path: str) -> str:
    """The judge's own text, when the file keeps it (the weighted annotator's raw_completion)."""
    columns = {row[0] for row in execute(
        con, f"DESCRIBE SELECT * FROM {_ARRAY}", {"path": path}).fetchall()}
    if "raw_completion" not in columns:
        return "NULL::VARCHAR"
    return "to_json(r.raw_completion) ->> '$.text'"


def stage_llmbar(con: Connection, path: str, *, dataset: str, judge: str | None) -> None:
    """LLMBar: `output_1` against `output_2`, the gold `label` as a person's preference and,
    in a result file, the judge's verdict in both presentation orders.

    In LLMBar's LLMEvaluator/evaluate.py (`annotate`), the swap = True prompt shows output_2
    first, and the parsed winner is passed through `reverse_label` before it is stored:
    `"winner": winner if not swap else reverse_label(winner)`. So both stored winners are in
    the original frame ("1" = output_1 better). We keep that canonical verdict and record the
    presentation order in `shown_first`: "A" for swap = False, "B" for swap = True.
    """
    item = item_select({"dataset": "$dataset", "task_type": "'pairwise'", "question": "input"})
    results = ("to_json(r.results[-1])" if judge else "NULL::JSON")
    select = (f"SELECT {item}, NULL::JSON AS metadata, 'output_1' AS system_a, "
              f"output_1 AS answer_a, 'output_2' AS system_b, output_2 AS answer_b, "
              f"label, {results} AS result FROM {_ARRAY} r")
    problems = ("CASE WHEN question IS NULL THEN 'input' || chr(31) || 'is missing' "
                "WHEN answer_a IS NULL THEN 'output_1' || chr(31) || 'is missing' "
                "WHEN answer_b IS NULL THEN 'output_2' || chr(31) || 'is missing' "
                "WHEN label IS NULL OR label NOT IN (1, 2) THEN 'label' || chr(31) || "
                "'expected 1 or 2' END")
    _pairs(con, select, problems, path, dataset)
    gold = ("SELECT item_id, response_a, response_b, 'human' AS rater_kind, "
            "'llmbar-gold' AS rater, 'llmbar' AS rubric, '1' AS rubric_version, "
            "CASE label WHEN 1 THEN 'A' WHEN 2 THEN 'B' END AS verdict, 'A' AS shown_first, "
            "NULL AS unscored_reason, NULL AS explanation, CAST(label AS VARCHAR) AS raw_output, "
            "rowid * 3 AS _ord FROM _stage")
    parts = [gold]
    for n, (swap, side) in enumerate((("swap = False", "A"), ("swap = True", "B")), start=1):
        winner = f"result ->> '$.\"{swap}\".winner'"
        parts.append(
            f"SELECT item_id, response_a, response_b, 'llm', $rater, 'llmbar', '1', "
            f"CASE {winner} WHEN '1' THEN 'A' WHEN '2' THEN 'B' END, '{side}', "
            f"CASE WHEN {winner} IS NULL OR {winner} NOT IN ('1', '2') THEN "
            f"'the judge''s output named no winner' END, NULL, "
            f"result ->> '$.\"{swap}\".completion[0]', rowid * 3 + {n} FROM _stage "
            f"WHERE result IS NOT NULL")
    union = " UNION ALL ".join(parts)
    _prefs(con, f"SELECT * EXCLUDE (_ord) FROM ({union}) ORDER BY _ord", {"rater": judge})
