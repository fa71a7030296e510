"""`judgeboard export --format hf OUT`: the export as a Hugging Face dataset folder that the
`datasets` library loads (`load_dataset("OUT")`, or `load_dataset("parquet", data_files=...)`).

    OUT/README.md                          the dataset card: a YAML header naming the configs
    OUT/data/judgeboard.ratings.parquet    the ratings export (`files.export`), config ratings
    OUT/data/judgeboard.preferences.parquet  the preferences, config preferences (if any)

The Parquet files are `judgeboard export`'s own, so they also import back into judgeboard.
The folder is written beside OUT and moved into place whole; an existing OUT is replaced only
when it is an earlier export of this kind (its card says so)."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from dashboard.export.files import ExportError, ExportResult, export
from dashboard.partials import partial_path
from dashboard.store import Store

DATA = "data"
STEM = "judgeboard.parquet"
CARD = "README.md"
MARK = "judgeboard-export"  # a tag of the card: OUT is an earlier export, safe to replace
COLUMNS = {
    "ratings": "a row per rating (current and superseded; `is_current`), a row with the "
    "rating fields empty per response nobody rated, and one with the response fields empty "
    "too per item without responses. The item (`question`, `reference_answers`, ...), the "
    "response (`system`, `answer`), the rating (`rater_kind` llm or human, `rater`, `rubric`, "
    "`value` on [`scale_low`, `scale_high`], `explanation`, `comment`, `created_utc`) and the "
    "response's `effective_score` on 0-1",
    "preferences": "a row per preference: the item, both responses (`system_a`, `answer_a`, "
    "`system_b`, `answer_b`), the `verdict` (A, B or tie), `shown_first` and who gave it",
}


@dataclass(frozen=True)
class HfExport:
    folder: Path
    result: ExportResult


def _yaml(value: str) -> str:
    """A YAML scalar: JSON's double-quoted string is one."""
    return json.dumps(value, ensure_ascii=False)


def dataset_card(result: ExportResult, *, datasets: list[str], rubric: str | None) -> str:
    """The README.md: a YAML header with one config per file (ratings the default), then
    what the files hold and how to load them."""
    header = ["---", "configs:"]
    for n, (kind, path) in enumerate(result.files.items()):
        header += [f"- config_name: {kind}", "  data_files:", "  - split: train"]
        header += [f"    path: {_yaml(f'{DATA}/{path.name}')}"]
        header += ["  default: true"] if n == 0 else []
    header += ["tags:", f"- {MARK}", "- llm-as-a-judge", "---", ""]
    scope = ", ".join(f"`{d}`" for d in datasets) or "none"
    lines = [
        "# Labels and judge ratings exported by judgeboard",
        "",
        f"Datasets: {scope}" + (f"; rubric `{rubric}` only." if rubric else "."),
        "",
    ]
    for kind, path in result.files.items():
        lines += [f"- `{kind}` ({DATA}/{path.name}, {result.rows[kind]} rows): {COLUMNS[kind]}."]
    first = next(iter(result.files), "ratings")
    lines += [
        "",
        "```python",
        "from datasets import load_dataset",
        f'rows = load_dataset("path/to/this/folder", "{first}")["train"]',
        "```",
        "",
        "`judgeboard import` reads the Parquet files back with no options.",
        "",
    ]
    return "\n".join(header + lines)


def _replaceable(out: Path) -> bool:
    """Whether OUT may be replaced: absent, empty, or an earlier export of this kind."""
    if not out.exists():
        return True
    if not out.is_dir():
        return False
    card = out / CARD
    return not any(out.iterdir()) or (card.is_file() and f"- {MARK}\n" in card.read_text())


def export_hf(
    store: Store,
    out: str | os.PathLike[str],
    *,
    dataset: str | None = None,
    rubric: str | None = None,
    unrated: bool = True,
) -> HfExport:
    """Write the export of `dataset` (None: all) as a dataset folder at `out`."""
    out = Path(out)
    if not _replaceable(out):
        raise ExportError(
            f"{out} exists and is no judgeboard export for Hugging Face: name a new folder"
        )
    partial = partial_path(out)
    shutil.rmtree(partial, ignore_errors=True)
    try:
        result = export(
            store, partial / DATA / STEM, dataset=dataset, rubric=rubric, unrated=unrated
        )
        if not result.files:
            raise ExportError(
                "nothing to export: no items in the store"
                + (f" for dataset {dataset!r}" if dataset else "")
            )
        names = [dataset] if dataset else store.dataset_names()
        card = dataset_card(result, datasets=names, rubric=rubric)
        (partial / CARD).write_text(card, encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        os.replace(partial, out)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    files = {kind: out / DATA / path.name for kind, path in result.files.items()}
    return HfExport(out, ExportResult(result.fmt, files, result.rows, result.without_rating))
