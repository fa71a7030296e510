"""The Data page takes an eval tool's file as `judgeboard import` takes it: an Inspect log
(`.eval` or `.json`), promptfoo results and lm-eval samples are known by the CLI's detection,
previewed from their reader's records with their counts, and imported to the same rows as the
CLI's import; a file a reader refuses is named with the record and field. And the round trip:
an Inspect log uploaded, a label made on the Annotate page, `judgeboard export --to inspect`,
and Inspect's reader finds the label as a score edit by its author.

AppTest attaches each file to the uploader as the existing upload tests do
(`file_uploader[0].set_value`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.cli import main as cli_main
from dashboard.ingest import import_path
from dashboard.store import Store
from tests.ingest.conftest import query
from tests.ingest.inspect_logs import make_inspect_log
from tests.pages.helpers import open_page, page_path, texts
from tests.paths import TEST_DATA

PAGE = page_path("data")
PROMPTFOO = TEST_DATA / "promptfoo" / "results.json"
LM_EVAL_MODEL = TEST_DATA / "lm_eval" / "EleutherAI__pythia-160m"
LM_EVAL = next(LM_EVAL_MODEL.glob("samples_gsm8k_*.jsonl"))
# What a store holds after an import, to compare the page's with the CLI's.
HELD = """SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM responses),
    (SELECT count(*) FROM ratings), (SELECT list(DISTINCT system ORDER BY system) FROM responses)"""


def _upload(app: AppTest, name: str, data: bytes) -> AppTest:
    app.switch_page(PAGE)
    app.run()
    app.file_uploader[0].set_value((name, data, "application/octet-stream")).run()
    assert not app.exception, app.exception
    return app


def _counts_caption(app: AppTest) -> str:
    """The preview's caption, as shown (the page escapes it as Markdown)."""
    (found,) = [c.value for c in app.caption if "read by its reader" in c.value]
    return found.replace("\\", "")


def _import(app: AppTest) -> list[str]:
    app.button(key="jb_upload_import").click().run()
    assert not app.exception, app.exception
    return texts(app, "text")


def _cli_store(tmp_path: Path, path: Path, **options: str) -> Store:
    """The same file imported by the CLI's importer into a store of its own."""
    other = Store(tmp_path / "cli.duckdb")
    import_path(other, path, **options)
    return other


def test_an_inspect_log_is_detected_previewed_with_its_counts_and_imported(
    app_for, store: Store, tmp_path: Path
) -> None:
    log = make_inspect_log(tmp_path / "logs")
    app = _upload(app_for(store), log.name, log.read_bytes())
    # 3 samples x 2 epochs, one `match` score each.
    assert _counts_caption(app) == (
        f"{log.name}: an Inspect log, read by its reader; a dry run of the import: 6 records, "
        "3 items, 6 responses, 6 ratings; its first 6 records"
    )
    assert app.text_input(key="jb_upload_tool").value == "an Inspect log"
    assert not [s for s in app.selectbox if s.key == "jb_upload_format"]  # nothing to choose
    assert set(app.dataframe[-1].value["question"]) == {"2+2?", "Capital of France?", "Sky colour?"}
    lines = _import(app)
    assert any(s.value == "Imported." for s in app.success)
    assert any("added 3 items, 6 responses, 6 ratings" in line for line in lines)
    held = query(store, HELD)
    assert held == query(_cli_store(tmp_path, log), HELD)
    assert held[0][3] == ["mockllm/model"]
    # The mean of the scores is Inspect's own accuracy (q1 right twice, q2 once: 3 of 6).
    assert query(store, "SELECT avg(value) FROM ratings") == [(0.5,)]


def test_an_inspect_log_as_json_is_detected_too(app_for, store: Store, tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log, write_eval_log

    log = make_inspect_log(tmp_path / "logs")
    as_json = tmp_path / "run.json"
    write_eval_log(read_eval_log(str(log)), str(as_json))
    app = _upload(app_for(store), "run.json", as_json.read_bytes())
    assert _counts_caption(app).startswith(
        "run.json: an Inspect log, read by its reader; a dry run of the import: 6 records"
    )
    lines = _import(app)
    line = "run.json: 6 records as ratings into run: added 3 items, 6 responses, 6 ratings"
    assert line in lines[0]


def test_promptfoo_results_import_as_the_cli_imports_them(
    app_for, store: Store, tmp_path: Path
) -> None:
    app = _upload(app_for(store), PROMPTFOO.name, PROMPTFOO.read_bytes())
    caption = _counts_caption(app)
    assert caption.startswith("results.json: a promptfoo results file, read by its reader; ")
    # results.json names no data: the Dataset box is needed, as on the CLI (--dataset).
    app.text_input(key=next(t.key for t in app.text_input if t.label == "Dataset")).input("pf")
    lines = _import(app)
    assert any(s.value == "Imported." for s in app.success), lines
    held = query(store, HELD)
    assert held == query(_cli_store(tmp_path, PROMPTFOO, dataset="pf"), HELD)
    items, responses, ratings, _ = held[0]
    assert f"{items} items, {responses} responses, {ratings} ratings" in caption


def test_lm_eval_samples_take_their_model_from_the_system_box(
    app_for, store: Store, tmp_path: Path
) -> None:
    app = _upload(app_for(store), LM_EVAL.name, LM_EVAL.read_bytes())
    caption = _counts_caption(app)
    assert "an lm-evaluation-harness samples file, read by its reader" in caption
    assert "system" not in app.dataframe[-1].value.columns  # the upload's folder is no model
    # lm-eval names the model's folder, which an upload loses: without it, nothing is written.
    _import(app)
    assert any("nothing was written" in e.value for e in app.error)
    assert "type the model in System" in app.code[-1].value
    assert LM_EVAL.name in app.code[-1].value and "/" not in app.code[-1].value
    assert query(store, "SELECT count(*) FROM responses") == [(0,)]
    app.text_input(key="jb_upload_system").input("EleutherAI/pythia-160m")
    _import(app)
    assert any(s.value == "Imported." for s in app.success)
    held = query(store, HELD)
    # The same rows as the CLI's import of the file in lm-eval's own folder.
    assert held == query(_cli_store(tmp_path, LM_EVAL), HELD)
    items, responses, ratings, systems = held[0]
    assert systems == [
        "EleutherAI__pythia-160m [flexible-extract]",
        "EleutherAI__pythia-160m [strict-match]",
    ]
    assert f"{items} items, {responses} responses, {ratings} ratings" in caption


def _refused(app: AppTest, name: str) -> str:
    """The page's error (escaped as Markdown on the page), with no import offered."""
    (error,) = [e.value.replace("\\", "") for e in app.error]
    assert name in error
    assert not [b for b in app.button if b.key == "jb_upload_import"]
    return error


def test_a_file_its_reader_refuses_is_named_with_its_record_and_field(
    app_for, store: Store
) -> None:
    app = _upload(app_for(store), "broken.eval", b"not a zip")
    assert "broken.eval: not a readable Inspect log" in _refused(app, "broken.eval")
    # lm-eval samples whose second record lacks its metrics.
    lines = LM_EVAL.read_text(encoding="utf-8").splitlines()
    second = json.loads(lines[1])
    del second["metrics"]
    bad = "\n".join([lines[0], json.dumps(second), *lines[2:]]).encode()
    app = _upload(app_for(store), LM_EVAL.name, bad)
    assert _refused(app, LM_EVAL.name) == (
        f"{LM_EVAL.name}: line 2 (record 2): field 'metrics': is missing, which every lm-eval "
        "sample has"
    )
    # promptfoo results whose first result's first assertion scored out of 0-1.
    data = json.loads(PROMPTFOO.read_text(encoding="utf-8"))
    data["results"]["results"][0]["gradingResult"]["componentResults"][0]["score"] = 7
    app = _upload(app_for(store), "results.json", json.dumps(data).encode())
    assert _refused(app, "results.json") == (
        "results.json: record 1 (index 0): field 'gradingResult.componentResults[0].score': "
        "expected a score between 0 and 1, got 7"
    )
    assert store.list_datasets() == []


MATCH_RUBRIC = """name = "match"
version = "1"
kind = "rating"
scale = [0, 1]
task_types = ["open_qa"]
description = "Inspect's match scorer, labelled by people: 1 = correct, 0 = incorrect."
template = "{{question}} {{answer}}"
"""


def test_an_inspect_label_made_on_the_annotate_page_goes_back_into_the_log(
    app_for, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    from inspect_ai.log import read_eval_log
    from inspect_ai.scorer import value_to_float

    log = make_inspect_log(tmp_path / "logs")
    app = _upload(app_for(store), log.name, log.read_bytes())
    _import(app)
    assert any(s.value == "Imported." for s in app.success)
    # The log's scorer is `match`: a rubric of that name is what people label it on.
    rubrics = tmp_path / "rubrics"
    rubrics.mkdir()
    (rubrics / "match.toml").write_text(MATCH_RUBRIC, encoding="utf-8")
    monkeypatch.setenv("JUDGEBOARD_RUBRICS", str(rubrics))
    app = open_page(app_for(store), page_path("annotate"), dataset=log.stem, annotator="ana")
    app.selectbox(key="annotate_rubric").set_value("match").run()
    (value,) = [w for w in app.radio if (w.key or "").startswith("annotate_value_")]
    value.set_value(1.0)
    (comment,) = [w for w in app.text_input if (w.key or "").startswith("annotate_comment_")]
    comment.set_value("right, as I read it")
    (save,) = [w for w in app.button if (w.key or "").startswith("annotate_save_")]
    save.click().run()
    assert not app.exception, app.exception
    assert texts(app, "success") == ["Saved your rating (1) as `ana`."]
    ((uuid,),) = query(
        store,
        "SELECT json_extract_string(r.metadata, '$.inspect_uuid') FROM ratings h "
        "JOIN responses r USING (response_id) WHERE h.rater = 'ana'",
    )

    assert cli_main(["--db", store.url, "export", "--to", "inspect", str(log)]) == 0
    assert "1 score edits written" in capsys.readouterr().out
    edited = read_eval_log(str(log))
    (sample,) = [s for s in edited.samples or [] if s.uuid == uuid]
    score = sample.scores["match"]
    assert score.value == 1.0
    scorer_value = score.history[0].value  # the scorer's own C or I, kept
    assert scorer_value in ("C", "I")
    provenance = score.history[-1].provenance
    assert provenance is not None and provenance.author == "ana"
    assert provenance.reason == "right, as I read it"
    others = [s for s in edited.samples or [] if s.uuid != uuid]
    assert len(others) == 5 and all(not s.scores["match"].history for s in others)
    # Inspect recomputes its accuracy: 3 of 6 right, less the scorer's value, plus the label.
    accuracy = edited.results.scores[0].metrics["accuracy"].value
    assert accuracy == pytest.approx((3 - value_to_float()(scorer_value) + 1) / 6)
