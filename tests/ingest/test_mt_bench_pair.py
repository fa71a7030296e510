"""FastChat MT-Bench pair judgments, on a file built the way FastChat's gen_judgment builds it.

No pair-judgment file is among the published data, so the test writes one: FastChat's own pair
templates (../shared/data/mt_bench/judge_prompts.jsonl) filled in with MT-Bench's questions
(question.jsonl) and two made-up models' answers, exactly as `run_judge_pair` and
`play_a_match_pair` in FastChat's common.py do: game 1 shows model_1 as A, game 2 shows
model_2 as A, and each winner is mapped back to "model_1"/"model_2" ("tie", "error" as is).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from dashboard.ingest import IngestError, import_path
from dashboard.store import Store
from tests.ingest.conftest import query, write_jsonl
from tests.paths import SHARED_DATA

MT_BENCH = SHARED_DATA / "mt_bench"
G1_MAP = {"A": "model_1", "B": "model_2"}  # FastChat's maps, as in play_a_match_pair
G2_MAP = {"A": "model_2", "B": "model_1"}


def _templates() -> dict[str, dict[str, Any]]:
    lines = (MT_BENCH / "judge_prompts.jsonl").read_text(encoding="utf-8").splitlines()
    return {t["name"]: t for t in map(json.loads, lines)}


def _questions() -> dict[int, dict[str, Any]]:
    lines = (MT_BENCH / "question.jsonl").read_text(encoding="utf-8").splitlines()
    return {q["question_id"]: q for q in map(json.loads, lines)}


def _answers(model: str, question: dict[str, Any]) -> list[str]:
    # FastChat's model answers often start with a newline: the adapter must trim it away.
    return [f"\n{model} answers turn {n} of {question['question_id']}." for n in (1, 2)]


def _prompt(template: dict, question: dict, answer_a: list, answer_b: list, turn: int) -> str:
    """run_judge_pair's user prompt (its reference answers are the question's own)."""
    kwargs = {}
    if "reference" in question:
        kwargs = {
            "ref_answer_1": question["reference"][0],
            "ref_answer_2": question["reference"][1],
        }
    if turn == 2:
        return template["prompt_template"].format(
            question_1=question["turns"][0],
            question_2=question["turns"][1],
            answer_a_1=answer_a[0],
            answer_b_1=answer_b[0],
            answer_a_2=answer_a[1],
            answer_b_2=answer_b[1],
            **kwargs,
        )
    return template["prompt_template"].format(
        question=question["turns"][0], answer_a=answer_a[0], answer_b=answer_b[0], **kwargs
    )


def _verdict_text(winner: str) -> str:
    return {"A": "A is better. [[A]]", "B": "[[B]]", "tie": "Equal. [[C]]"}.get(
        winner,
        "I cannot decide.",  # no [[A]], [[B]] or [[C]]: FastChat's "error"
    )


def _record(qid: int, turn: int, prompt_name: str, g1: str, g2: str) -> dict[str, Any]:
    """One line of gpt-4_pair.jsonl: g1/g2 are the judge's raw A/B/tie/error per game."""
    question, template = _questions()[qid], _templates()[prompt_name]
    one, two = _answers("vicuna-13b", question), _answers("llama-13b", question)
    return {
        "question_id": qid,
        "model_1": "vicuna-13b",
        "model_2": "llama-13b",
        "g1_winner": G1_MAP.get(g1, g1),
        "g2_winner": G2_MAP.get(g2, g2),
        "judge": ["gpt-4", prompt_name],
        "g1_user_prompt": _prompt(template, question, one, two, turn),
        "g1_judgment": _verdict_text(g1),
        "g2_user_prompt": _prompt(template, question, two, one, turn),
        "g2_judgment": _verdict_text(g2),
        "turn": turn,
        "tstamp": 1687222000.5 + qid,
    }


# question 81 is writing (pair-v2), 111 math (pair-math-v1, with a reference answer)
RECORDS = [
    _record(81, 1, "pair-v2", "A", "B"),  # consistent: model_1 both times
    _record(81, 2, "pair-v2-multi-turn", "A", "A"),  # position-biased: A both times
    _record(111, 1, "pair-math-v1", "tie", "error"),  # game 2's judgment has no verdict
    _record(111, 2, "pair-math-v1-multi-turn", "B", "A"),  # consistent: model_2
]


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    folder = tmp_path / "model_judgment"
    folder.mkdir()
    shutil.copyfile(MT_BENCH / "question.jsonl", folder / "question.jsonl")
    write_jsonl(folder / "gpt-4_pair.jsonl", RECORDS)
    return folder


def _verdicts(store: Store) -> list[tuple]:
    return query(
        store,
        """
        SELECT i.external_id, p.shown_first, p.verdict, a.system, b.system, p.rater,
               p.rubric, p.rubric_version, p.unscored_reason IS NOT NULL, p.raw_output
        FROM preferences p JOIN items i USING (item_id)
        JOIN responses a ON a.response_id = p.response_a
        JOIN responses b ON b.response_id = p.response_b ORDER BY 1, 2""",
    )


def test_both_games_become_verdicts_in_both_orders(store: Store, bench: Path) -> None:
    report = import_path(store, bench / "gpt-4_pair.jsonl")
    [file] = report.files
    assert file.format == "mt_bench_pair" and file.records == 4
    assert file.datasets == ("gpt-4_pair",)  # the file's name, as for any file
    assert dict(file.added) == {"items": 160, "responses": 8, "preferences": 8}
    rows = _verdicts(store)
    pair = ("vicuna-13b", "llama-13b", "gpt-4", "mt-bench-pair")
    by_key = {(r[0], r[1]): r for r in rows}
    # Canonical A is model_1. Game 1 showed it first; game 2 showed model_2 first.
    assert by_key[("81:1", "A")][2:8] == ("A", *pair, "pair-v2")
    assert by_key[("81:1", "B")][2] == "A"  # g2 said B = model_1
    assert by_key[("81:2", "A")][2] == "A"
    assert by_key[("81:2", "B")][2] == "B"  # g2 said A = model_2: the position bias shows
    assert by_key[("111:1", "A")][2] == "tie"
    assert by_key[("111:2", "A")][2] == "B" and by_key[("111:2", "B")][2] == "B"
    # FastChat's error game is an unscored verdict, never a tie, with its judgment kept.
    error = by_key[("111:1", "B")]
    assert error[2] is None and error[8] is True and error[9] == "I cannot decide."
    assert sum(r[8] for r in rows) == 1
    assert {r[7] for r in rows} == {
        "pair-v2",
        "pair-v2-multi-turn",
        "pair-math-v1",
        "pair-math-v1-multi-turn",
    }


def test_answers_are_read_from_the_prompts(store: Store, bench: Path) -> None:
    import_path(store, bench / "gpt-4_pair.jsonl")
    answers = query(
        store,
        "SELECT i.external_id, r.system, r.answer, r.metadata FROM responses r "
        "JOIN items i USING (item_id) ORDER BY 1, 2",
    )
    questions = _questions()
    for external_id, system, answer, metadata in answers:
        qid, turn = map(int, external_id.split(":"))
        expected = _answers(system, questions[qid])
        assert answer == expected[turn - 1].strip()
        if turn == 1:
            assert metadata is None
        else:  # the turn-2 answer carries the model's own turn 1 (the item carries the user's)
            assert json.loads(metadata)["history"] == [
                {"role": "user", "content": questions[qid]["turns"][0]},
                {"role": "assistant", "content": expected[0].strip()},
            ]
    [(task, history)] = query(
        store, "SELECT task_type, history FROM items WHERE external_id = '81:2'"
    )
    assert task == "conversational_qa"
    assert json.loads(history) == [{"role": "user", "content": questions[81]["turns"][0]}]


def test_single_and_pair_judgments_share_items(store: Store, bench: Path) -> None:
    shutil.copyfile(
        MT_BENCH / "instructlab_granite-7b-lab__gpt-4_single.jsonl", bench / "single.jsonl"
    )
    report = import_path(store, bench)  # the folder: one dataset, its name
    assert report.datasets == ("model_judgment",)
    assert query(store, "SELECT count(*) FROM items") == [(160,)]
    again = import_path(store, bench)
    assert sum(again.added.values()) == 0


def test_a_game_2_that_does_not_mirror_game_1_is_an_error(store: Store, bench: Path) -> None:
    records = [dict(r) for r in RECORDS]
    records[1]["g2_user_prompt"] = records[1]["g1_user_prompt"]  # same order twice
    path = write_jsonl(bench / "gpt-4_pair.jsonl", records)
    with pytest.raises(IngestError) as caught:
        import_path(store, path)
    assert str(caught.value) == (
        f"{path}: line 2 (record 2): field 'g2_user_prompt': game 2 does not show game 1's "
        "two answers the other way round"
    )


def test_an_unknown_winner_is_an_error(store: Store, bench: Path) -> None:
    records = [dict(r) for r in RECORDS]
    records[2]["g1_winner"] = "A"  # not mapped back to a model: not FastChat's output
    path = write_jsonl(bench / "gpt-4_pair.jsonl", records)
    with pytest.raises(IngestError, match="line 3 .record 3.: field 'g1_winner': expected "):
        import_path(store, path)
