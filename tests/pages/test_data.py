"""The Data page: list, upload (through the CLI's importer) and delete datasets.

Streamlit's AppTest cannot drive `st.file_uploader` (it has no way to attach a file), so the
upload is tested by calling `dashboard.uploads.import_upload`, the one function the page calls
with the uploaded file, and the page itself is checked for rendering, listing what the
import added, and deleting with a confirmation.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.cli import main as cli_main
from dashboard.ingest import uploads
from dashboard.store import Store
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
    )
    assert report.datasets == ("my-rag",)  # the file's name, as with `judgeboard import`
    assert report.added["items"] == 2 and report.added["responses"] == 2
    assert report.lines(names_only=True) == [
        "my-rag.jsonl: 2 records as rag into my-rag: added 2 items, 2 responses"
    ]
    app.switch_page(PAGE)
    app.run()
    assert not app.exception
    listed = app.dataframe[0].value.set_index("dataset")
    assert listed.loc["my-rag", "responses"] == 2 and listed.loc["my-rag", "systems"] == "mine"
    assert "my-rag" in app.selectbox(key="jb_dataset").options


def test_csv_and_parquet_uploads_keep_their_extension(store: Store) -> None:
    csv = io.BytesIO(b"question,answer,gt_answer\nq1,a1,r1\n")
    assert uploads.import_upload(store, "table.csv", csv, system="s").added["responses"] == 1
    sink = io.BytesIO()
    pq.write_table(pa.table({"question": ["q1"], "answer": ["a2"]}), sink)
    sink.seek(0)
    report = uploads.import_upload(store, "cols.parquet", sink, dataset="pq", system="s")
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
        mapping="# as --map\nquestion=prompt\n\nanswer = output\n",
    )
    assert report.added["responses"] == 1 and report.formats == ("rag",)
    with pytest.raises(uploads.UploadError, match="expected TARGET=SOURCE"):
        uploads.import_upload(store, "x.jsonl", _jsonl([GOOD]), mapping="question")


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
    report = uploads.import_upload(store, "../../up/evil.jsonl", _jsonl([GOOD]), system="s")
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
    status = cli_main(["--db", str(sample_store.path), "datasets", "--delete", "eo-mcq"])
    captured = capsys.readouterr()
    assert status != 0 and captured.out == ""
    assert captured.err.strip() == (
        "judgeboard datasets: error: no dataset named 'eo-mcq' (datasets: eo-conversational, "
        "eo-hallucination, eo-mcqa, eo-rag); nothing was deleted"
    )
    assert _state(sample_store) == before
    assert cli_main(["--db", str(sample_store.path), "datasets", "--delete", "eo-mcqa"]) == 0
    assert capsys.readouterr().out.strip() == "deleted dataset 'eo-mcqa'"
    assert "eo-mcqa" not in _names(sample_store)
