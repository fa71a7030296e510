"""A guard against the next regression (issue 28): for every format docs/formats.md documents, a
file with every documented field, and one with only the required ones, imports without
--format, is detected as that format and gives the counts it should. The fields come from the
docs' own table, checked against `dashboard/ingest/formats.py`, so a field added on one side
only fails here too. The published sets' adapters are tested on the layouts their projects
publish (here AlpacaEval's results/<model>/<annotator>/annotations.json; LLMBar's and
FastChat's in test_fidelity_regressions.py and test_llmbar_layout.py, PandaLM's and NQ-open's
own folders in test_real_sets.py)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from dashboard.ingest import import_path
from dashboard.ingest.formats import FORMATS, PAIR, SINGLE
from dashboard.store import Store
from tests.ingest.conftest import WRITERS, query
from tests.paths import REPO_ROOT, SHARED_DATA

DOCS = REPO_ROOT / "docs" / "formats.md"
PROVENANCE = {"selection", "inclusion_probability", "campaign", "blind", "source"}
# Fields every record-per-row format has, documented once above the table.
COMMON = {"id", "system", "task_type"}
_ROW = re.compile(r"^\| `(\w+)`[^|]*\| (.*?) \| (.*?) \|$")


def documented() -> dict[str, tuple[set[str], set[str]]]:
    """Each format's (fields, required fields) as the docs' table lists them."""
    found = {}
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        row = _ROW.match(line)
        if row is None or row[1] not in FORMATS:
            continue
        required = set(re.findall(r"\*\*(\w+)\*\*", row[2]))
        names = (set(re.findall(r"`(\w+)`", row[2])) | required) - set(FORMATS)
        if "provenance" in row[2]:
            names |= PROVENANCE
        found[row[1]] = (names, required)
    return found


def test_the_docs_list_every_field_of_every_format() -> None:
    docs = documented()
    assert sorted(docs) == sorted(FORMATS)
    for name, fmt in FORMATS.items():
        fields, required = docs[name]
        in_code = {f.name for f in fmt.fields}
        common = COMMON & in_code if fmt.shape in (SINGLE, PAIR) else set()
        assert fields | common == in_code, name
        assert required == set(fmt.required), name


# A value of each field, by name where the field's meaning constrains it, else by kind.
_BY_NAME: dict[str, Any] = {
    "task_type": None,  # set per format below
    "value": 4,
    "scale_low": 1,
    "scale_high": 5,
    "rater_kind": "llm",
    "winner": "A",
    "verdict": "B",
    "shown_first": "B",
    "gold": "B",
    "gold_letters": ["B"],
    "label": "yes",
    "hallucination_gold": True,
    "prediction": "yes, it is hallucinated",
    "options": ["radar", "optical"],
    "history": ["Hi.", "Hello, how can I help?"],
    "selection": "random",
    "inclusion_probability": 0.5,
    "blind": True,
    "source": "notebook",
    "created_utc": "2026-01-02T03:04:05Z",
    "item_metadata": {"source": "guard"},
    "response_metadata": {"run": 1},
    "response_metadata_a": {"run": 1},
    "response_metadata_b": {"run": 2},
    "contexts": ["SAR sees through clouds."],
    "contexts_a": ["SAR sees through clouds."],
    "contexts_b": ["Optical needs clear skies."],
    "reference_answers": ["SAR"],
    "gt_answer": ["SAR", "radar"],
    "gold_answers": ["SAR", "radar"],
    "gt_context": ["SAR is radar.", "Radar passes clouds."],
    "supersedes": None,  # the column is there; a row it names would have to exist
    "overrides": None,
}
_TASK = {
    "rag": "open_qa_context",
    "mcqa": "mcqa_single",
    "hallucination": "hallucination",
    "conversational": "conversational_qa",
    "ratings": "mcqa_single",
    "preferences": "pairwise",
}
_KIND = {"number": 3, "key": "k-1", "texts": ["t"], "strings": ["s"], "passage": "p"}


def _value(name: str, kind: str, n: int) -> Any:
    if name in _BY_NAME:
        return _BY_NAME[name]
    if name.endswith("_id") or name in ("id", "rubric_version", "response_a", "response_b"):
        return f"{name}-{n}"
    return _KIND.get(kind, f"{name} {n}")


def _record(fmt: str, n: int, *, only_required: bool) -> dict[str, Any]:
    fields = FORMATS[fmt].fields
    chosen = [f for f in fields if f.required or not only_required]
    record = {f.name: _value(f.name, f.kind, n) for f in chosen}
    if "task_type" in record:
        record["task_type"] = _TASK[fmt]
    if "dataset" in record:
        record["dataset"] = "guard"
    for key in ("question", "answer", "answer_a", "candidate"):
        if key in record:
            record[key] = f"{key} {n}"
    return record


# (items, responses, ratings, preferences) that two records of a format give.
COUNTS = {
    "rag": (2, 2, 0, 0),
    "mcqa": (2, 2, 0, 0),
    "hallucination": (2, 2, 0, 0),
    "conversational": (2, 2, 0, 0),
    "pairwise": (2, 4, 0, 2),
    "ratings": (2, 2, 2, 0),
    "preferences": (2, 4, 0, 2),
}
# A pairwise file without the judgement fields has no winner: pairs alone.
REQUIRED_COUNTS = {**COUNTS, "pairwise": (2, 4, 0, 0)}


def _counts(store: Store) -> tuple[int, ...]:
    [row] = query(
        store,
        """SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM responses),
        (SELECT count(*) FROM ratings), (SELECT count(*) FROM preferences)""",
    )
    return tuple(row)


@pytest.mark.parametrize("kind", ["jsonl", "csv"])
@pytest.mark.parametrize("only_required", [False, True], ids=["every-field", "required-only"])
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_documented_file_is_detected_and_imported(
    store: Store, tmp_path: Path, fmt: str, only_required: bool, kind: str
) -> None:
    records = [_record(fmt, n, only_required=only_required) for n in (1, 2)]
    if only_required:
        assert set(records[0]) == set(FORMATS[fmt].required)
    else:
        assert set(records[0]) == {f.name for f in FORMATS[fmt].fields}
    path = WRITERS[kind](tmp_path / f"guard-{fmt}.{kind}", records)
    report = import_path(store, path)
    assert [f.format for f in report.files] == [fmt]
    assert report.files[0].records == 2
    assert _counts(store) == (REQUIRED_COUNTS if only_required else COUNTS)[fmt]
    again = import_path(store, path)  # and again: nothing new, nothing refused
    assert sum(again.added.values()) == 0


def test_alpaca_eval_as_its_repository_publishes_it(store: Store, tmp_path: Path) -> None:
    """results/<model>/<annotator>/annotations.json: every file has the same name, so each
    goes into its annotator's folder name, the models of one annotator side by side."""
    results = tmp_path / "results"
    for model, annotator in (
        ("alpaca-7b", "alpaca_eval_gpt4"),
        ("vicuna-13b", "alpaca_eval_gpt4"),
        ("alpaca-7b", "weighted_alpaca_eval_gpt4_turbo"),
    ):
        folder = results / model / annotator
        folder.mkdir(parents=True)
        source = SHARED_DATA / "alpaca_eval" / f"{model}__{annotator}__annotations.json"
        shutil.copyfile(source, folder / "annotations.json")
    report = import_path(store, results)
    assert {f.format for f in report.files} == {"alpaca_eval"}
    assert report.datasets == ("alpaca_eval_gpt4", "weighted_alpaca_eval_gpt4_turbo")
    rows = query(
        store,
        """SELECT i.dataset, count(*) FROM preferences p JOIN items i USING (item_id)
        GROUP BY ALL ORDER BY 1""",
    )
    assert rows == [("alpaca_eval_gpt4", 2 * 805), ("weighted_alpaca_eval_gpt4_turbo", 805)]
