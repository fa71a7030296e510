"""Each dataset's reference rule: the field's default, named in the JSON, chosen per dataset
(CLI, the function the Data page calls), and a change rescores what it changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dashboard.cli import main as cli_main
from dashboard.ingest import import_path
from dashboard.metrics import overview, reference
from dashboard.metrics.output import metrics_json
from dashboard.metrics.reference import dataset_rules as reference_rules
from dashboard.metrics.registry import Case
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from scoring import qa
from tests import builders
from tests.paths import SHARED_DATA

NQ_TEST = SHARED_DATA / "nq_open" / "NQ-open.efficientqa.test.1.1.jsonl"


def _notes(store: Store, dataset: str | None = None) -> dict:
    return metrics_json.compute(store, Selection(dataset))[2]["notes"]


def _stored(store: Store, metric: str) -> dict[str, float]:
    """Each response's stored value of a metric, by its answer and question."""
    with store.connection() as con:
        rows = con.execute(
            """SELECT i.question || chr(0) || r.answer, a.value
               FROM auto_scores a JOIN responses r USING (response_id)
               JOIN items i USING (item_id) WHERE a.metric = ? AND a.version = ?""",
            [metric, reference.VERSION],
        ).fetchall()
    return dict(rows)


def _conversation(store: Store, *, rule: str | None = None) -> None:
    """Two questions with four human answers each, answered by one system."""
    items = [
        builders.item(
            "talk", 1, task_type="conversational_qa", refs=("Paris", "Lyon", "Nice", "Lille")
        ),
        builders.item(
            "talk",
            2,
            task_type="conversational_qa",
            refs=("New York City", "York", "Boston", "Chicago"),
        ),
    ]
    store.add_items(
        items,
        [builders.response(items[0], "s", "paris"), builders.response(items[1], "s", "new york")],
    )
    if rule:
        reference_rules.set_reference_rule(store, "talk", rule)
    else:
        reference.refresh_auto_scores(store)


def test_the_sample_follows_the_field_rules(sample_store: Store) -> None:
    notes = _notes(sample_store)["reference_rules"]
    assert notes["eo-rag"]["rule"] == "max"
    assert notes["eo-rag"]["source"] == "SQuAD v1.1 and NQ-open official evaluation"
    assert notes["eo-conversational"]["rule"] == "leave-one-out"
    assert notes["eo-conversational"]["source"] == "CoQA and TopiOCQA official evaluation"
    assert {n["set_by"] for n in notes.values()} == {"default"}
    assert "eo-mcqa" not in notes  # no references to combine
    assert list(_notes(sample_store, "eo-conversational")["reference_rules"]) == [
        "eo-conversational"
    ]
    # the conversational answers were scored by leave-one-out, to the last digit
    with sample_store.connection() as con:
        rows = con.execute(
            """SELECT r.answer, i.reference_answers, a.value FROM auto_scores a
               JOIN responses r USING (response_id) JOIN items i USING (item_id)
               WHERE i.dataset = 'eo-conversational' AND a.metric = 'f1'""",
        ).fetchall()
    assert rows and any(len(refs) > 1 for _, refs, _ in rows)
    for answer, refs, value in rows:
        assert value == qa.multi_reference(answer, refs, qa.token_f1)


def test_every_em_and_f1_of_the_sample_is_the_python_score(sample_store: Store) -> None:
    # Stored at import time, many at a time (`reference_qa`); recomputed here one response at a
    # time by `scoring.qa` through the registry, under each dataset's default rule.
    with sample_store.connection() as con:
        rows = con.execute(
            """SELECT r.response_id, i.task_type, r.answer, i.reference_answers, a.metric, a.value
               FROM auto_scores a JOIN responses r USING (response_id) JOIN items i USING (item_id)
               WHERE a.metric IN ('em', 'f1') AND a.version = ?""",
            [reference.VERSION],
        ).fetchall()
    tasks = {task for _, task, *_ in rows}
    assert {"open_qa_context", "conversational_qa"} <= tasks
    assert len(rows) > 100
    for response_id, task, answer, refs, metric, value in rows:
        python = dict(reference.score_response(Case(task, answer, tuple(refs))))
        assert value == python[metric], (response_id, metric)


def test_nq_open_takes_the_max_over_its_references(store: Store) -> None:
    import_path(store, NQ_TEST, dataset="nq-open")
    notes = _notes(store, "nq-open")
    assert notes["reference_rules"]["nq-open"]["rule"] == "max"
    # Computed here from the published file: each rated prediction's best F1 over the answers.
    f1_max, f1_loo = {}, {}
    for line in NQ_TEST.open(encoding="utf-8"):
        record = json.loads(line)
        for level in ("def_correct", "poss_correct", "def_incorrect"):
            for prediction in record[f"{level}_predictions"]:
                key = record["question"] + "\0" + prediction
                f1_max[key] = max(qa.token_f1(prediction, a) for a in record["answer"])
                f1_loo[key] = qa.multi_reference(prediction, record["answer"], qa.token_f1)
                # no rated prediction matches a reference exactly: EM 0 under either rule
                assert max(qa.exact_match(prediction, a) for a in record["answer"]) == 0
    assert len(f1_max) == 5886
    assert _stored(store, "f1") == f1_max
    assert set(_stored(store, "em").values()) == {0.0}
    metrics = metrics_json.compute(store, Selection("nq-open"))[2]["metrics"]
    system = "systems.efficientqa-predictions"
    assert metrics[f"{system}.em"]["value"] == 0.0
    assert metrics[f"{system}.f1"]["value"] == pytest.approx(sum(f1_max.values()) / 5886, rel=1e-12)
    # the rule matters on this set: the leave-one-out mean is lower
    assert sum(f1_loo.values()) < sum(f1_max.values())


def test_both_rules_on_a_conversation(store: Store) -> None:
    _conversation(store)
    # by default, leave-one-out: "paris" matches 1 of 4 -> EM 0.75; "new york" has F1s
    # [0.8, 2/3, 0, 0] -> (2/3 + 3 * 0.8) / 4
    row = overview.overview(store, Selection("talk")).systems[0]
    assert row.score("em").value == pytest.approx((0.75 + 0) / 2)
    assert row.score("f1").value == pytest.approx((0.75 + (2 / 3 + 3 * 0.8) / 4) / 2)
    before = store.fingerprint()
    assert reference_rules.set_reference_rule(store, "talk", "max") == 2
    assert store.fingerprint() != before  # the pages' cached reads see the change
    row = overview.overview(store, Selection("talk")).systems[0]
    assert row.score("em").value == pytest.approx(0.5)  # max: 1 and 0
    assert row.score("f1").value == pytest.approx((1 + 0.8) / 2)
    assert _notes(store)["reference_rules"]["talk"]["set_by"] == "user"
    # choosing the rule in force changes no score; going back to the default rescores
    assert reference_rules.set_reference_rule(store, "talk", "max") == 0
    assert reference_rules.set_reference_rule(store, "talk", "default") == 2
    assert _notes(store)["reference_rules"]["talk"] == {
        "rule": "leave-one-out",
        "label": "leave-one-out mean",
        "source": "CoQA and TopiOCQA official evaluation",
        "set_by": "default",
        "by_task": {"conversational_qa": "leave-one-out"},
    }
    assert overview.overview(store, Selection("talk")).systems[0].score("em").value == 0.375


def test_a_bad_rule_or_dataset_changes_nothing(store: Store) -> None:
    _conversation(store)
    before = store.fingerprint()
    with pytest.raises(reference_rules.RuleError, match="unknown reference rule 'mean'"):
        reference_rules.set_reference_rule(store, "talk", "mean")
    with pytest.raises(reference_rules.RuleError, match="no dataset named 'tlak'"):
        reference_rules.set_reference_rule(store, "tlak", "max")
    assert store.fingerprint() == before


def test_the_datasets_command_chooses_a_rule(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    _conversation(store)
    db = ["--db", store.url]
    assert cli_main([*db, "datasets", "--reference-rule", "talk=max"]) == 0
    assert "talk: EM and F1 by max; rescored 2 responses" in capsys.readouterr().out
    assert cli_main([*db, "datasets"]) == 0
    assert "max (chosen)" in capsys.readouterr().out
    before = store.fingerprint()
    assert cli_main([*db, "datasets", "--reference-rule", "talk=mean"]) == 2
    assert cli_main([*db, "datasets", "--reference-rule", "nope=max"]) == 2
    assert cli_main([*db, "datasets", "--reference-rule", "talk"]) == 2
    err = capsys.readouterr().err
    assert "unknown reference rule 'mean'" in err and "no dataset named 'nope'" in err
    assert "takes DATASET=RULE" in err
    assert store.fingerprint() == before


def _nq_like(path: Path) -> Path:
    path.write_text(
        '{"question": "q1", "answer": "paris", "gt_answer": ["Paris", "Lyon", "Nice", "Lille"]}\n',
        encoding="utf-8",
    )
    return path


def test_import_with_a_rule(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _nq_like(tmp_path / "qa.jsonl")
    db = ["--db", store.url]
    assert cli_main([*db, "import", str(path), "--reference-rule", "leave-one-out"]) == 0
    assert "scored 1 responses against their references" in capsys.readouterr().out
    assert _notes(store)["reference_rules"]["qa"]["rule"] == "leave-one-out"
    assert _stored(store, "em") == {"q1\0paris": 0.75}
    # importing again with the other rule rescores what was stored
    assert cli_main([*db, "import", str(path), "--reference-rule", "max"]) == 0
    assert _stored(store, "em") == {"q1\0paris": 1.0}
    with pytest.raises(SystemExit) as refused:  # argparse names the two choices
        cli_main([*db, "import", str(path), "--reference-rule", "mean"])
    assert refused.value.code == 2
    assert "choose from 'max', 'leave-one-out'" in capsys.readouterr().err


def test_a_failed_import_records_no_rule(store: Store, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q1", "answer": 3}\n', encoding="utf-8")
    assert cli_main(["--db", store.url, "import", str(bad), "--reference-rule", "max"]) == 1
    assert reference_rules.reference_rules(store) == ()
    with store.connection() as con:
        assert con.execute("SELECT count(*) FROM reference_rules").fetchone() == (0,)


def test_scores_of_older_rules_are_named_and_rescored_by_score(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    _conversation(store)
    with store.connection() as con:  # a database scored by an earlier version of the rules
        con.execute("UPDATE auto_scores SET version = 'older'")
    before = store.fingerprint()
    view = overview.overview(store, Selection("talk"))
    assert view.unscored_references == 2
    assert view.systems[0].score("em") is None  # never an old rule's number
    assert _notes(store, "talk")["unscored_references"] == 2
    assert store.fingerprint() == before  # reads never write
    assert cli_main(["--db", store.url, "score", "--no-progress"]) == 0
    assert "scored 2 responses" in capsys.readouterr().out
    assert overview.overview(store, Selection("talk")).unscored_references == 0


def test_serve_scores_before_the_pages_read(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    from dashboard.cli import serve

    _conversation(store)
    with store.connection() as con:
        con.execute("DELETE FROM auto_scores")
    serve._score_references(store)
    assert "scored 2 answers against their references" in capsys.readouterr().out
    assert overview.overview(store, Selection("talk")).unscored_references == 0


def test_deleting_a_dataset_forgets_its_rule(store: Store) -> None:
    _conversation(store, rule="max")
    store.delete_dataset("talk")
    with store.connection() as con:
        assert con.execute("SELECT count(*) FROM reference_rules").fetchone() == (0,)
