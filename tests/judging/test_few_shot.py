"""Few-shot from people's labels, through the loopback judge server and real LiteLLM: every
prompt carries the drawn examples (answer and the person's rating), the run records which
labels it used, and calibration and the rubric versions of that version leave them out."""

from __future__ import annotations

import threading
from typing import Any

from dashboard.cli import main
from dashboard.judging import few_shot, load_rubric
from dashboard.metrics import calibration
from dashboard.metrics.judge_qa import versions
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from tests import builders
from tests.judging.conftest import query, seed
from tests.judging.test_cli import judge_args
from tests.support.judge_server import MARKER, JudgeServer, ModelScript


class Recorder:
    """A judge that keeps every prompt and rates the answer judged: the last marker (the
    examples' answers, with their own markers, come before it)."""

    def __init__(self) -> None:
        self.prompts: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, prompt: str) -> str:
        with self.lock:
            self.prompts.append(prompt)
        return f"Rating: [[{MARKER.findall(prompt)[-1]}]]"


def test_few_shot_prompts_records_and_held_out_calibration(
    store: Store, server: JudgeServer, capsys: Any
) -> None:
    data = seed(store, n_items=6)  # 12 responses; a person rates every one, as its marker says
    labels = [
        builders.rating(r, "ana", data.expected[r.response_id], kind="human")
        for r in data.responses
    ]
    store.add_ratings(labels, wait_s=5)
    recorder = Recorder()
    server.script("fs-judge", ModelScript(reply=recorder))
    args = judge_args(
        store, server, "--panel", "openai/fs-judge", "--rubric", "likert-rag",
        "--few-shot", "3", "--few-shot-seed", "1",
    )  # fmt: skip
    assert main(args) == 0
    assert "fewshot-3-seed1" in capsys.readouterr().out  # the plan names the version

    recorded = query(store, "SELECT * FROM few_shot_examples ORDER BY position")
    assert [r["position"] for r in recorded] == [1, 2, 3] and {r["seed"] for r in recorded} == {1}
    by_id = {r.rating_id: r for r in labels}
    assert {r["rating_id"] for r in recorded} <= set(by_id)
    expected = few_shot.draw(
        sorted(labels, key=lambda r: r.response_id), n=3, seed=1
    )  # the same seeded draw over the labels in response order
    assert [r["response_id"] for r in recorded] == [e.response_id for e in expected]
    version = recorded[0]["rubric_version"]
    assert version.startswith("1+fewshot-3-seed1-")

    assert len(recorder.prompts) == 12 and server.stats("fs-judge").requests == 12
    answers = {r.response_id: r.answer for r in data.responses}
    for prompt in recorder.prompts:
        assert "Examples of answers people rated on the same scale:" in prompt
        for n, row in enumerate(recorded, start=1):
            shown = f"Example {n}\nQuestion: "
            assert shown in prompt and f"Answer: {answers[row['response_id']]}\nRating: " in prompt
            assert f"Rating: {row['value']:g}" in prompt
    stored = query(store, "SELECT DISTINCT rubric_version FROM ratings WHERE rater_kind = 'llm'")
    assert stored == [{"rubric_version": version}]

    # Calibration and the rubric versions compare the 9 held-out responses only.
    held_out = calibration.calibration(store, Selection("demo", "likert-rag"))
    (judge,) = [j for j in held_out.judges if j.judge == "openai/fs-judge"]
    assert judge.n_pairs == 9 and judge.exact.value == 1.0
    side = versions.rubric_versions(store, Selection("demo", "likert-rag"))
    (only,) = side.versions
    assert only.version == version and only.agreement.n == 9
    assert [e.response_id for e in side.examples] == [r["response_id"] for r in recorded]

    assert main(args) == 0  # the same draw again: every call is cached
    assert server.stats("fs-judge").requests == 12
    assert len(query(store, "SELECT * FROM few_shot_examples")) == 3


def test_few_shot_needs_a_held_out_label(store: Store, capsys: Any) -> None:
    data = seed(store, n_items=1)
    store.add_ratings([builders.rating(r, "ana", 3, kind="human") for r in data.responses])
    rubric = load_rubric("likert-rag")
    try:
        few_shot.few_shot_rubric(store, rubric, n=2)
    except few_shot.PlanError as error:
        assert "people rated 2 responses" in str(error) and "one must stay held out" in str(error)
    else:
        raise AssertionError("two labels cannot give two examples and a held-out one")
