"""Propose: an optimizer on a loopback OpenAI-compatible server (real LiteLLM) reads the dev
disagreements of the offline judge and proposes revisions, saved as draft versions and scored
on dev only; no look at the test split is spent until the person compares the one picked.

A change of OPTIMIZER_PROMPT shows up as a diff of `tests/workbench/golden/`. After reviewing
it, refresh with `JUDGEBOARD_UPDATE_GOLDEN=1 python -m pytest tests/workbench/test_propose.py`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from dashboard.auth.roles import RoleError, User
from dashboard.cli import main
from dashboard.judging.rubrics import RubricError, load_rubric
from dashboard.store import Store
from dashboard.workbench import lab, propose, run, shots, split, versions
from dashboard.workbench.agreement import Disagreement
from tests.judging.conftest import KEY_ENV, SECRET_KEY
from tests.support.judge_server import JudgeServer, ModelScript, always

RUBRIC, DATASET, JUDGE = "likert-rag", "eo-rag", "baseline"
GOLDEN = Path(__file__).parent / "golden"
REPLY = json.dumps(
    {
        "proposals": [
            {
                "system": "You are a strict judge. Rate 1 to 5; an unsupported claim caps it at 2.",
                "rationale": "the judge was lenient on unsupported claims",
            },
            {
                "system": "Rate 1 to 5 for accuracy against the reference answer.",
                "description": "Stricter on accuracy.",
                "labels": {"1": "wrong", "5": "right"},
            },
            {"description": "only for people", "rationale": "changes nothing the judge sees"},
        ]
    }
)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[JudgeServer]:
    monkeypatch.setenv(KEY_ENV, SECRET_KEY)
    with JudgeServer() as running:
        running.script("optimizer", ModelScript(reply=always(f"```json\n{REPLY}\n```")))
        yield running


def _looks(store: Store) -> int:
    return split.looks_since(store, rubric=RUBRIC, dataset=DATASET, since=None)


def _propose(store: Store, server: JudgeServer, **options: object) -> propose.ProposeResult:
    return propose.propose_instructions(
        store,
        rubric=RUBRIC,
        dataset=DATASET,
        judge=JUDGE,
        version="1",
        optimizer_model="openai/optimizer",
        api_base=server.url,
        **options,  # type: ignore[arg-type]
    )


def test_the_rendered_optimizer_prompt_matches_its_golden_file() -> None:
    found = [
        Disagreement(
            "r1", "i1", "s", "When did Sentinel-2A launch?", "In 2016.", 4.0, "Looks right.",
            "ana", 1.0, "Wrong year: 23 June 2015.", "h1",
        ),
        Disagreement(
            "r2", "i2", "s", "What is NDVI?", "x" * 1300, 2.0, None, "bo", 4.0, None, "h2"
        ),
    ]  # fmt: skip
    text = propose.render_optimizer_prompt(load_rubric(RUBRIC), found, n_proposals=2)
    path = GOLDEN / "optimizer--likert-rag.txt"
    if os.environ.get("JUDGEBOARD_UPDATE_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_parse_keeps_what_does_not_parse_with_its_reason() -> None:
    parsed, unparsed = propose.parse_proposals(REPLY)
    assert [sorted(c) for c, _ in parsed] == [["system"], ["description", "labels", "system"]]
    assert [u.reason for u in unparsed] == [
        "a proposal must rewrite 'system', the instructions the judge sees"
    ]
    for text, reason in (("", "no text"), ("I would rather not.", "not JSON"), ("{}", "no list")):
        assert reason in propose.parse_proposals(text)[1][0].reason


def test_proposals_are_saved_as_drafts_and_scored_on_dev_only(
    sample_store: Store, server: JudgeServer
) -> None:
    looks = _looks(sample_store)
    found = _propose(sample_store, server, n_proposals=3, api_key_env=KEY_ENV)
    assert server.stats("optimizer").requests == 1
    assert [p.version.parent for p in found.proposals] == ["1", "1"]
    assert {p.version.author for p in found.proposals} == {"optimizer:openai/optimizer"}
    assert found.proposals[0].version.rubric.system.startswith("You are a strict judge.")
    assert found.proposals[0].rationale == "the judge was lenient on unsupported claims"
    assert len(found.unparsed) == 1 and found.n_disagreements > 0
    diff = versions.diff(sample_store, RUBRIC, found.proposals[0].version.version)
    assert "+You are a strict judge." in diff
    with sample_store.connection() as con:
        calls = con.execute(
            "SELECT judge, status, raw_output FROM judge_calls WHERE judge LIKE 'optimizer:%'"
        ).fetchall()
    assert calls == [("optimizer:openai/optimizer", "ok", f"```json\n{REPLY}\n```")]
    again = _propose(sample_store, server, n_proposals=3, api_key_env=KEY_ENV)
    assert again.reply.cached and server.stats("optimizer").requests == 1  # never paid twice
    names = [p.version.version for p in found.proposals]
    scores = propose.score_on_dev(
        sample_store,
        rubric=RUBRIC,
        dataset=DATASET,
        judge=JUDGE,
        judges="offline",
        version_names=names,
    )
    assert [s.version for s in scores] == names and {s.side for s in scores} == {"dev"}
    dev = len(split.read_split(sample_store, rubric=RUBRIC, dataset=DATASET).ids(split.DEV))
    assert all(0 < s.exact.n <= dev * 3 and s.n_responses <= dev for s in scores)
    assert _looks(sample_store) == looks  # proposing and scoring on dev spend no look
    # The one picked: run on the test answers too, then one recorded look.
    rubric = versions.get_version(sample_store, RUBRIC, names[0]).rubric
    run.run_version(
        sample_store,
        run.plan_version(sample_store, judges="offline", rubric=rubric, dataset=DATASET),
    )
    assert _looks(sample_store) == looks
    picked = lab.compare(
        sample_store, rubric=RUBRIC, dataset=DATASET, judge=JUDGE, candidate=names[0]
    )
    assert picked.candidate == names[0] and picked.difference.n_units > 0
    assert _looks(sample_store) == looks + 1


def test_a_labeller_is_refused_before_any_call(sample_store: Store, server: JudgeServer) -> None:
    labeller = User("lu", "labeller")
    with pytest.raises(RoleError, match="only an admin may"):
        _propose(sample_store, server, actor=labeller)
    with pytest.raises(RoleError):
        propose.score_on_dev(
            sample_store,
            rubric=RUBRIC,
            dataset=DATASET,
            judge=JUDGE,
            judges="offline",
            version_names=["1"],
            actor=labeller,
        )
    assert server.stats("optimizer").requests == 0


def test_a_failed_optimizer_call_is_recorded_not_hidden(
    sample_store: Store, server: JudgeServer
) -> None:
    server.script("optimizer", ModelScript(sequence=["401"]))
    found = _propose(sample_store, server)
    assert not found.proposals
    assert found.unparsed[0].reason.startswith("the call failed: AuthenticationError")
    assert "no-key" in found.unparsed[0].reason  # no key from the environment: none named
    with sample_store.connection() as con:
        (status,) = con.execute(
            "SELECT status FROM judge_calls WHERE judge LIKE 'optimizer:%'"
        ).fetchone()
    assert status == "failed"


def test_align_propose_and_search_shots_print_dev_numbers_and_spend_no_look(
    sample_store: Store, server: JudgeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--db", sample_store.url, "align"]
    where = ["--rubric", RUBRIC, "--dataset", DATASET, "--judge", JUDGE, "--panel", "offline"]
    looks = _looks(sample_store)
    optimizer = ["--optimizer", "openai/optimizer", "--api-base", server.url, "--key-env", KEY_ENV]
    assert main([*base, "propose", *where, *optimizer, "--proposals", "3"]) == 0
    out = capsys.readouterr().out
    assert "optimizer:openai/optimizer read 12 of" in out and "dev disagreements" in out
    assert "proposal 1-wb1" in out and "proposal 1-wb2" in out
    assert out.count("  dev (") == 3 and "kappa_quadratic" in out and "(n = " in out
    assert "unparsed: a proposal must rewrite 'system'" in out
    assert "judgeboard align compare" in out
    shots = ["--sets", "2", "--shots", "2", "--seed", "5", "--version", "1"]
    assert main([*base, "search-shots", *where, *shots]) == 0
    out = capsys.readouterr().out
    assert "2 few-shot sets on dev, best first:" in out and out.count("  dev (") == 2
    assert _looks(sample_store) == looks  # neither step looks at the test split
    examples = [v.rubric.examples for v in versions.list_versions(sample_store, RUBRIC)[-2:]]
    dev = set(lab.dev_label_ids(sample_store, rubric=RUBRIC, dataset=DATASET))
    assert all(len(e) == 2 and {x.rating_id for x in e} <= dev for e in examples)


def test_align_help_documents_propose(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["align", "propose", "--help"])
    out = capsys.readouterr().out
    assert "--optimizer MODEL" in out and "--proposals N" in out and "dev only" in out
    with pytest.raises(SystemExit):
        main(["align", "--help"])
    assert "search-shots" in capsys.readouterr().out


def test_few_shot_sets_are_seeded_distinct_and_one_label_per_response() -> None:
    labels = {f"h{i}": f"r{i // 2}" for i in range(12)}  # two labels per response
    first = shots.draw_sets(labels, n_sets=4, k=3, seed=1)
    assert first == shots.draw_sets(labels, n_sets=4, k=3, seed=1)
    assert first != shots.draw_sets(labels, n_sets=4, k=3, seed=2)
    assert len(set(first)) == 4
    assert all(len({labels[i] for i in s}) == 3 for s in first)
    with pytest.raises(RubricError, match="too few"):
        shots.draw_sets(labels, n_sets=1, k=7, seed=0)
