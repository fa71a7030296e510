"""Bad values never poison metrics: a scale is finite and not empty, a value is finite and on
its scale, a rubric keeps one scale, and one dataset's data cannot break another's numbers."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from dashboard.cli import main
from dashboard.ingest import IngestError, import_path
from dashboard.store import Store
from tests.ingest.conftest import WRITERS, Writer, query, rating_record, snapshot


def _refused(store: Store, path: Path, expected: str, **options: Any) -> None:
    before = snapshot(store)
    with pytest.raises(IngestError) as caught:
        import_path(store, path, **options)
    assert str(caught.value) == expected
    assert snapshot(store) == before


WHERE = {
    "jsonl": "line 2 (record 2)",
    "json": "record 2 (index 1)",
    "csv": "row 2",
    "parquet": "row 2",
}


@pytest.mark.parametrize("kind", WRITERS)
@pytest.mark.parametrize(
    "field, number, shown",
    [
        ("value", math.nan, "NaN"),
        ("value", math.inf, "Infinity"),
        ("scale_low", -math.inf, "-Infinity"),
        ("scale_high", math.inf, "Infinity"),
        ("scale_high", math.nan, "NaN"),
        ("scale_low", math.nan, "NaN"),
    ],
)
def test_nan_and_infinity_are_refused_in_every_kind(
    store: Store, tmp_path: Path, kind: str, field: str, number: float, shown: str
) -> None:
    """Parquet keeps IEEE floats, JSON has Python's NaN/Infinity literals, CSV has the text
    (as pandas writes it); before, NaN values in Parquet and infinite or NaN scales in every
    kind were stored."""
    path = tmp_path / f"ratings.{kind}"
    records = [rating_record(), rating_record(question="q2", **{field: number})]
    if kind == "csv":
        records[1][field] = {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}[shown]
    if kind in ("jsonl", "json"):
        text = json.dumps(records) if kind == "json" else "\n".join(map(json.dumps, records))
        path.write_text(text, encoding="utf-8")
    else:
        WRITERS[kind](path, records)
    _refused(
        store,
        path,
        f"{path}: {WHERE[kind]}: field '{field}': expected a finite number, got {shown}",
    )


def test_a_second_import_on_another_scale_is_refused_naming_both(
    store: Store, write: Writer
) -> None:
    import_path(store, write("one.jsonl", [rating_record()]), dataset="one")
    path = write(
        "two.jsonl", [rating_record(question="q2"), rating_record(question="q3", scale_high=10)]
    )
    _refused(
        store,
        path,
        f"{path}: line 2 (record 2): field 'scale_low': rubric 'likert' is on the scale 1–10 "
        "here, but on 1–5 in the ratings already stored; a rubric keeps one scale in every "
        "dataset: give this one another rubric name, or fix its scale",
        dataset="two",
    )


def test_one_file_with_two_scales_for_a_rubric_is_refused(store: Store, write: Writer) -> None:
    path = write("two.csv", [rating_record(scale_low=0), rating_record(question="q2", scale_low=1)])
    _refused(
        store,
        path,
        f"{path}: row 2: field 'scale_low': rubric 'likert' is on the scale 1–5 here, but on "
        "0–5 in record 1 of this file; a rubric keeps one scale in every dataset: give this one "
        "another rubric name, or fix its scale",
    )


def test_a_published_sets_rubric_keeps_its_scale(store: Store, write: Writer) -> None:
    """NQ-open's ratings are on nq-correctness 0–2 (adapters/nq_open.py); stored ratings of
    that rubric name on another scale make its import refused, not mixed."""
    import_path(store, write("mine.jsonl", [rating_record(rubric="nq-correctness")]))
    path = write(
        "nq.jsonl",
        [
            {
                "question": "who?",
                "answer": ["x"],
                "def_correct_predictions": ["x"],
                "poss_correct_predictions": ["z"],
                "def_incorrect_predictions": ["y"],
                "answer_and_def_correct_predictions": ["x"],
            }
        ],
    )
    _refused(
        store,
        path,
        f"{path}: rubric 'nq-correctness' is on the scale 0–2 here, but on 1–5 in the ratings "
        "already stored; a rubric keeps one scale in every dataset: give this one another "
        "rubric name, or fix its scale",
    )


def _cli(capsys: pytest.CaptureFixture[str], db: Path | str, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(["--db", str(db), "--wait", "5", *args])
    out, err = capsys.readouterr()
    return status, out, err


ODD = [  # finite, on their scales, and as odd as a dataset may be
    rating_record(rubric="likert-rag", value=5, rater="odd-1"),
    rating_record(rubric="likert-rag", value=None, rater="odd-2", unscored_reason="no answer"),
    rating_record(rubric="odd-wide", value=1e300, scale_low=-1e300, scale_high=1e300, rater="w"),
    rating_record(rubric="odd-tiny", value=1e-300, scale_low=0, scale_high=2e-300, rater="t"),
    rating_record(rubric="odd-unscored", value=None, unscored_reason="skipped", rater="u"),
]


def test_an_odd_dataset_changes_nothing_of_another_and_breaks_no_view(
    sample_store: Store, write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = sample_store.url
    status, before, err = _cli(capsys, db, "metrics", "--dataset", "eo-rag", "--json")
    assert (status, err) == (0, "")
    import_path(sample_store, write("odd.jsonl", ODD), dataset="odd", system="odd-sys")
    bad = write("bad.jsonl", [rating_record(rubric="likert-rag", scale_high=10, question="x")])
    with pytest.raises(IngestError, match="rubric 'likert-rag' is on the scale 1–10 here"):
        import_path(sample_store, bad, dataset="odd")
    status, after, err = _cli(capsys, db, "metrics", "--dataset", "eo-rag", "--json")
    assert (status, err, json.loads(after)) == (0, "", json.loads(before))
    for dataset in ("odd", None):
        rubrics = (
            ("likert-rag", "odd-wide", "odd-tiny", "odd-unscored") if dataset else ("odd-wide",)
        )
        for rubric in rubrics:
            chosen = [*(["--dataset", dataset] if dataset else []), "--rubric", rubric]
            status, out, err = _cli(capsys, db, "metrics", *chosen, "--json")
            assert (status, err) == (0, ""), (dataset, rubric, err)
            assert "NaN" not in out and "Infinity" not in out
        report = tmp_path / f"report-{dataset}.html"
        chosen = ["--dataset", dataset] if dataset else []
        status, _, err = _cli(capsys, db, "report", *chosen, "--out", str(report))
        assert (status, err) == (0, "") and report.stat().st_size > 0
    assert query(sample_store, "SELECT count(*) FROM ratings WHERE rater LIKE 'odd-%'") == [(2,)]
