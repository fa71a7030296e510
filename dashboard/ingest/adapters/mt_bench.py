"""FastChat MT-Bench single judgments: the judge's raw text, rated by our own parser.

Items come from FastChat's `question.jsonl` beside the judgments or one folder up (FastChat's
data/mt_bench/ holds it above model_judgment/); turn 2 carries turn 1 as
history, and the assistant's own turn-1 reply is kept in the response's metadata.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

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
from dashboard.ingest.errors import IngestError
from dashboard.ingest.formats import KEY, NUMBER, STRINGS, TEXT
from dashboard.ingest.generic import check_stage
from dashboard.ingest.ids_sql import item_id_sql, response_id_sql
from dashboard.ingest.plan import Counts, FilePlan
from dashboard.store.connection import Connection, DatabaseError
from dashboard.store.rows import fetch
from scoring.judge import parse_rating_result

RUBRIC = "mt-bench-single"
SCALE = (1.0, 10.0)

# FastChat's single-answer judge prompts (judge_prompts.jsonl) put the answer between fixed
# markers; the multi-turn ones show the conversation, the judged answer being the last turn.
_SINGLE_ANSWER = (
    r"(?s)\[The Start of Assistant's Answer\]\n(.*)\n"
    r"\[The End of Assistant's Answer\]"
)
_LAST_TURN = r"(?s)^(.*)\n\n<\|The End of Assistant A's Conversation with User\|>"
_FIRST_TURN = r"(?s)### Assistant A:\n(.*?)\n\n### User:\n"
_ASSISTANT = "### Assistant A:\n"


def stage_items(con: Connection, question_path: str, *, dataset: str) -> None:
    """`_items`: one per question and turn of MT-Bench's question.jsonl.

    Turn 2 is conversational_qa with the user's turn 1 as history. The assistant's turn-1
    reply belongs to each model, not to the item, so it is kept in the response's metadata.
    """
    has_reference = "reference" in read_sql.columns_of(
        con, f"SELECT * FROM {JSONL}", {"path": question_path}
    )
    reference = (
        "CASE WHEN len(reference) >= turn THEN [reference[turn]] END" if has_reference else "NULL"
    )
    item = item_select(
        {
            "dataset": "$dataset",
            "question": "turns[turn]",
            "task_type": "CASE WHEN turn = 1 THEN 'open_qa' ELSE 'conversational_qa' END",
            "history": "CASE WHEN turn > 1 THEN list_transform(turns[1:turn - 1], "
            "lambda x: {'role': 'user', 'content': x}) END",
            "reference_answers": reference,
            "external_id": "CAST(question_id AS VARCHAR) || ':' || turn",
        }
    )
    read_sql.execute(
        con,
        f"""
        CREATE TEMP TABLE _items AS SELECT *, {item_id_sql()} AS item_id FROM (
            SELECT {item}, json_object('question_id', question_id, 'category', category,
                                       'turn', turn) AS metadata,
                   question_id AS _question_id, turn AS _turn, turns[1] AS _first
            FROM (SELECT q.*, unnest(range(1, len(q.turns) + 1)) AS turn
                  FROM {JSONL} q))""",
        {"path": question_path, "dataset": dataset},
    )


def stage_judgments(con: Connection, path: str) -> None:
    """`_stage`: one response per judgment, the answer taken from the judge's prompt."""
    last = "regexp_extract(string_split(j.user_prompt, $assistant)[-1], $last_turn, 1)"
    answer = (
        f"trim(CASE WHEN j.judge[2] LIKE '%multi-turn' THEN {last} "
        f"ELSE regexp_extract(j.user_prompt, $single_answer, 1) END, $blank)"
    )
    first = "trim(regexp_extract(j.user_prompt, $first_turn, 1), $blank)"
    read_sql.execute(
        con,
        f"""
        CREATE TEMP TABLE _stage AS SELECT *,
            {response_id_sql("item_id", "system", "answer")} AS response_id,
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
            FROM {JSONL} j
            LEFT JOIN _items i ON i._question_id = j.question_id AND i._turn = j.turn)""",
        {
            "path": path,
            "last_turn": _LAST_TURN,
            "single_answer": _SINGLE_ANSWER,
            "first_turn": _FIRST_TURN,
            "assistant": _ASSISTANT,
            "blank": " \t\r\n",
        },
    )


@dataclass(frozen=True)
class Judgment:
    """A staged judgment: its row in `_stage` and the judge's raw text."""

    rowid: int
    text: str


@dataclass(frozen=True)
class ParsedJudgment:
    """Our parser's reading of a judgment: a value, or the reason there is none."""

    rowid: int
    value: float | None
    reason: str | None


def judgments(con: Connection) -> list[Judgment]:
    return fetch(con.execute("SELECT rowid, judgment AS text FROM _stage ORDER BY rowid"), Judgment)


def stage_ratings(
    con: Connection,
    parsed: Sequence[ParsedJudgment],
    *,
    rubric: str,
    low: float,
    high: float,
) -> None:
    """`_ratings` from our parser's reading of each judgment."""
    table = pa.table(
        {
            "rowid": [p.rowid for p in parsed],
            "value": [p.value for p in parsed],
            "reason": [p.reason for p in parsed],
        }
    )
    con.register("_parsed", table)
    try:
        read_sql.execute(
            con,
            f"""
            CREATE TEMP TABLE _ratings AS SELECT *, {RATING_ID} AS rating_id FROM (
                SELECT s.response_id, 'llm' AS rater_kind, s.judge[1] AS rater,
                       $rubric AS rubric, s.judge[2] AS rubric_version,
                       CAST(p.value AS DOUBLE) AS value, $low AS scale_low,
                       $high AS scale_high, p.reason AS unscored_reason,
                       s.judgment AS raw_output, s.created_utc
                FROM _stage s JOIN _parsed p ON p.rowid = s.rowid ORDER BY s.rowid)""",
            {"rubric": rubric, "low": low, "high": high},
        )
    finally:
        con.unregister("_parsed")


QUESTIONS = "question.jsonl"


def questions_file(plan: FilePlan) -> Path:
    """FastChat's question.jsonl for a judgment file: beside it, or one level up, where
    FastChat keeps it (data/mt_bench/question.jsonl beside model_judgment/gpt-4_pair.jsonl)."""
    places = (plan.path.parent / QUESTIONS, plan.path.parent.parent / QUESTIONS)
    found = next((place for place in places if place.is_file()), None)
    if found is None:
        raise IngestError(
            f"MT-Bench judgments need FastChat's {QUESTIONS} beside them or one folder up, as "
            f"FastChat keeps it in data/mt_bench/ (neither {places[0]} nor {places[1]} is there)",
            file=plan.path,
        )
    return found


def import_file(con: Connection, plan: FilePlan, dataset: str) -> tuple[Counts, int]:
    questions = questions_file(plan)
    try:
        stage_items(con, str(questions), dataset=dataset)
    except DatabaseError as error:
        raise IngestError(f"cannot read {questions}: {error}", file=plan.path) from None
    run_stage(con, plan, stage_judgments, str(plan.path))
    check_stage(con, plan, None)
    low, high = SCALE
    parsed = []
    for judgment in judgments(con):
        result = parse_rating_result(judgment.text, low=low, high=high)
        parsed.append(ParsedJudgment(judgment.rowid, result.value, result.reason))
    stage_ratings(con, parsed, rubric=RUBRIC, low=low, high=high)
    counts = write(con, plan, dataset, items="_items", responses="_stage", ratings="_ratings")
    return counts, load_sql.record_count(con, "_stage")


ADAPTER = Adapter(
    "mt_bench",
    "FastChat MT-Bench single-answer judgments",
    (frozenset({"question_id", "judgment", "user_prompt"}),),
    import_file,
    required=(
        frozenset({"question_id", "model", "judge", "user_prompt", "judgment", "turn", "tstamp"}),
    ),
    fields=(
        field("question_id", KEY),
        field("model", TEXT),
        field("judge", STRINGS),
        field("user_prompt", TEXT),
        field("judgment", TEXT),
        field("turn", NUMBER),
        field("tstamp", NUMBER),
    ),
    kind="jsonl",
)
