"""`judgeboard align` end to end on the sample, with a judge on a loopback OpenAI-compatible
server through real LiteLLM (calls counted), and the judge card in `metrics --json` and its
gates."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dashboard.cli import main
from dashboard.store import Store
from tests.judging.conftest import KEY_ENV, SECRET_KEY
from tests.support.judge_server import JudgeServer, ModelScript

RUBRIC, DATASET = "likert-rag", "eo-rag"


def scripted(prompt: str) -> str:
    """A judge whose rating follows the prompt's length, one point lower when told to be
    strict: two rubric versions then rate differently."""
    value = 1 + len(prompt) % 5
    if "strict grader" in prompt:
        value = max(1, value - 1)
    return f"Explanation: scripted.\nRating: [[{value}]]"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[JudgeServer]:
    monkeypatch.setenv(KEY_ENV, SECRET_KEY)
    with JudgeServer() as running:
        yield running


def _align(store: Store, *args: str) -> list[str]:
    return ["--db", store.url, "align", args[0], "--rubric", RUBRIC, *args[1:]]


def test_align_walks_the_loop_with_a_loopback_judge(
    sample_store: Store, server: JudgeServer, capsys: Any, tmp_path: Path
) -> None:
    server.script("wb-judge", ModelScript(reply=scripted))
    judge = ["--panel", "openai/wb-judge", "--api-base", server.url, "--api-key-env", KEY_ENV]
    assert main(_align(sample_store, "split", "--dataset", DATASET, "--seed", "3")) == 0
    assert "seed 3" in capsys.readouterr().out
    assert main(_align(sample_store, "run", "--dataset", DATASET, "--version", "1", *judge)) == 0
    assert server.stats("wb-judge").requests == 30  # the labelled answers only
    capsys.readouterr()
    metrics = ["--db", sample_store.url, "metrics", "--dataset", DATASET, "--rubric", RUBRIC]
    assert main([*metrics, "--json"]) == 0
    before_draft = json.loads(capsys.readouterr().out)
    assert main(_align(sample_store, "export", "--version", "1")) == 0
    exported = capsys.readouterr().out
    edited = tmp_path / "edit.toml"
    edited.write_text(exported.replace("You are", "You are a strict grader;\nyou are", 1))
    assert main(_align(sample_store, "edit", "--from", str(edited), "--author", "ana")) == 0
    out = capsys.readouterr().out
    assert "saved likert-rag version 1-wb1" in out and "+You are a strict grader;" in out
    assert (
        main(_align(sample_store, "run", "--dataset", DATASET, "--version", "1-wb1", *judge)) == 0
    )
    assert server.stats("wb-judge").requests == 60
    assert (
        main(_align(sample_store, "run", "--dataset", DATASET, "--version", "1-wb1", *judge)) == 0
    )
    assert server.stats("wb-judge").requests == 60  # cached: no call made again
    capsys.readouterr()
    # The draft's ratings (another value on most answers) leave every number as it was.
    assert main([*metrics, "--json"]) == 0
    after_draft = json.loads(capsys.readouterr().out)
    assert after_draft == before_draft
    assert (
        main(_align(sample_store, "show", "--dataset", DATASET, "--judge", "openai/wb-judge")) == 0
    )
    assert "dev disagreements of openai/wb-judge" in capsys.readouterr().out
    compare = ["--dataset", DATASET, "--judge", "openai/wb-judge", "--version", "1-wb1"]
    assert main(_align(sample_store, "compare", *compare, "--baseline", "1")) == 0
    out = capsys.readouterr().out
    assert "verdict:" in out and "McNemar" in out
    adopt = [*compare, "--by", "ana", "--reason", "stricter"]
    assert main(_align(sample_store, "adopt", *adopt)) == 0
    capsys.readouterr()
    assert main(_align(sample_store, "show", "--dataset", DATASET)) == 0
    out = capsys.readouterr().out
    assert "in force for openai/wb-judge: 1-wb1, adopted by ana" in out
    assert "in force for every other judge: 1 (the file's)" in out
    assert main([*metrics, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    changed = [k for k, v in before_draft["metrics"].items() if data["metrics"].get(k) != v]
    # Adopted, the version is the judge's in force: its scores and calibration change.
    assert "systems.eo-rag-large.judge.openai/wb-judge" in changed
    assert "calibration.openai/wb-judge.kappa_quadratic" in changed
    card = "judge_cards.openai/wb-judge.likert-rag"
    assert data["metrics"][f"{card}.fresh"]["value"] == 1
    assert data["metrics"][f"{card}.kappa_quadratic"]["n"] > 0
    assert data["notes"]["judge_cards"]["openai/wb-judge.likert-rag"]["rubric_version"] == "1-wb1"
    assert main([*metrics, "--fail-under", "judge_cards.*.*.fresh=1"]) == 0
    report = tmp_path / "report.html"
    base = ["--db", sample_store.url, "report", "--dataset", DATASET, "--rubric", RUBRIC]
    assert main([*base, "--out", str(report)]) == 0
    html = report.read_text(encoding="utf-8")
    assert 'id="judge-cards"' in html and f"{card}.kappa_quadratic" in html
    assert '<a href="#judge-cards">Judge cards</a>' in html  # and the report's links reach it
    assert "openai/wb-judge (wb-judge) · prompt" in html  # the model and its version
    notes = data["notes"]["judge_cards"]["openai/wb-judge.likert-rag"]
    assert notes["model_version"] == "wb-judge"  # what the server reported in `model`
    # The provider updates the model behind the same name: the next calls report another
    # version, and the card stops holding.
    server.script("wb-judge", ModelScript(reply=scripted, reported_model="wb-judge-2027-01"))
    every = ["--dataset", DATASET, "--version", "1-wb1", "--every-answer", *judge]
    assert main(_align(sample_store, "run", *every)) == 0
    assert server.stats("wb-judge").requests == 60 + 90  # the other answers of eo-rag
    assert main([*metrics, "--fail-under", f"{card}.kappa_quadratic=1.01"]) == 1
    capsys.readouterr()
    assert main([*metrics, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["metrics"][f"{card}.fresh"]["value"] == 0
    (why,) = data["notes"]["judge_cards"]["openai/wb-judge.likert-rag"]["stale"]
    assert "model version wb-judge-2027-01" in why and "measured wb-judge" in why
    assert main([*metrics, "--fail-under", "judge_cards.*.*.fresh=1"]) == 1
    assert main(_align(sample_store, "card")) == 0
    out = capsys.readouterr().out
    assert "STALE" in out and "version wb-judge)" in out and "kappa_quadratic" in out
