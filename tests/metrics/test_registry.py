"""The metric declarations: the docs' names table is theirs, every computed name fits one,
and win rates are named from them (the gates: output/test_gates.py)."""

from __future__ import annotations

import re

import pytest

from dashboard.metrics import registry
from dashboard.metrics.output import metrics_json
from dashboard.metrics.selection import Selection
from tests.paths import REPO_ROOT

DOCS = REPO_ROOT / "docs" / "metrics.md"


def test_the_docs_names_table_is_the_registry() -> None:
    text = DOCS.read_text(encoding="utf-8")
    found = re.search(r"<!-- metric-names:[^>]*-->\n(.*?)<!-- /metric-names -->", text, re.S)
    assert found, "docs/metrics.md has no generated names table"
    assert found.group(1) == registry.docs_table(), (
        "docs/metrics.md is out of date: paste `python -m dashboard.metrics` there"
    )


def test_names_are_unique_and_every_direction_is_known() -> None:
    names = [m.name for m in registry.ALL_METRICS]
    assert len(names) == len(set(names))
    assert {m.better for m in registry.ALL_METRICS} <= {registry.HIGHER, registry.LOWER, None}
    assert {m.style for m in registry.ALL_METRICS} <= {"score", "count", "elo", "signed"}


def test_every_computed_name_fits_its_declaration(sample_store) -> None:
    _, _, data = metrics_json.compute(sample_store, Selection())
    for name in data["metrics"]:
        metric = registry.declared(name)
        assert metric is not None, name
        assert metric.key.startswith("<") or name.endswith(f".{metric.key}"), name


def test_the_most_specific_declaration_wins_over_dotted_names() -> None:
    # A judge may be called "people": calibration.people.<a>.<b>.exact is still two people.
    assert registry.declared("calibration.people.ana.ben.exact").name.startswith(
        "calibration.people."
    )
    assert registry.declared("calibration.j.1.exact").name == "calibration.<judge>.exact"
    assert registry.declared("systems.a.b.judge.x.em").name == "systems.<system>.judge.<judge>"
    assert registry.declared("systems.a.nonsense") is None


def test_the_reference_metrics_are_the_declared_ones() -> None:
    stored = [r.stored for r in registry.REFERENCE_METRICS]
    assert stored == ["em", "f1", "mcqa_accuracy", "mcqa_iou", "halluc_pred"]
    assert registry.stored_names(aggregate="mean") == ("em", "f1", "mcqa_accuracy", "mcqa_iou")


def test_a_new_reference_metric_needs_only_its_declaration(store, monkeypatch, tmp_path) -> None:
    # What "adding a metric touches three files" rests on: given a scoring function, one
    # declaration makes the metric scored at import, aggregated with its interval, named in
    # the JSON, a column of the Overview and of the report.
    from dashboard.ingest import import_path
    from dashboard.metrics import tables
    from dashboard.report.sections import summary_columns

    words = registry.Metric(
        "systems.<system>.answer_words",
        "answer words",
        "words in the answer",
        better=None,
        reference=registry.ReferenceMetric(
            "answer_words", registry.QA_TASKS, lambda case: float(len(case.answer.split()))
        ),
    )
    monkeypatch.setattr(registry, "SYSTEM_METRICS", (*registry.SYSTEM_METRICS, words))
    monkeypatch.setattr(
        registry, "REFERENCE_METRICS", (*registry.REFERENCE_METRICS, words.reference)
    )
    path = tmp_path / "answers.jsonl"
    path.write_text(
        '{"question": "q1", "answer": "one two three", "gt_answer": "x"}\n'
        '{"question": "q2", "answer": "one", "gt_answer": "y"}\n',
        encoding="utf-8",
    )
    import_path(store, path, dataset="d", system="s")
    view, cal, data = metrics_json.compute(store, Selection("d"))
    assert data["metrics"]["systems.s.answer_words"]["value"] == 2.0
    assert data["metrics"]["systems.s.answer_words"]["n"] == 2
    assert tables.overview_rows(view)[0]["answer words"].startswith("2.00 [")

    class Data:  # what summary_columns reads of the report's data
        overview = view
        metrics = data

    assert ("Answer words", "answer_words", "score") in summary_columns(Data)  # type: ignore[arg-type]


def test_standings_names_come_from_their_declarations() -> None:
    s, h2h = registry.SYSTEM_METRICS, registry.HEAD_TO_HEAD_METRICS
    assert registry.rater_name(s, "win_rate", "judges", system="a") == "systems.a.win_rate.judges"
    assert registry.rater_name(s, "bradley_terry", "pooled", system="a") == (
        "systems.a.bradley_terry"
    )
    assert registry.rater_name(h2h, "win_rate", "judge.gpt-4", system="a", opponent="b") == (
        "pairwise.a.b.win_rate.judge.gpt-4"
    )
    assert registry.declared_name(
        registry.CORRECTED_METRICS, "win_rate.corrected", system="a", opponent="b"
    ) == ("pairwise.a.b.win_rate.corrected")
    with pytest.raises(ValueError):  # a statistic nobody declared has no name
        registry.rater_name(s, "elo", "people", system="a")
