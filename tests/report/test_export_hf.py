"""`judgeboard export --format hf OUT`: a dataset folder that the real `datasets` library loads
(by folder, by config, and as plain Parquet), with a dataset card whose YAML header names
its configs; and that imports back into judgeboard."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from datasets import load_dataset

from dashboard.cli import main
from dashboard.ingest import import_path
from dashboard.store import Store
from tests.conftest import TEST_WAIT_S


def _count(store: Store, sql: str) -> int:
    with store.connection() as con:
        return con.execute(sql).fetchone()[0]


def test_the_folder_loads_with_datasets(
    sample_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "hf_export"
    assert main(["--db", sample_store.url, "export", "--format", "hf", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"dataset card -> {out / 'README.md'}" in printed
    card = (out / "README.md").read_text(encoding="utf-8")
    header = yaml.safe_load(card.split("---\n")[1])
    configs = {c["config_name"]: c for c in header["configs"]}
    assert configs["ratings"]["default"] is True
    assert configs["ratings"]["data_files"] == [
        {"split": "train", "path": "data/judgeboard.ratings.parquet"}
    ]
    cache = str(tmp_path / "hf-cache")
    ratings = load_dataset(str(out), cache_dir=cache)["train"]
    # Every rating, plus a row per response nobody rated and per item without responses.
    n_ratings = _count(sample_store, "SELECT count(*) FROM ratings")
    assert len(ratings) >= n_ratings > 0
    assert f"ratings: {len(ratings)} rows" in printed
    assert sum(r == "human" for r in ratings["rater_kind"]) == _count(
        sample_store, "SELECT count(*) FROM ratings WHERE rater_kind = 'human'"
    )
    assert sorted(configs) == ["preferences", "ratings"]  # the sample has both
    preferences = load_dataset(str(out), "preferences", cache_dir=cache)["train"]
    assert len(preferences) == _count(sample_store, "SELECT count(*) FROM preferences") > 0
    plain = load_dataset(
        "parquet",
        data_files=str(out / "data" / "judgeboard.ratings.parquet"),
        cache_dir=cache,
    )["train"]
    assert plain.column_names == ratings.column_names and len(plain) == len(ratings)
    # The same files import back.
    again = Store(tmp_path / "again.duckdb", wait_s=TEST_WAIT_S)
    import_path(again, out / "data")
    assert _count(again, "SELECT count(*) FROM ratings") == n_ratings


def test_one_dataset_and_a_second_export_over_the_first(
    sample_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "hf_export"
    (name,) = [d for d in sample_store.dataset_names() if d == "eo-rag"]
    db = ["--db", sample_store.url]
    assert main([*db, "export", "--format", "hf", str(out)]) == 0
    assert main([*db, "export", "--format", "hf", str(out), "--dataset", name]) == 0
    capsys.readouterr()
    rows = load_dataset(str(out), cache_dir=str(tmp_path / "c"))["train"]
    assert set(rows["dataset"]) == {name}
    assert f"Datasets: `{name}`." in (out / "README.md").read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("hf_export")) == [
        "hf_export"
    ]  # no partial folder left


def test_a_folder_of_other_files_is_not_overwritten(
    sample_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me", encoding="utf-8")
    assert main(["--db", sample_store.url, "export", "--format", "hf", str(out)]) != 0
    err = capsys.readouterr().err
    assert "is no judgeboard export for Hugging Face: name a new folder" in err
    assert "Traceback" not in err
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
