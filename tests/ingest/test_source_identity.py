"""Identity: what becomes one item, and which dataset a file goes into by default.

- Two records with different source ids stay two items even when their question is the same,
  in every format and in every published set whose records carry an id. (AlpacaEval, LLMBar
  and NQ-open records carry none: their items are their content, and two records with one
  question but other answers keep every answer.)
- A file goes into the dataset named, else its own name; a folder's files into the folder's
  name. The published sets follow the same rule (they used to go into fixed names, so two
  subsets of one set merged silently).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from dashboard.ingest import import_path
from dashboard.store import Store
from tests.ingest.conftest import Writer, query, write_json, write_jsonl
from tests.paths import SHARED_DATA

QUESTION = "Which band sees through clouds?"
_JUDGEMENT = {"rater_kind": "human", "rater": "ana", "rubric": "likert"}
_PAIR = {"answer_a": "SAR.", "answer_b": "Optical.", "system_a": "x", "system_b": "y"}
# One record per plain format; each is written twice, with ids "1" and "2".
PLAIN = {
    "rag": {"question": QUESTION, "answer": "SAR."},
    "mcqa": {"question": QUESTION, "options": ["SAR", "NIR"], "gold": "A", "answer": "A"},
    "hallucination": {"question": QUESTION, "candidate": "c", "label": 1, "prediction": "yes"},
    "conversational": {"history": ["hi", "hello"], "question": QUESTION, "answer": "SAR."},
    "pairwise": {"question": QUESTION, **_PAIR, "winner": "A"},
    "ratings": {
        "question": QUESTION,
        "system": "s",
        "answer": "SAR.",
        **_JUDGEMENT,
        "value": 4,
        "scale_low": 1,
        "scale_high": 5,
    },
    "preferences": {"question": QUESTION, **_PAIR, **_JUDGEMENT, "verdict": "A"},
}
_ID_FIELD = {"ratings": "external_id", "preferences": "external_id"}


def _items(store: Store) -> list[tuple[Any, ...]]:
    return query(store, "SELECT external_id, question FROM items ORDER BY 1")


@pytest.mark.parametrize("fmt", sorted(PLAIN))
def test_two_ids_with_one_question_are_two_items(store: Store, write: Writer, fmt: str) -> None:
    field = _ID_FIELD.get(fmt, "id")
    rows = [{**PLAIN[fmt], field: "1"}, {**PLAIN[fmt], field: "2"}]
    report = import_path(store, write(f"{fmt}.jsonl", rows), dataset="d", system="s")
    assert report.files[0].format == fmt
    assert _items(store) == [("1", QUESTION), ("2", QUESTION)]


PANDALM_PAIR = {
    "motivation_app": "m",
    "cmp_key": "x_y",
    "instruction": QUESTION,
    "input": "",
    "response1": "SAR.",
    "response2": "Optical.",
    "annotator1": 1,
    "annotator2": 1,
    "annotator3": 2,
}


def test_pandalm_idx_keeps_pairs_apart(store: Store, tmp_path: Path) -> None:
    path = write_json(tmp_path / "testset.json", [{**PANDALM_PAIR, "idx": n} for n in (0, 1)])
    import_path(store, path)
    assert _items(store) == [("0", QUESTION), ("1", QUESTION)]
    assert query(store, "SELECT count(*) FROM preferences") == [(6,)]


def _mt_bench_folder(tmp_path: Path) -> Path:
    """question.jsonl with one question under two ids, and a single judgment of each."""
    folder = tmp_path / "bench"
    folder.mkdir()
    turns = [QUESTION, "And at night?"]
    write_jsonl(
        folder / "question.jsonl",
        [{"question_id": n, "category": "stem", "turns": turns} for n in (1, 2)],
    )
    prompt = (
        "[Instruction]\nRate it.\n\n[Question]\n{q}\n\n[The Start of Assistant's Answer]\n"
        "SAR.\n[The End of Assistant's Answer]"
    )
    judgments = [
        {
            "question_id": n,
            "model": "m",
            "judge": ["gpt-4", "single-v1"],
            "user_prompt": prompt.format(q=QUESTION),
            "judgment": "Good. Rating: [[8]]",
            "score": 8,
            "turn": 1,
            "tstamp": 1.0,
        }
        for n in (1, 2)
    ]
    write_jsonl(folder / "single.jsonl", judgments)
    return folder


def test_mt_bench_question_ids_keep_items_apart(store: Store, tmp_path: Path) -> None:
    folder = _mt_bench_folder(tmp_path)
    import_path(store, folder / "single.jsonl")
    assert query(
        store, "SELECT external_id, question FROM items WHERE external_id LIKE '%:1' ORDER BY 1"
    ) == [("1:1", QUESTION), ("2:1", QUESTION)]
    assert query(store, "SELECT count(*) FROM ratings") == [(2,)]


@pytest.mark.parametrize(
    "name, record",
    [
        (
            "llmbar.json",
            {"input": QUESTION, "output_1": "SAR.", "output_2": "Optical.", "label": 1},
        ),
        (
            "alpaca.json",
            {
                "instruction": QUESTION,
                "output_1": "SAR.",
                "generator_1": "x",
                "output_2": "Optical.",
                "generator_2": "y",
                "annotator": "judge",
                "preference": 2,
                "dataset": "helpful_base",
            },
        ),
    ],
)
def test_sets_without_ids_keep_every_pair_of_one_question(
    store: Store, tmp_path: Path, name: str, record: dict[str, Any]
) -> None:
    other = {k: ("Radar." if v == "SAR." else v) for k, v in record.items()}
    import_path(store, write_json(tmp_path / name, [record, other]))
    # One item (the records carry no id: the question is the item), two pairs, two verdicts.
    assert query(store, "SELECT count(*) FROM items") == [(1,)]
    assert query(store, "SELECT count(*) FROM responses") == [(3,)]
    assert query(store, "SELECT count(*) FROM current_preferences") == [(2,)]


def test_nq_open_questions_with_other_references_are_two_items(
    store: Store, tmp_path: Path
) -> None:
    levels = {"def_correct_predictions": [], "poss_correct_predictions": ["SAR"]}
    records = [
        {"question": QUESTION, "answer": [answer], "def_incorrect_predictions": ["IR"], **levels}
        for answer in ("radar", "SAR")
    ]
    for r in records:
        r["answer_and_def_correct_predictions"] = r["answer"]
    import_path(store, write_jsonl(tmp_path / "nq.jsonl", records))
    assert query(store, "SELECT count(*) FROM items") == [(2,)]
    assert query(store, "SELECT count(*) FROM ratings") == [(4,)]


@pytest.mark.parametrize(
    "relative",
    [
        "alpaca_eval/alpaca-7b__alpaca_eval_gpt4__annotations.json",
        "llmbar/natural_dataset.json",
        "nq_open/NQ-open.efficientqa.test.1.1.jsonl",
        "mt_bench/instructlab_granite-7b-lab__gpt-4_single.jsonl",
        "pandalm/testset-v1.json",
    ],
)
def test_a_published_file_goes_into_its_own_name(store: Store, relative: str) -> None:
    path = SHARED_DATA / relative
    report = import_path(store, path, score=False)
    assert report.datasets == (path.stem,)


def test_two_subsets_of_one_set_stay_apart(store: Store) -> None:
    folder = SHARED_DATA / "alpaca_eval"
    for name in (
        "alpaca-7b__alpaca_eval_gpt4__annotations.json",
        "vicuna-13b__alpaca_eval_gpt4__annotations.json",
    ):
        import_path(store, folder / name, score=False)
    assert [d.name for d in store.list_datasets()] == [
        "alpaca-7b__alpaca_eval_gpt4__annotations",
        "vicuna-13b__alpaca_eval_gpt4__annotations",
    ]
    # A folder goes into the folder's name.
    report = import_path(store, folder, score=False)
    assert report.datasets == ("alpaca_eval",)


def test_a_copied_published_folder_keeps_its_own_name(store: Store, tmp_path: Path) -> None:
    target = tmp_path / "my-llmbar"
    target.mkdir()
    shutil.copyfile(SHARED_DATA / "llmbar" / "natural_dataset.json", target / "d.json")
    assert import_path(store, target).datasets == ("my-llmbar",)
    data = json.loads((target / "d.json").read_text(encoding="utf-8"))
    assert query(store, "SELECT count(*) FROM items") == [(len(data),)]
