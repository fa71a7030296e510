"""Staging SQL for the real sets of rated single answers: NQ-open EfficientQA and MT-Bench.

Like importing_adapters.py, each function leaves TEMP tables with the stage columns:
`_items`, `_stage` (responses) and `_ratings`. `_problem` is "<field>\\x1f<what is wrong>".
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from dashboard.store.connection import Connection
from dashboard.store.importing import execute
from dashboard.store.importing_adapters import item_select
from dashboard.store.importing_fields import content_id_sql, item_id_sql, response_id_sql

_JSONL = "read_json($path, format='newline_delimited', sample_size=-1)"
_RATING_ID = content_id_sql("response_id", "rater_kind", "rater", "rubric", "rubric_version",
                            "CAST(value AS VARCHAR)", "raw_output")
# NQ-open's three levels of human correctness, on the scale 0-2 of rubric nq-correctness.
NQ_LEVELS = (("def_correct_predictions", 2), ("poss_correct_predictions", 1),
             ("def_incorrect_predictions", 0))


def stage_nq_open(con: Connection, path: str, *, dataset: str, system: str,
                  rater: str) -> None:
    """Each question is an item; each rated prediction a response with one human rating.

    A prediction listed under two levels of one question would be one response (its id is
    the question, system and text) with two ratings in one stream, the later superseding the
    earlier. The EfficientQA test file has no such prediction: its 5,886 rated predictions are
    5,886 distinct (question, prediction) pairs, so they are 5,886 responses.
    """
    item = item_select({"dataset": "$dataset", "task_type": "'open_qa'",
                        "question": "question", "reference_answers": "answer"})
    levels = ", ".join(f"{column} AS level_{value}" for column, value in NQ_LEVELS)
    execute(con, f"""
        CREATE TEMP TABLE _items AS SELECT *, {item_id_sql()} AS item_id,
            CASE WHEN question IS NULL THEN 'question' || chr(31) || 'is missing'
                 WHEN reference_answers IS NULL THEN 'answer' || chr(31) || 'is missing' END
                AS _problem
        FROM (SELECT {item}, json_object('answer_and_def_correct_predictions',
                     answer_and_def_correct_predictions) AS metadata, {levels}
              FROM {_JSONL})""", {"path": path, "dataset": dataset})
    rated = " UNION ALL ".join(
        f"SELECT item_id, dataset, unnest(level_{value}) AS answer, {value}.0 AS value, "
        f"rowid * 3 + {n} AS _ord FROM _items"
        for n, (_, value) in enumerate(NQ_LEVELS))
    execute(con, f"""
        CREATE TEMP TABLE _stage AS
        SELECT *, {_RATING_ID} AS rating_id FROM (
            SELECT *, {response_id_sql('item_id', 'system', 'answer')} AS response_id,
                   'human' AS rater_kind, $rater AS rater, 'nq-correctness' AS rubric,
                   '1' AS rubric_version, 0.0 AS scale_low, 2.0 AS scale_high,
                   CAST(value AS VARCHAR) AS raw_output
            FROM (SELECT item_id, dataset, $system AS system, answer, value
                  FROM ({rated}) ORDER BY _ord))""", {"system": system, "rater": rater})


# FastChat's single-answer judge prompts (judge_prompts.jsonl) put the answer between fixed
# markers; the multi-turn ones show the conversation, the judged answer being the last turn.
_SINGLE_ANSWER = (r"(?s)\[The Start of Assistant's Answer\]\n(.*)\n"
                  r"\[The End of Assistant's Answer\]")
_LAST_TURN = r"(?s)^(.*)\n\n<\|The End of Assistant A's Conversation with User\|>"
_FIRST_TURN = r"(?s)### Assistant A:\n(.*?)\n\n### User:\n"
_ASSISTANT = "### Assistant A:\n"


def stage_mt_bench_items(con: Connection, question_path: str, *, dataset: str) -> None:
    """`_items`: one per question and turn of MT-Bench's question.jsonl.

    Turn 2 is conversational_qa with the user's turn 1 as history. The assistant's turn-1
    reply belongs to each model, not to the item, so it is kept in the response's metadata.
    """
    has_reference = "reference" in {row[0] for row in execute(
        con, f"DESCRIBE SELECT * FROM {_JSONL}", {"path": question_path}).fetchall()}
    reference = ("CASE WHEN len(reference) >= turn THEN [reference[turn]] END"
                 if has_reference else "NULL")
    item = item_select({
        "dataset": "$dataset", "question": "turns[turn]",
        "task_type": "CASE WHEN turn = 1 THEN 'open_qa' ELSE 'conversational_qa' END",
        "history": "CASE WHEN turn > 1 THEN list_transform(turns[1:turn - 1], "
                   "lambda x: {'role': 'user', 'content': x}) END",
        "reference_answers": reference,
        "external_id": "CAST(question_id AS VARCHAR) || ':' || turn"})
    execute(con, f"""
        CREATE TEMP TABLE _items AS SELECT *, {item_id_sql()} AS item_id FROM (
            SELECT {item}, json_object('question_id', question_id, 'category', category,
                                       'turn', turn) AS metadata,
                   question_id AS _question_id, turn AS _turn, turns[1] AS _first
            FROM (SELECT q.*, unnest(range(1, len(q.turns) + 1)) AS turn
                  FROM {_JSONL} q))""", {"path": question_path, "dataset": dataset})


def stage_mt_bench_judgments(con: Connection, path: str) -> None:
    """`_stage`: one response per judgment, the answer taken from the judge's prompt."""
    last = "regexp_extract(string_split(j.user_prompt, $assistant)[-1], $last_turn, 1)"
    answer = (f"trim(CASE WHEN j.judge[2] LIKE '%multi-turn' THEN {last} "
              f"ELSE regexp_extract(j.user_prompt, $single_answer, 1) END, $blank)")
    first = "trim(regexp_extract(j.user_prompt, $first_turn, 1), $blank)"
    execute(con, f"""
        CREATE TEMP TABLE _stage AS SELECT *,
            {response_id_sql('item_id', 'system', 'answer')} AS response_id,
            CASE WHEN j_question IS NULL THEN 'question_id' || chr(31) || 'question '
                      || coalesce(j_question_id, 'null') || ' turn ' || coalesce(j_turn, 'null')
                      || ' is not in question.jsonl'
                 WHEN system IS NULL THEN 'model' || chr(31) || 'is missing'
                 WHEN len(coalesce(judge, [])) < 2 THEN 'judge' || chr(31)
                      || 'expected [judge model, prompt name]'
                 WHEN coalesce(answer, '') = '' THEN 'user_prompt' || chr(31)
                      || 'the assistant''s answer is not where FastChat''s prompt puts it'
                 WHEN judgment IS NULL THEN 'judgment' || chr(31) || 'is missing' END
                AS _problem
        FROM (
            SELECT i.item_id, i.dataset, i.question AS j_question, j.model AS system,
                   {answer} AS answer, j.judge, j.judgment,
                   CAST(j.question_id AS VARCHAR) AS j_question_id,
                   CAST(j.turn AS VARCHAR) AS j_turn,
                   CASE WHEN j.turn > 1 THEN json_object('history', [
                       {{'role': 'user', 'content': i._first}},
                       {{'role': 'assistant', 'content': {first}}}]) END AS metadata,
                   to_timestamp(j.tstamp) AT TIME ZONE 'UTC' AS created_utc
            FROM {_JSONL} j
            LEFT JOIN _items i ON i._question_id = j.question_id AND i._turn = j.turn)""",
        {"path": path, "last_turn": _LAST_TURN, "single_answer": _SINGLE_ANSWER,
         "first_turn": _FIRST_TURN, "assistant": _ASSISTANT, "blank": " \t\r\n"})


def judgments(con: Connection) -> list[tuple[int, str]]:
    return [(int(r[0]), r[1]) for r in con.execute(
        "SELECT rowid, judgment FROM _stage ORDER BY rowid").fetchall()]


def stage_mt_bench_ratings(con: Connection, parsed: Sequence[tuple[int, float | None, str | None]],
                           *, rubric: str, low: float, high: float) -> None:
    """`_ratings` from our parser's reading of each judgment: (rowid, value, reason)."""
    table = pa.table({"rowid": [p[0] for p in parsed], "value": [p[1] for p in parsed],
                      "reason": [p[2] for p in parsed]})
    con.register("_parsed", table)
    try:
        execute(con, f"""
            CREATE TEMP TABLE _ratings AS SELECT *, {_RATING_ID} AS rating_id FROM (
                SELECT s.response_id, 'llm' AS rater_kind, s.judge[1] AS rater,
                       $rubric AS rubric, s.judge[2] AS rubric_version,
                       CAST(p.value AS DOUBLE) AS value, $low AS scale_low,
                       $high AS scale_high, p.reason AS unscored_reason,
                       s.judgment AS raw_output, s.created_utc
                FROM _stage s JOIN _parsed p ON p.rowid = s.rowid ORDER BY s.rowid)""",
            {"rubric": rubric, "low": low, "high": high})
    finally:
        con.unregister("_parsed")
