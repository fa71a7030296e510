"""Hugging Face datasets made here with the real `datasets` library, saved with
`save_to_disk` (a Dataset, several shards, a selection, a DatasetDict) or as Parquet, imported
through --map like any table."""

from __future__ import annotations

from pathlib import Path

import pytest
from datasets import Dataset, DatasetDict

from dashboard.cli import main
from dashboard.ingest import IngestError, import_path
from dashboard.store import Store
from tests.ingest.conftest import query

ROWS = {
    "prompt": ["What is SAR?", "What is EO?", "What is a DEM?", "What is NDVI?"],
    "output": ["A radar.", "Optical imaging.", "A height map.", "A vegetation index."],
    "reference": [["Synthetic aperture radar"], ["Earth observation"], ["Elevation"], ["NDVI"]],
}
MAP = {"question": "prompt", "answer": "output", "gt_answer": "reference"}
MAP_ARGS = [arg for field, column in MAP.items() for arg in ("--map", f"{field}={column}")]


def _answers(store: Store) -> list[tuple[str, str, str, list[str]]]:
    return query(
        store,
        "SELECT i.dataset, i.question, r.answer, i.reference_answers FROM items i "
        "JOIN responses r USING (item_id) ORDER BY i.dataset, i.question",
    )


def test_a_saved_dataset_imports_with_map(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "eo_answers"
    Dataset.from_dict(ROWS).save_to_disk(str(saved), num_shards=2)
    assert len(list(saved.glob("*.arrow"))) == 2
    args = ["--db", store.url, "import", str(saved), "--system", "rag-v1", *MAP_ARGS]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"{saved}: 4 records as rag into eo_answers: added 4 items, 4 responses" in out
    expected = sorted(zip(ROWS["prompt"], ROWS["output"], ROWS["reference"], strict=True))
    assert _answers(store) == [("eo_answers", *row) for row in expected]
    assert query(store, "SELECT DISTINCT system FROM responses") == [("rag-v1",)]
    assert not [p for p in saved.iterdir() if p.suffix == ".parquet"]  # nothing written there


def test_a_selection_keeps_its_rows_and_a_dataset_dict_its_splits(
    store: Store, tmp_path: Path
) -> None:
    full = Dataset.from_dict(ROWS)
    saved = tmp_path / "eo"
    DatasetDict({"train": full.select([3, 1]), "test": full.select([0])}).save_to_disk(str(saved))
    report = import_path(store, saved, mapping=MAP)
    assert [(f.file, f.datasets, f.added["items"]) for f in report.files] == [
        (str(saved / "train"), ("eo-train",), 2),
        (str(saved / "test"), ("eo-test",), 1),
    ]
    assert [(d, q) for d, q, _, _ in _answers(store)] == [
        ("eo-test", "What is SAR?"),
        ("eo-train", "What is EO?"),
        ("eo-train", "What is NDVI?"),
    ]


def test_parquet_from_datasets_imports_with_map(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "hub" / "data"
    folder.mkdir(parents=True)
    # A repository's Parquet files, as the hub's converter names them.
    Dataset.from_dict(ROWS).to_parquet(str(folder / "train-00000-of-00001.parquet"))
    report = import_path(store, folder.parent, dataset="eo_hub", mapping=MAP)
    assert report.files[0].added["items"] == 4
    assert len(_answers(store)) == 4


def test_a_bad_saved_dataset_is_named(store: Store, tmp_path: Path) -> None:
    saved = tmp_path / "eo_answers"
    Dataset.from_dict(ROWS).save_to_disk(str(saved))
    with pytest.raises(IngestError) as error:
        import_path(store, saved, mapping={"question": "prompt", "answer": "missing"})
    assert str(error.value).startswith(f"{saved}: field 'answer': the file has no column")
    (arrow,) = saved.glob("*.arrow")
    arrow.write_bytes(b"not arrow")
    with pytest.raises(IngestError, match=f"{saved}: cannot read the Arrow file {arrow.name}"):
        import_path(store, saved, mapping=MAP)
    assert query(store, "SELECT count(*) FROM items") == [(0,)]
