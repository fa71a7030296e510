"""Looks at the test split are counted per judge (docs/judge-qa.md, "The cost of each look at
the test split"): a look at one judge's test agreement spends that judge's count only, and an
adoption of one judge's version restarts that judge's count only. On the sample with two
offline judges (the sample's baseline and a twin of it under its own name), through real
LiteLLM."""

from __future__ import annotations

from typing import Any

from dashboard.cli import main
from dashboard.judging.panel import Judge, Panel
from dashboard.store import Store
from dashboard.workbench import lab, run, split, versions

RUBRIC, DATASET, JUDGE, TWIN = "likert-rag", "eo-rag", "baseline", "twin"


def _with_twin(store: Store) -> None:
    """A second judge with ratings of the labelled answers at the rubric file's version."""
    root = versions.list_versions(store, RUBRIC)[0].rubric
    twin = Panel("twins", (Judge(TWIN, "judgeboard/baseline"),))
    run.run_version(store, run.plan_version(store, judges=twin, rubric=root, dataset=DATASET))


def _looks(store: Store) -> dict[str, int]:
    state = lab.state(store, rubric=RUBRIC, dataset=DATASET)
    return {judge: state.looks_of(judge) for judge in (JUDGE, TWIN)}


def test_looks_are_counted_and_restarted_per_judge(sample_store: Store, capsys: Any) -> None:
    _with_twin(sample_store)
    assert set(lab.state(sample_store, rubric=RUBRIC, dataset=DATASET).judges) >= {JUDGE, TWIN}
    assert _looks(sample_store) == {JUDGE: 0, TWIN: 0}

    lab.score_on(sample_store, rubric=RUBRIC, dataset=DATASET, judge=JUDGE, side=split.TEST)
    assert _looks(sample_store) == {JUDGE: 1, TWIN: 0}  # one version scored: the baseline's
    lab.compare(sample_store, rubric=RUBRIC, dataset=DATASET, judge=TWIN, candidate="1")
    lab.compare(sample_store, rubric=RUBRIC, dataset=DATASET, judge=TWIN, candidate="1")
    assert _looks(sample_store) == {JUDGE: 1, TWIN: 2}
    # Dev costs nothing, whoever's.
    lab.score_on(sample_store, rubric=RUBRIC, dataset=DATASET, judge=TWIN, side=split.DEV)
    assert _looks(sample_store) == {JUDGE: 1, TWIN: 2}

    # The baseline's adoption (itself a look, before it) restarts the baseline's count only.
    lab.adopt(
        sample_store,
        rubric=RUBRIC,
        dataset=DATASET,
        judge=JUDGE,
        version="1",
        by="ana",
        reason="as it is",
    )
    assert _looks(sample_store) == {JUDGE: 0, TWIN: 2}
    lab.score_on(sample_store, rubric=RUBRIC, dataset=DATASET, judge=TWIN, side=split.TEST)
    assert _looks(sample_store) == {JUDGE: 0, TWIN: 3}
    lab.adopt(
        sample_store, rubric=RUBRIC, dataset=DATASET, judge=TWIN, version="1", by="ana", reason="x"
    )
    assert _looks(sample_store) == {JUDGE: 0, TWIN: 0}
    lab.compare(sample_store, rubric=RUBRIC, dataset=DATASET, judge=JUDGE, candidate="1")
    assert _looks(sample_store) == {JUDGE: 1, TWIN: 0}

    # Every look stays recorded: all of them, and each judge's own, ever.
    everyone = split.looks_since(sample_store, rubric=RUBRIC, dataset=DATASET, since=None)
    assert everyone == 1 + 2 + 1 + 1 + 1 + 1  # scores, compares, adopt, score, adopt, compare
    twin_ever = split.looks_since(
        sample_store, rubric=RUBRIC, dataset=DATASET, since=None, judge=TWIN
    )
    assert twin_ever == 2 + 1 + 1  # two compares, one scoring, its adoption

    # `align show` prints each judge's own count.
    command = ["--db", sample_store.url, "align", "show", "--rubric", RUBRIC]
    assert main([*command, "--dataset", DATASET]) == 0
    out = capsys.readouterr().out
    assert f"test split looks since the last adoption of {JUDGE}: 1\n" in out
    assert f"test split looks since the last adoption of {TWIN}: 0\n" in out
