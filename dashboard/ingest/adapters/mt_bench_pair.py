"""FastChat MT-Bench pair judgments (`model_judgment/gpt-4_pair.jsonl`): each record is one pair
of models judged twice, once in each presentation order.

In FastChat's gen_judgment (common.py, `play_a_match_pair`), game 1 shows model_1 as
assistant A and model_2 as B; game 2 shows model_2 as A and model_1 as B. Both winners are then
mapped back to the canonical names (`g1_map = {"A": "model_1", "B": "model_2"}`, `g2_map =
{"A": "model_2", "B": "model_1"}`), so `g1_winner` and `g2_winner` are "model_1", "model_2",
"tie", or "error" when the judgment holds no "[[A]]", "[[B]]" or "[[C]]". Here the canonical
A is model_1: game 1 is a verdict shown A first, game 2 one shown B first, and an `error` game
is an unscored verdict (its judgment kept as the raw output), never a tie.

Items come from `question.jsonl` beside the file (or one folder up), as for the single-answer
judgments (`mt_bench.py`), so both kinds of judgment of one benchmark share their items. The
answers are read from game 1's prompt (FastChat's pair templates put them between fixed markers; the
multi-turn ones show both conversations, the judged answer being each one's last turn), and
game 2's prompt must show the same two answers the other way round.
"""

from __future__ import annotations

from dashboard.ingest import load_sql, read_sql
from dashboard.ingest.adapters.common import (
    JSONL,
    PREFERENCE_ID,
    Adapter,
    field,
    run_stage,
    write,
)
from dashboard.ingest.adapters.mt_bench import questions_file, stage_items
from dashboard.ingest.errors import IngestError
from dashboard.ingest.formats import KEY, NUMBER, STRINGS, TEXT
from dashboard.ingest.generic import check_stage
from dashboard.ingest.ids_sql import response_id_sql
from dashboard.ingest.plan import Counts, FilePlan
from dashboard.store.connection import Connection, DatabaseError

RUBRIC = "mt-bench-pair"
_BLANK = " \t\r\n"
# Where FastChat's pair templates (judge_prompts.jsonl) put each assistant's answer.
_PATTERNS = {
    "answer_a": r"(?s)\[The Start of Assistant A's Answer\]\n(.*)"
    r"\n\[The End of Assistant A's Answer\]",
    "answer_b": r"(?s)\[The Start of Assistant B's Answer\]\n(.*)"
    r"\n\[The End of Assistant B's Answer\]",
    "conversation_a": r"(?s)<\|The Start of Assistant A's Conversation with User\|>\n\n(.*)"
    r"\n\n<\|The End of Assistant A's Conversation with User\|>",
    "conversation_b": r"(?s)<\|The Start of Assistant B's Conversation with User\|>\n\n(.*)"
    r"\n\n<\|The End of Assistant B's Conversation with User\|>",
    "first_a": r"(?s)### Assistant A:\n(.*?)\n\n### User:\n",
    "first_b": r"(?s)### Assistant B:\n(.*?)\n\n### User:\n",
    "turn_a": "### Assistant A:\n",
    "turn_b": "### Assistant B:\n",
    "blank": _BLANK,
}
_WINNER = "CASE {w} WHEN 'model_1' THEN 'A' WHEN 'model_2' THEN 'B' WHEN 'tie' THEN 'tie' END"


def _answer(prompt: str, side: str) -> str:
    """SQL: the judged answer of assistant `side` ("a"/"b") in a game's prompt."""
    conversation = f"regexp_extract({prompt}, $conversation_{side}, 1)"
    last = f"string_split({conversation}, $turn_{side})[-1]"
    return (
        f"trim(CASE WHEN j.judge[2] LIKE '%multi-turn' THEN {last} "
        f"ELSE regexp_extract({prompt}, $answer_{side}, 1) END, $blank)"
    )


def _history(side: str) -> str:
    """SQL: a turn-2 response's metadata: the user's turn 1 and this model's own reply."""
    conversation = f"regexp_extract(j.g1_user_prompt, $conversation_{side}, 1)"
    first = f"trim(regexp_extract({conversation}, $first_{side}, 1), $blank)"
    return (
        f"CASE WHEN j.turn > 1 THEN json_object('history', ["
        f"{{'role': 'user', 'content': i._first}}, "
        f"{{'role': 'assistant', 'content': {first}}}]) END"
    )


_PROBLEMS = """CASE
    WHEN j_question IS NULL THEN 'question_id' || chr(31) || 'question '
         || coalesce(j_question_id, 'null') || ' turn ' || coalesce(j_turn, 'null')
         || ' is not in question.jsonl'
    WHEN system_a IS NULL THEN 'model_1' || chr(31) || 'is missing'
    WHEN system_b IS NULL THEN 'model_2' || chr(31) || 'is missing'
    WHEN len(coalesce(judge, [])) < 2 THEN 'judge' || chr(31)
         || 'expected [judge model, prompt name]'
    WHEN coalesce(answer_a, '') = '' OR coalesce(answer_b, '') = '' THEN 'g1_user_prompt'
         || chr(31) || 'the answers are not where FastChat''s pair prompt puts them'
    WHEN g2_a IS DISTINCT FROM answer_b OR g2_b IS DISTINCT FROM answer_a THEN 'g2_user_prompt'
         || chr(31) || 'game 2 does not show game 1''s two answers the other way round'
    WHEN g1_winner IS NULL OR g1_winner NOT IN ('model_1', 'model_2', 'tie', 'error')
         THEN 'g1_winner' || chr(31) || 'expected model_1, model_2, tie or error, got '
         || coalesce(g1_winner, 'null')
    WHEN g2_winner IS NULL OR g2_winner NOT IN ('model_1', 'model_2', 'tie', 'error')
         THEN 'g2_winner' || chr(31) || 'expected model_1, model_2, tie or error, got '
         || coalesce(g2_winner, 'null')
    WHEN g1_judgment IS NULL THEN 'g1_judgment' || chr(31) || 'is missing'
    WHEN g2_judgment IS NULL THEN 'g2_judgment' || chr(31) || 'is missing'
END"""


def stage_pairs(con: Connection, path: str) -> None:
    """`_stage`: one row per record, the pair's two responses read from game 1's prompt."""
    responses = ", ".join(
        f"{response_id_sql('item_id', f'system_{s}', f'answer_{s}')} AS response_{s}"
        for s in ("a", "b")
    )
    read_sql.execute(
        con,
        f"""
        CREATE TEMP TABLE _stage AS SELECT *, {responses}, {_PROBLEMS} AS _problem FROM (
            SELECT i.item_id, i.dataset, i.question AS j_question,
                   j.model_1 AS system_a, j.model_2 AS system_b, j.judge, j.turn,
                   {_answer("j.g1_user_prompt", "a")} AS answer_a,
                   {_answer("j.g1_user_prompt", "b")} AS answer_b,
                   {_answer("j.g2_user_prompt", "a")} AS g2_a,
                   {_answer("j.g2_user_prompt", "b")} AS g2_b,
                   {_history("a")} AS response_metadata_a,
                   {_history("b")} AS response_metadata_b,
                   j.g1_winner, j.g2_winner, j.g1_judgment, j.g2_judgment,
                   CAST(j.question_id AS VARCHAR) AS j_question_id,
                   CAST(j.turn AS VARCHAR) AS j_turn,
                   to_timestamp(j.tstamp) AT TIME ZONE 'UTC' AS created_utc
            FROM {JSONL} j
            LEFT JOIN _items i ON i._question_id = j.question_id AND i._turn = j.turn)""",
        {"path": path, **_PATTERNS},
    )


def stage_games(con: Connection) -> None:
    """`_prefs`: game 1 (model_1 shown first, as A) and game 2 (model_2 shown first)."""
    games = " UNION ALL ".join(
        f"""SELECT item_id, response_a, response_b, 'llm' AS rater_kind, judge[1] AS rater,
               '{RUBRIC}' AS rubric, judge[2] AS rubric_version,
               {_WINNER.format(w=f"g{n}_winner")} AS verdict, '{side}' AS shown_first,
               CASE WHEN g{n}_winner = 'error' THEN 'FastChat found no verdict ([[A]], '
                    || '[[B]] or [[C]]) in game {n}''s judgment' END AS unscored_reason,
               NULL AS explanation, g{n}_judgment AS raw_output, created_utc,
               rowid * 2 + {n - 1} AS _ord
        FROM _stage"""
        for n, side in ((1, "A"), (2, "B"))
    )
    read_sql.execute(
        con,
        f"CREATE TEMP TABLE _prefs AS SELECT *, {PREFERENCE_ID} AS preference_id FROM ("
        f"SELECT * EXCLUDE (_ord) FROM ({games}) ORDER BY _ord)",
    )


def import_file(con: Connection, plan: FilePlan, dataset: str) -> tuple[Counts, int]:
    questions = questions_file(plan)
    try:
        stage_items(con, str(questions), dataset=dataset)
    except DatabaseError:
        raise IngestError(
            f"cannot read {questions} as FastChat's MT-Bench questions", file=plan.path
        ) from None
    run_stage(con, plan, stage_pairs, str(plan.path))
    check_stage(con, plan, None)
    stage_games(con)
    counts = write(con, plan, dataset, items="_items", responses="_stage", preferences="_prefs")
    return counts, load_sql.record_count(con, "_stage")


ADAPTER = Adapter(
    "mt_bench_pair",
    "FastChat MT-Bench pair judgments",
    (frozenset({"question_id", "model_1", "model_2", "g1_winner", "g2_winner"}),),
    import_file,
    required=(
        frozenset(
            {
                "question_id",
                "model_1",
                "model_2",
                "g1_winner",
                "g2_winner",
                "judge",
                "g1_user_prompt",
                "g1_judgment",
                "g2_user_prompt",
                "g2_judgment",
                "turn",
                "tstamp",
            }
        ),
    ),
    fields=(
        field("question_id", KEY),
        *(field(c, TEXT) for c in ("model_1", "model_2", "g1_winner", "g2_winner")),
        *(field(c, TEXT) for c in ("g1_user_prompt", "g1_judgment")),
        *(field(c, TEXT) for c in ("g2_user_prompt", "g2_judgment")),
        field("judge", STRINGS),
        field("turn", NUMBER),
        field("tstamp", NUMBER),
    ),
    kind="jsonl",
)
