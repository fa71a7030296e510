"""Hugging Face datasets saved with `Dataset.save_to_disk` (a folder of Arrow stream files that
`state.json` lists in order, beside `dataset_info.json`) or `DatasetDict.save_to_disk` (a
folder per split, named in `dataset_dict.json`): each split read with pyarrow into a Parquet
copy, which the importer reads like any table (`--map` applies). No `datasets` import: its
on-disk layout is plain Arrow. A repository's Parquet files need nothing of this: they are
Parquet files."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from dashboard.ingest.errors import IngestError

STATE = "state.json"
INFO = "dataset_info.json"
SPLITS = "dataset_dict.json"


@dataclass(frozen=True)
class Split:
    """One saved dataset (a split of a DatasetDict, or the whole of a Dataset) and the name
    of the dataset it goes into when the user names none."""

    folder: Path
    dataset: str


def is_saved_dataset(folder: Path) -> bool:
    """Whether the folder is what `save_to_disk` writes."""
    if not folder.is_dir():
        return False
    return (folder / SPLITS).is_file() or ((folder / STATE).is_file() and (folder / INFO).is_file())


def _json(path: Path, folder: Path) -> dict[str, object]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise IngestError(f"cannot read {path.name} ({error})", file=folder) from None
    if not isinstance(found, dict):
        raise IngestError(f"{path.name} holds no object", file=folder)
    return found


def saved_splits(folder: Path) -> list[Split]:
    """The folder's datasets: each split of a DatasetDict into `<folder>-<split>`, or the
    folder's one dataset into its name."""
    if not (folder / SPLITS).is_file():
        return [Split(folder, folder.name)]
    names = _json(folder / SPLITS, folder).get("splits")
    if not isinstance(names, list) or not names:
        raise IngestError(f"{SPLITS} names no splits", file=folder, field="splits")
    return [Split(folder / str(name), f"{folder.name}-{name}") for name in names]


def parquet_copy(split: Split, out: Path) -> Path:
    """The split's rows, in order, written to `out` as Parquet."""
    files = _json(split.folder / STATE, split.folder).get("_data_files")
    if not isinstance(files, list) or not files:
        raise IngestError(f"{STATE} lists no data files", file=split.folder, field="_data_files")
    tables = []
    for entry in files:
        name = entry.get("filename") if isinstance(entry, dict) else None
        path = split.folder / str(name)
        try:
            with pa.memory_map(str(path)) as source:
                tables.append(pa.ipc.open_stream(source).read_all())
        except (OSError, pa.ArrowException) as error:
            raise IngestError(
                f"cannot read the Arrow file {name} ({type(error).__name__})", file=split.folder
            ) from None
    try:
        table = pa.concat_tables(tables)
    except pa.ArrowException:
        raise IngestError("its Arrow files hold different columns", file=split.folder) from None
    pq.write_table(table, out)
    return out
