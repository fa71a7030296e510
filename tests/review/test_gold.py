"""Gold answers: a person's corrected reference is a new row with provenance (the imported
one and earlier edits kept), EM and F1 are computed against it from then, `metrics --json`
says references were corrected, and `export --golden` writes the items with their corrected
references in the format they came in, which imports back to the corrected references."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dashboard.auth.users import User
from dashboard.export.golden import export_golden, renames_of
from dashboard.ingest.runner import import_path
from dashboard.metrics.output import MetricsRequest
from dashboard.metrics.output.metrics_json import numbers
from dashboard.review import gold
from dashboard.store import Store


def _write_rag(path: Path) -> None:
    rows = [
        {"question": "Capital of France?", "answer": "Paris", "gt_answer": "Lyon", "system": "s1"},
        {"question": "Capital of Italy?", "answer": "Rome", "gt_answer": "Rome", "system": "s1"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _item(store: Store, question: str) -> tuple[str, str, str]:
    with store.connection() as con:
        row = con.execute(
            "SELECT i.item_id, i.dataset, r.response_id FROM items i JOIN responses r "
            "USING (item_id, dataset) WHERE question = ?",
            [question],
        ).fetchone()
    return row


def _em(store: Store, response_id: str) -> float:
    with store.connection() as con:
        return con.execute(
            "SELECT value FROM auto_scores WHERE response_id = ? AND metric = 'em'", [response_id]
        ).fetchone()[0]


def test_a_correction_is_kept_with_provenance_and_rescores(store, tmp_path):
    _write_rag(tmp_path / "qa.jsonl")
    import_path(store, tmp_path / "qa.jsonl", dataset="qa")
    item_id, dataset, response_id = _item(store, "Capital of France?")
    assert _em(store, response_id) == 0.0  # "Paris" against the wrong reference "Lyon"
    edit = gold.correct_reference(
        store,
        item_id,
        dataset,
        ["Paris", "  "],
        reason="Lyon is wrong",
        response_id=response_id,
        actor=User("lee", "labeller"),
        author="ignored",
    )
    assert (edit.author, edit.previous, edit.reference_answers, edit.supersedes) == (
        "lee",
        ["Lyon"],
        ["Paris"],
        None,
    )
    assert _em(store, response_id) == 1.0  # rescored against the corrected reference
    second = gold.correct_reference(
        store, item_id, dataset, ["Paris", "Paris, France"], author="ana"
    )
    assert second.supersedes == edit.edit_id and second.previous == ["Paris"]
    history = gold.reference_history(store, item_id, dataset)
    assert [e.author for e in history] == ["lee", "ana"]
    with store.connection() as con:  # the imported reference stays in the item
        assert con.execute(
            "SELECT reference_answers FROM items WHERE item_id = ?", [item_id]
        ).fetchone() == (["Lyon"],)
    data = numbers(store, MetricsRequest(dataset="qa")).json
    assert data["references"] == {"source": "corrected", "corrected_items": 1}


def test_bad_corrections_are_refused_and_nothing_is_written(store, tmp_path):
    _write_rag(tmp_path / "qa.jsonl")
    import_path(store, tmp_path / "qa.jsonl", dataset="qa")
    item_id, dataset, _ = _item(store, "Capital of Italy?")
    with pytest.raises(gold.GoldError, match="Type your name"):
        gold.correct_reference(store, item_id, dataset, ["Roma"], author=" ")
    with pytest.raises(gold.GoldError, match="at least one reference"):
        gold.correct_reference(store, item_id, dataset, ["", " "], author="ana")
    with pytest.raises(gold.GoldError, match="references already"):
        gold.correct_reference(store, item_id, dataset, ["Rome"], author="ana")
    with pytest.raises(gold.GoldError, match="No item 'nope'"):
        gold.correct_reference(store, "nope", dataset, ["Rome"], author="ana")
    with store.connection() as con:
        assert con.execute("SELECT count(*) FROM reference_edits").fetchone() == (0,)


def test_the_text_box_round_trips_several_references():
    text = gold.references_text(["Paris", "Paris,\nFrance"])
    assert text == "Paris\n---\nParis,\nFrance"
    assert gold.parse_references(text + "\n---\n\n") == ["Paris", "Paris,\nFrance"]


@pytest.mark.parametrize("suffix", ["jsonl", "csv", "parquet"])
def test_a_golden_export_reimports_to_the_corrected_references(store, tmp_path, suffix):
    _write_rag(tmp_path / "qa.jsonl")
    import_path(store, tmp_path / "qa.jsonl", dataset="qa")
    item_id, dataset, _ = _item(store, "Capital of France?")
    gold.correct_reference(store, item_id, dataset, ["Paris", "Paris, France"], author="ana")
    out = tmp_path / f"gold.{suffix}"
    result = export_golden(store, out)
    assert [(f.format, f.rows, f.n_items, f.n_corrected, f.path) for f in result.files] == [
        ("rag", 2, 2, 1, out)
    ]
    fresh = Store(tmp_path / "fresh.duckdb")
    import_path(fresh, out, dataset="qa2")
    with fresh.connection() as con:
        found = dict(
            con.execute("SELECT question, reference_answers FROM items ORDER BY 1").fetchall()
        )
        systems = con.execute("SELECT DISTINCT system FROM responses").fetchall()
    assert found == {
        "Capital of France?": ["Paris", "Paris, France"],
        "Capital of Italy?": ["Rome"],
    }
    assert systems == [("s1",)]


def test_a_golden_export_names_mapped_columns_as_the_file_did(store, tmp_path):
    rows = [{"prompt": "2+2?", "reply": "4", "reference": "5", "system": "s"}]
    source = tmp_path / "mapped.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    mapping = {"question": "prompt", "answer": "reply", "gt_answer": "reference"}
    import_path(store, source, dataset="m", fmt="rag", mapping=mapping)
    item_id, dataset, _ = _item(store, "2+2?")
    gold.correct_reference(store, item_id, dataset, ["4"], author="ana")
    out = tmp_path / "gold.jsonl"
    [written] = export_golden(store, out).files
    assert renames_of(written.mapping) == mapping
    record = json.loads(out.read_text().splitlines()[0])
    assert (record["prompt"], record["reply"], record["reference"]) == ("2+2?", "4", ["4"])
    fresh = Store(tmp_path / "fresh.duckdb")
    import_path(fresh, out, dataset="m", fmt="rag", mapping=mapping)
    with fresh.connection() as con:
        assert con.execute("SELECT reference_answers FROM items").fetchall() == [(["4"],)]


def test_a_golden_export_of_several_formats_writes_a_file_each(sample_store, tmp_path):
    out = tmp_path / "gold.jsonl"
    result = export_golden(sample_store, out)
    formats = [f.format for f in result.files]
    assert len(formats) > 1 and "rag" in formats
    assert [f.path.name for f in result.files] == [f"gold.{f}.jsonl" for f in formats]
    with sample_store.connection() as con:
        n_items = con.execute("SELECT count(*) FROM items").fetchone()[0]
    assert sum(f.n_items for f in result.files) == n_items
    for f in result.files:  # each file imports back
        fresh = Store(tmp_path / f"{f.format}.duckdb")
        import_path(fresh, f.path, dataset="again")
        with fresh.connection() as con:
            assert con.execute("SELECT count(*) FROM responses").fetchone()[0] == f.rows


def test_the_command_line_writes_a_golden_export(store, tmp_path, capsys):
    from dashboard.cli import main

    _write_rag(tmp_path / "qa.jsonl")
    import_path(store, tmp_path / "qa.jsonl", dataset="qa")
    item_id, dataset, _ = _item(store, "Capital of France?")
    gold.correct_reference(store, item_id, dataset, ["Paris"], author="ana")
    out = tmp_path / "gold.csv"
    assert main(["--db", store.url, "export", "--golden", str(out)]) == 0
    said = capsys.readouterr().out
    assert f"rag: 2 items, 1 with corrected references, 2 rows -> {out}" in said
    assert main(["--db", store.url, "metrics", "--json", "--human-reference", "adjudicated"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["selection"]["human_reference"] == "adjudicated"
    assert data["references"] == {"source": "corrected", "corrected_items": 1}
