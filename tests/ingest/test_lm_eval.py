"""lm-evaluation-harness samples files (tests/data/lm_eval/README.md) imported without
--format: their counts, the responses read from generations and from log-likelihoods, and each
metric's mean equal to the one in the run's own results file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dashboard.cli import main
from dashboard.ingest import IngestError, import_path
from dashboard.store import Store
from tests.ingest.conftest import query
from tests.paths import TEST_DATA

RUN = TEST_DATA / "lm_eval" / "EleutherAI__pythia-160m"
MODEL = "EleutherAI__pythia-160m"
GSM8K = RUN / "samples_gsm8k_2026-12-06T12-00-00.000000.jsonl"


def test_a_run_folder_imports_without_format(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--db", store.url, "import", str(RUN)]) == 0
    out = capsys.readouterr().out
    # gsm8k: 3 documents x 2 filters, one exact_match each; arc_easy: 3 documents, acc and
    # acc_norm on the one response each. The run's results file is a summary, skipped.
    assert "6 records as ratings into gsm8k: added 3 items, 6 responses, 6 ratings" in out
    assert "6 records as ratings into arc_easy: added 3 items, 3 responses, 6 ratings" in out
    assert "results_2026-12-06T12-00-00.000000.json: skipped" in out


def test_metric_means_match_lm_evals_results(store: Store) -> None:
    import_path(store, RUN)
    (summary,) = RUN.glob("results_*.json")
    results = json.loads(summary.read_text(encoding="utf-8"))["results"]
    means = query(
        store,
        "SELECT r.dataset, r.system, c.rubric, avg(c.value) FROM current_ratings c "
        "JOIN responses r USING (response_id) WHERE c.rater = 'lm-eval' GROUP BY ALL",
    )
    found = {}
    for dataset, system, rubric, mean in means:
        name = system.removeprefix(MODEL).strip(" []") or "none"
        found[(dataset, f"{rubric},{name}")] = mean
    expected = {
        (task, key): value
        for task, metrics in results.items()
        for key, value in metrics.items()
        if key != "alias" and "_stderr" not in key
    }
    assert found == pytest.approx(expected)
    assert len(found) == 4
    named = import_path(store, GSM8K, dataset="math")  # --dataset names it instead of the task
    assert named.files[0].datasets == ("math",)


def test_responses_are_what_the_model_chose(store: Store) -> None:
    import_path(store, RUN)
    # Log-likelihood requests: the most likely choice's continuation; its target the gold's.
    assert query(
        store,
        "SELECT i.reference_answers, r.answer FROM responses r JOIN items i USING (item_id) "
        "WHERE r.dataset = 'arc_easy' ORDER BY json_extract(i.metadata, '$.lm_eval_doc_id')",
    ) == [(["the Sun"], "the Sun"), (["a balance"], "a thermometer"), (["sunlight"], "sand")]
    # A generation: the filtered text of each filter, each filter a system of its own.
    assert query(
        store,
        "SELECT r.system, r.answer FROM responses r JOIN items i USING (item_id) "
        "WHERE json_extract(i.metadata, '$.lm_eval_doc_id') = 1 AND r.dataset = 'gsm8k' "
        "ORDER BY 1",
    ) == [(f"{MODEL} [flexible-extract]", "$10."), (f"{MODEL} [strict-match]", "[invalid]")]


def test_bad_samples_files_are_named(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    bad = folder / GSM8K.name
    lines = GSM8K.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[1])
    del record["arguments"]
    bad.write_text("\n".join([lines[0], json.dumps(record), *lines[2:]]) + "\n", encoding="utf-8")
    with pytest.raises(IngestError) as error:
        import_path(store, bad)
    assert str(error.value).startswith(f"{bad}: line 2 (record 2): field 'arguments'")
    bad.write_text(lines[0] + "\n{not json\n", encoding="utf-8")
    with pytest.raises(IngestError, match="line 2 .*malformed JSON"):
        import_path(store, bad)
    # Not named as lm-eval names its samples: an ordinary JSONL file, of no format.
    other = folder / "my_samples.jsonl"
    shutil.copy(GSM8K, other)
    with pytest.raises(IngestError, match="cannot tell its format"):
        import_path(store, other)
    assert query(store, "SELECT count(*) FROM items") == [(0,)]


REAL_RUN = TEST_DATA / "lm_eval" / "run_by_lm_eval" / "judgeboard__dummy"


def test_a_run_lm_eval_itself_wrote_imports_with_its_own_means(store: Store) -> None:
    """lm-eval 0.4.13's own output (tests/data/lm_eval/run_by_lm_eval/README.md: its dummy
    model on two local tasks): every metric's mean is lm-eval's, and for the choice task the
    response read (the most likely choice) is the target exactly where lm-eval's acc is 1."""
    report = import_path(store, REAL_RUN)
    lines = report.lines(names_only=True)
    assert any(
        "3 records as ratings into judgeboard_arith: added 3 items, 3 responses" in line
        for line in lines
    ), lines
    (summary,) = REAL_RUN.glob("results_*.json")
    results = json.loads(summary.read_text(encoding="utf-8"))["results"]
    means = query(
        store,
        "SELECT r.dataset, c.rubric, avg(c.value), count(*) FROM current_ratings c "
        "JOIN responses r USING (response_id) WHERE c.rater = 'lm-eval' GROUP BY ALL",
    )
    found = {(dataset, f"{rubric},none"): mean for dataset, rubric, mean, _ in means}
    expected = {
        (task, key): value
        for task, metrics in results.items()
        for key, value in metrics.items()
        if "," in key and "_stderr" not in key
    }
    # exact_match 1/3 (judgeboard_arith), acc 1/4 and acc_norm 2/4 (judgeboard_colours).
    assert found == pytest.approx(expected)
    assert expected == pytest.approx(
        {
            ("judgeboard_arith", "exact_match,none"): 1 / 3,
            ("judgeboard_colours", "acc,none"): 0.25,
            ("judgeboard_colours", "acc_norm,none"): 0.5,
        }
    )
    assert query(store, "SELECT DISTINCT system FROM responses ORDER BY 1") == [
        ("judgeboard__dummy",)
    ]
    assert query(
        store, "SELECT DISTINCT answer FROM responses WHERE dataset = 'judgeboard_arith'"
    ) == [("lol",)]
    picked = query(
        store,
        "SELECT r.answer = i.reference_answers[1], c.value FROM current_ratings c "
        "JOIN responses r USING (response_id) JOIN items i USING (item_id) "
        "WHERE r.dataset = 'judgeboard_colours' AND c.rubric = 'acc'",
    )
    assert len(picked) == 4
    assert all(right == (value == 1.0) for right, value in picked)
