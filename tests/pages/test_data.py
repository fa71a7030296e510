"""The Data page: list, upload (through the CLI's importer) and delete datasets.

The upload functions (`dashboard.ingest.uploads`) are tested directly, and the page through
AppTest, which attaches a file to its uploader: the preview, a picker per field, a value
mapping and a constant, an error in the page's own words, and deleting with a confirmation.
"""

from __future__ import annotations

import html
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.cli import main as cli_main
from dashboard.ingest import uploads
from dashboard.ingest.mapping import parse_mapping
from dashboard.store import Store
from tests.ingest.conftest import query
from tests.pages.helpers import page_path

PAGE = page_path("data")
GOOD = {"question": "q1", "answer": "a1", "gt_answer": "r1", "contexts": ["c"]}


def _jsonl(records: list[dict]) -> io.BytesIO:
    return io.BytesIO("".join(json.dumps(r) + "\n" for r in records).encode())


def _state(store: Store) -> tuple:
    return store.fingerprint(), store.list_datasets()


def _names(store: Store) -> list[str]:
    return [d.name for d in store.list_datasets()]


def test_a_good_upload_adds_a_dataset_and_the_page_lists_it(
    app: AppTest, sample_store: Store
) -> None:
    report = uploads.import_upload(
        sample_store, "my-rag.jsonl", _jsonl([GOOD, GOOD | {"question": "q2"}]), system="mine"
    ).report
    assert report.datasets == ("my-rag",)  # the file's name, as with `judgeboard import`
    assert report.added["items"] == 2 and report.added["responses"] == 2
    assert report.lines(names_only=True) == [
        "my-rag.jsonl: 2 records as rag into my-rag: added 2 items, 2 responses",
        "scored 2 responses against their references",
    ]
    app.switch_page(PAGE)
    app.run()
    assert not app.exception
    listed = app.dataframe[0].value.set_index("dataset")
    assert listed.loc["my-rag", "responses"] == 2 and listed.loc["my-rag", "systems"] == "mine"
    assert "my-rag" in app.selectbox(key="jb_dataset").options


def test_csv_and_parquet_uploads_keep_their_extension(store: Store) -> None:
    csv = io.BytesIO(b"question,answer,gt_answer\nq1,a1,r1\n")
    added = uploads.import_upload(store, "table.csv", csv, system="s").report.added
    assert added["responses"] == 1
    sink = io.BytesIO()
    pq.write_table(pa.table({"question": ["q1"], "answer": ["a2"]}), sink)
    sink.seek(0)
    report = uploads.import_upload(store, "cols.parquet", sink, dataset="pq", system="s").report
    assert report.datasets == ("pq",) and report.added["responses"] == 1
    assert _names(store) == ["pq", "table"]


def test_a_mapping_and_a_format_are_passed_on(store: Store) -> None:
    data = _jsonl([{"prompt": "q", "output": "a"}])
    report = uploads.import_upload(
        store,
        "mapped.jsonl",
        data,
        system="s",
        fmt="rag",
        mapping=parse_mapping(["question=prompt", "answer = output"]),
    ).report
    assert report.added["responses"] == 1 and report.formats == ("rag",)


def test_a_bad_upload_says_what_the_cli_says_and_writes_nothing(
    sample_store: Store, tmp_path: Path, monkeypatch, capsys
) -> None:
    records = [GOOD, {"question": "q2", "answer": None}]
    before = _state(sample_store)
    with pytest.raises(uploads.UploadError) as caught:
        uploads.import_upload(sample_store, "miss.jsonl", _jsonl(records), system="s")
    message = str(caught.value)
    assert message == (
        "miss.jsonl: line 2 (record 2): field 'answer': is missing (nothing was imported)"
    )
    assert _state(sample_store) == before
    # The command line, run beside the same file, prints the same text.
    (tmp_path / "miss.jsonl").write_bytes(_jsonl(records).getvalue())
    monkeypatch.chdir(tmp_path)
    status = cli_main(
        ["--db", str(tmp_path / "cli.duckdb"), "import", "miss.jsonl", "--system", "s"]
    )
    assert status != 0
    assert capsys.readouterr().err.strip() == f"judgeboard import: error: {message}"


def test_an_unknown_extension_is_refused(store: Store) -> None:
    with pytest.raises(uploads.UploadError, match="notes.txt: not a file judgeboard reads"):
        uploads.import_upload(store, "notes.txt", io.BytesIO(b"hello"))
    assert _names(store) == []


def test_a_browser_path_in_the_name_is_ignored(store: Store) -> None:
    report = uploads.import_upload(store, "../../up/evil.jsonl", _jsonl([GOOD]), system="s").report
    assert report.datasets == ("evil",)


def test_delete_needs_the_name_typed_then_removes_the_dataset(
    app: AppTest, sample_store: Store
) -> None:
    app.switch_page(PAGE)
    app.run()
    assert "eo-mcqa" in _names(sample_store)
    app.selectbox(key="jb_delete_pick").set_value("eo-mcqa").run()
    assert any("cannot be undone" in w.value for w in app.warning)
    assert app.button(key="jb_delete_button").disabled
    app.text_input(key="jb_delete_confirm").input("eo-mcq").run()
    assert app.button(key="jb_delete_button").disabled
    app.text_input(key="jb_delete_confirm").input("eo-mcqa").run()
    app.button(key="jb_delete_button").click().run()
    assert not app.exception
    assert "eo-mcqa" not in _names(sample_store)
    assert any(i.value == "Deleted eo-mcqa." for i in app.info)
    assert "eo-mcqa" not in list(app.dataframe[0].value["dataset"])
    assert "eo-mcqa" not in app.selectbox(key="jb_dataset").options


def test_the_page_renders_on_an_empty_database(app_for, store: Store) -> None:
    app = app_for(store)
    app.switch_page(PAGE)
    app.run()
    assert not app.exception
    assert any("database is empty" in i.value for i in app.info)


def test_the_cli_refuses_to_delete_an_unknown_dataset(sample_store: Store, capsys) -> None:
    before = _state(sample_store)
    status = cli_main(["--db", sample_store.url, "datasets", "--delete", "eo-mcq"])
    captured = capsys.readouterr()
    assert status != 0 and captured.out == ""
    assert captured.err.strip() == (
        "judgeboard datasets: error: no dataset named 'eo-mcq' (datasets: eo-conversational, "
        "eo-hallucination, eo-mcqa, eo-rag); nothing was deleted"
    )
    assert _state(sample_store) == before
    assert cli_main(["--db", sample_store.url, "datasets", "--delete", "eo-mcqa"]) == 0
    assert capsys.readouterr().out.strip() == "deleted dataset 'eo-mcqa'"
    assert "eo-mcqa" not in _names(sample_store)


LABELS = b"prompt,left,right,label\nq1,a1,b1,A>B\nq2,a2,b2,B>A\nq3,a3,b3,A=B\n"
PICKS = {"question": "prompt", "answer_a": "left", "answer_b": "right", "winner": "label"}


def _upload(app: AppTest, name: str, data: bytes) -> AppTest:
    app.switch_page(PAGE)
    app.run()
    app.file_uploader[0].set_value((name, data, "text/csv")).run()
    assert not app.exception, app.exception
    return app


def _pick(app: AppTest, field: str, value: str, *, fmt: str = "pairwise") -> None:
    app.selectbox(key=f"jb_pick_{fmt}_{field}").set_value(value).run()


def _value_box(app: AppTest, label: str):
    return next(s for s in app.selectbox if html.unescape(s.label).replace("\\", "") == label)


def _fill_labels(app: AppTest) -> AppTest:
    """Choose pairwise, pick the columns, set both systems as constants."""
    app.selectbox(key="jb_upload_format").set_value("pairwise").run()
    for field, column in PICKS.items():
        _pick(app, field, column)
    for side, name in (("system_a", "gpt-4o"), ("system_b", "claude")):
        _pick(app, side, "— a constant —")
        app.text_input(key=f"jb_pick_pairwise_{side}_constant").input(name).run()
    return app


def test_an_upload_shows_its_first_rows_and_a_picker_per_field(app_for, store: Store) -> None:
    app = _upload(app_for(store), "labels.csv", LABELS)
    preview = app.dataframe[-1].value
    assert list(preview.columns) == ["prompt", "left", "right", "label"]
    assert list(preview["label"]) == ["A>B", "B>A", "A=B"]
    # No format in the columns: the page asks for one, then offers a picker per field.
    assert any("Choose the file's format" in i.value for i in app.info)
    app.selectbox(key="jb_upload_format").set_value("pairwise").run()
    question = app.selectbox(key="jb_pick_pairwise_question")
    assert question.label == "question (required)"
    assert question.options == ["— nothing —", "— a constant —", "prompt", "left", "right", "label"]
    assert question.value == "— nothing —"
    assert app.selectbox(key="jb_pick_pairwise_shown_first").value == "— nothing —"


def test_a_value_mapping_and_constants_import(app_for, store: Store) -> None:
    app = _fill_labels(_upload(app_for(store), "labels.csv", LABELS))
    # The label's values: none is a verdict, so each waits for its mapping.
    for raw, verdict in (("A>B", "A"), ("B>A", "B"), ("A=B", "tie")):
        box = _value_box(app, f"label = {raw}")
        assert box.value == "— not mapped —" and box.options[1:4] == ["A", "B", "tie"]
        box.set_value(verdict).run()
    code = app.code[-1].value
    assert "--map 'winner=label{A=B:tie,A>B:A,B>A:B}'" in code  # values by name
    assert "--map 'system_a=\"gpt-4o\"'" in code
    app.button(key="jb_upload_import").click().run()
    assert not app.exception, app.exception
    assert any(s.value == "Imported." for s in app.success)
    rows = query(
        store,
        """SELECT i.question, p.verdict, a.system, b.system FROM preferences p
        JOIN items i USING (item_id) JOIN responses a ON a.response_id = p.response_a
        JOIN responses b ON b.response_id = p.response_b ORDER BY 1""",
    )
    assert rows == [
        ("q1", "A", "gpt-4o", "claude"),
        ("q2", "B", "gpt-4o", "claude"),
        ("q3", "tie", "gpt-4o", "claude"),
    ]
    assert _names(store) == ["labels"]


def test_errors_speak_of_the_page_controls(app_for, store: Store) -> None:
    app = _fill_labels(_upload(app_for(store), "labels.csv", LABELS))
    _value_box(app, "label = A>B").set_value("A").run()
    _value_box(app, "label = B>A").set_value("B").run()  # A=B left unmapped
    app.button(key="jb_upload_import").click().run()
    assert any("nothing was written" in e.value for e in app.error)
    message = app.code[-1].value
    assert message == (
        "labels.csv: row 3: field 'label': the value 'A=B' has no mapping (mapped: 'A>B', "
        "'B>A'); map the value 'A=B' of column label (nothing was imported)"
    )
    _pick(app, "question", "— nothing —")
    app.button(key="jb_upload_import").click().run()
    message = app.code[-1].value
    assert message.endswith("; pick a column for question (nothing was imported)")
    assert "--" not in message.replace("—", "")
    assert _names(store) == []


def test_skipping_bad_records_offers_them(app_for, store: Store) -> None:
    data = b"question,answer\nq1,a1\nq2,\nq3,a3\n"
    app = _upload(app_for(store), "answers.csv", data)
    app.checkbox(key="jb_upload_skip").check().run()
    app.button(key="jb_upload_import").click().run()
    assert not app.exception, app.exception
    assert any("1 bad records left out" in t.value for t in app.text)
    assert app.get("download_button")
    assert query(store, "SELECT count(*) FROM responses") == [(2,)]


def test_fixed_value_fields_offer_what_the_importer_reads() -> None:
    fields = {f.name: f for f in uploads.target_fields("preferences")}
    assert [f.required for f in uploads.target_fields("preferences")][:1] == [True]
    assert fields["verdict"].values == ("A", "B", "tie")
    assert fields["shown_first"].values == ("A", "B")
    assert fields["blind"].values == ("true", "false")
    assert fields["selection"].values == ("random", "census", "targeted", "unknown")
    assert fields["rater"].values == ()  # free text: a column or a constant, no value list
    assert uploads.default_target(fields["verdict"], " TIE ") == "tie"
    assert uploads.default_target(fields["verdict"], "A>B") is None
    assert uploads.default_target(fields["blind"], "Yes") == "true"
    assert uploads.default_target(fields["blind"], "faithful") is None  # a label's word only
    assert uploads.default_target(fields["selection"], "Random") == "random"
    label = next(f for f in uploads.target_fields("hallucination") if f.name == "label")
    assert uploads.default_target(label, "faithful") == "false"
    assert uploads.target_fields("llmbar") == ()  # a published set: imported as published


def test_an_upload_imported_again_with_other_picks_can_replace_the_first(
    app_for, store: Store
) -> None:
    """The same file with a corrected pick is refused (it would double the dataset), and
    "Replace an earlier import of this file" replaces the first import (issue 28)."""
    data = b"prompt,reference,out\nq1,r1,a1\nq2,r2,a2\n"
    app = _upload(app_for(store), "answers.csv", data)
    app.selectbox(key="jb_upload_format").set_value("rag").run()
    _pick(app, "question", "reference", fmt="rag")
    _pick(app, "answer", "out", fmt="rag")
    app.button(key="jb_upload_import").click().run()
    assert any(s.value == "Imported." for s in app.success)
    app = _upload(app_for(store), "answers.csv", data)
    app.selectbox(key="jb_upload_format").set_value("rag").run()
    _pick(app, "question", "prompt", fmt="rag")
    _pick(app, "answer", "out", fmt="rag")
    app.button(key="jb_upload_import").click().run()
    assert any("nothing was written" in e.value for e in app.error)
    assert "tick 'Replace an earlier import of this file'" in app.code[-1].value
    app.checkbox(key="jb_upload_replace").check().run()
    app.button(key="jb_upload_import").click().run()
    assert not app.exception, app.exception
    assert query(store, "SELECT question FROM items ORDER BY 1") == [("q1",), ("q2",)]
