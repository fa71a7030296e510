"""Numbers a review compares with a paper's (issue 28), each with a test that failed on the
code before its fix: LLMBar's Acc with its unparsed verdicts, one rule for the judge-only
pairwise win rate, and the MT-Bench headline on all four of FastChat's single-answer prompts."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from dashboard.ingest import import_path
from dashboard.metrics import calibration
from dashboard.metrics.output import metrics_json
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from tests import builders
from tests.paths import SHARED_DATA

LLMBAR = SHARED_DATA / "llmbar"


def _llmbar_acc(rows: list[dict]) -> float:
    """LLMBar's LLMEvaluator/evaluate.py, written out: correct_average over every pair, the
    parsed winner (None when its parsing found none) compared with the label."""
    label = [str(r["label"]) for r in rows]
    false = sum(r["results"][-1]["swap = False"]["winner"] == g for r, g in zip(rows, label))
    true = sum(r["results"][-1]["swap = True"]["winner"] == g for r, g in zip(rows, label))
    return (false + true) / 2 / len(rows)


def test_accuracy_is_llmbars_acc_with_its_unparsed_verdicts(tmp_path: Path) -> None:
    """A result file as LLMBar writes it when its parsing found no winner (`"winner": null`):
    LLMBar counts such a verdict as wrong; `accuracy` now does too, `accuracy_scored` leaves
    the pair out as every other convention does."""
    rows = json.loads((LLMBAR / "natural_chatgpt_vanilla_result.json").read_text("utf-8"))
    for n in (0, 3, 10, 11, 40):  # five verdicts LLMBar could not parse, in either order
        rows[n]["results"][-1]["swap = True" if n % 2 else "swap = False"]["winner"] = None
    folder = tmp_path / "Natural"
    (folder / "evaluators" / "ChatGPT" / "Vanilla").mkdir(parents=True)
    (folder / "dataset.json").write_text((LLMBAR / "natural_dataset.json").read_text("utf-8"))
    (folder / "evaluators" / "ChatGPT" / "Vanilla" / "result.json").write_text(json.dumps(rows))
    store = Store(tmp_path / "llmbar.duckdb")
    import_path(store, folder)
    (found,) = [
        p
        for p in calibration.calibration(store, Selection("Natural")).preferences
        if p.judge == "ChatGPT/Vanilla"
    ]
    expected = _llmbar_acc(rows)
    assert expected != _llmbar_acc(
        json.loads((LLMBAR / "natural_chatgpt_vanilla_result.json").read_text("utf-8"))
    )
    assert (found.accuracy.value, found.accuracy.n) == (pytest.approx(expected), 100)
    assert found.unscored_pairs == 5
    assert found.accuracy_scored.n == 95 and found.accuracy_scored.value != found.accuracy.value
    _, _, numbers = metrics_json.compute(store, Selection("Natural"))
    assert numbers["metrics"]["calibration.pairwise.ChatGPT/Vanilla.accuracy"]["value"] == (
        pytest.approx(expected)
    )


# One judge on four pairs of x (answer A) against y, in both orders: (A shown first, B shown
# first); None = did not parse.
ORDERS = [("A", "A"), ("A", "tie"), ("A", None), ("B", "B")]


def test_one_rule_for_the_judge_only_pairwise_win_rate(store: Store) -> None:
    """The standings' win rate and the corrected family's `judge_only` read a judge's pairs
    by one rule (`scoring.pairwise.pair_verdict`). Before, `judge_only` averaged the parsed
    orders: it kept the pair with an unparsed order and scored A against a tie 0.75."""
    items = [builders.item("rule", n) for n in range(len(ORDERS))]
    xs = [builders.response(it, "x", f"x {n}") for n, it in enumerate(items)]
    ys = [builders.response(it, "y", f"y {n}") for n, it in enumerate(items)]
    store.add_items(items, xs + ys)
    store.add_preferences(
        [
            builders.preference(it, a, b, "j", verdict, shown_first=order)
            for it, a, b, orders in zip(items, xs, ys, ORDERS)
            for order, verdict in zip("AB", orders)
        ]
    )
    _, _, found = metrics_json.compute(store, Selection("rule"))
    numbers = found["metrics"]
    standings = numbers["pairwise.x.y.win_rate.judge.j"]
    judge_only = numbers["pairwise.x.y.win_rate.judge_only"]
    # Pairs scored: 0 (A, A) a win, 1 (A, tie) a tie, 3 (B, B) a loss; pair 2 is unscored.
    # (1 + 0.5 + 0) / 3 = 0.5
    assert standings["value"] == pytest.approx(0.5)
    assert judge_only["value"] == pytest.approx(0.5) and judge_only["n"] == 3


MT_BENCH = SHARED_DATA / "mt_bench"
SINGLE = "instructlab_granite-7b-lab__gpt-4_single.jsonl"


def _fastchat_graded(tmp_path: Path) -> Path:
    """FastChat's data/mt_bench/ with single-answer judgments that all end in FastChat's
    "Rating: [[k]]": the published records (their four prompts, single-v1, single-math-v1
    and their multi-turn forms, used side by side), each judgment given a rating so that the
    160 average 8.20, as FastChat's show_result.py would print."""
    root = tmp_path / "mt_bench"
    (root / "model_judgment").mkdir(parents=True)
    (root / "question.jsonl").write_text((MT_BENCH / "question.jsonl").read_text("utf-8"))
    lines = (MT_BENCH / SINGLE).read_text("utf-8").splitlines()
    records = []
    for n, line in enumerate(lines):
        record = json.loads(line)
        score = (8, 9, 8, 8, 8)[n % 5]  # (8 + 9 + 8 + 8 + 8) / 5 = 8.2
        record["judgment"] = f"{record['judgment']}\n\nRating: [[{score}]]"
        record["score"] = score
        records.append(json.dumps(record))
    (root / "model_judgment" / "gpt-4_single.jsonl").write_text("\n".join(records) + "\n")
    return root


def test_mt_bench_headline_counts_all_four_prompts(tmp_path: Path) -> None:
    """FastChat's prompt names are stored as rubric versions; the panel kept only the
    "newest" one (30 of 160 ratings, 0.556) where FastChat's 8.20 is all 160: (8.2 - 1) / 9
    = 0.8 on 0-1."""
    store = Store(tmp_path / "mt.duckdb")
    import_path(store, _fastchat_graded(tmp_path))
    _, _, found = metrics_json.compute(store, Selection())
    numbers = found["metrics"]
    for name in ("panel", "effective", "judge.gpt-4"):
        entry = numbers[f"systems.granite-7b-lab.{name}"]
        assert (entry["value"], entry["n"]) == (pytest.approx(0.8), 160), name
    assert found["selection"]["panel_versions"] == {
        "mt_bench": [
            "single-math-v1",
            "single-math-v1-multi-turn",
            "single-v1",
            "single-v1-multi-turn",
        ]
    }
    assert found["selection"]["panel_version"] is None  # several: named per dataset above


def test_mt_bench_published_panel_is_its_judge(tmp_path: Path) -> None:
    """On the published file (117 judgments without a rating our parser reads) the panel of
    its one judge is that judge's number, on every prompt's ratings."""
    store = Store(tmp_path / "mt.duckdb")
    import_path(store, MT_BENCH)
    _, _, found = metrics_json.compute(store, Selection("mt_bench"))
    numbers = found["metrics"]
    judge = numbers["systems.granite-7b-lab.judge.gpt-4"]
    panel = numbers["systems.granite-7b-lab.panel"]
    assert judge["n"] == 43
    assert (panel["value"], panel["n"]) == (pytest.approx(judge["value"]), 43)


def _rated(store: Store, dataset: str, version: str, values: list[float], *, minutes: int) -> list:
    items = [builders.item(dataset, n) for n in range(len(values))]
    responses = [builders.response(it, "s", f"answer {n}") for n, it in enumerate(items)]
    store.add_items(items, responses)
    store.add_ratings(
        [
            dataclasses.replace(builders.rating(r, "j", v, minutes=minutes), rubric_version=version)
            for r, v in zip(responses, values)
        ]
    )
    return responses


def test_the_newest_version_rule_is_scoped_per_dataset(store: Store) -> None:
    """Version 2 of a rubric rated on one dataset made every other dataset's version-1
    ratings drop out of its panel numbers."""
    _rated(store, "old", "1", [5, 5, 1], minutes=0)  # (1 + 1 + 0) / 3
    _rated(store, "new", "2", [3], minutes=5)
    _, _, found = metrics_json.compute(store, Selection("old"))
    entry = found["metrics"]["systems.s.panel"]
    assert (entry["value"], entry["n"]) == (pytest.approx(2 / 3), 3)
    assert found["selection"]["panel_version"] == "1"
    assert found["selection"]["panel_versions"] == {"old": ["1"]}


def test_a_version_run_again_on_the_same_answers_replaces_the_older(store: Store) -> None:
    responses = _rated(store, "rerun", "1", [5, 5, 1], minutes=0)
    again = builders.rating(responses[0], "j", 1, minutes=5)
    store.add_ratings([dataclasses.replace(again, rubric_version="2")])
    _, _, found = metrics_json.compute(store, Selection("rerun"))
    entry = found["metrics"]["systems.s.panel"]
    assert (entry["value"], entry["n"]) == (0.0, 1)  # version 2 alone, as before
    assert found["selection"]["panel_versions"] == {"rerun": ["2"]}


def test_a_judge_row_without_a_winner_is_counted_unscored(tmp_path: Path) -> None:
    """Imported from a pairwise file, a judge's row without a winner is an unscored verdict
    the calibration counts (its unscored counts used to read 0: the row was dropped)."""
    rows = [
        {
            "question": f"q{n}",
            "answer_a": "x",
            "answer_b": "y",
            "system_a": "s1",
            "system_b": "s2",
            "rater": "gpt",
            "rater_kind": "llm",
            "winner": winner,
        }
        for n, winner in enumerate(["A", None, "B", None, None])
    ]
    path = tmp_path / "verdicts.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    store = Store(tmp_path / "db.duckdb")
    assert import_path(store, path).added["preferences"] == 5
    numbers = metrics_json.compute(store, Selection("verdicts"))[2]["metrics"]
    assert numbers["calibration.pairwise.gpt.unscored_verdicts"]["value"] == 3
    assert numbers["calibration.pairwise.gpt.unscored_pairs"]["value"] == 3
