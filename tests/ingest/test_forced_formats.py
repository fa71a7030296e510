"""`--format NAME` forced on the wrong file: every format name on every other format's file and
on each published set's files. Each import either works or stops with our own message, which
names the file, and never with DuckDB's text ("Binder Error", "Conversion Error", ...)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from dashboard.ingest import ALL_FORMATS, IngestError, import_path
from dashboard.store import Store
from tests.ingest.conftest import write_jsonl
from tests.ingest.test_mt_bench_pair import RECORDS as PAIR_RECORDS
from tests.ingest.test_source_identity import PLAIN
from tests.paths import SHARED_DATA

# What DuckDB's own messages look like; none may reach a user.
DUCKDB_TEXT = re.compile(
    r"(Binder|Conversion|Invalid Input|Parser|Catalog|Not implemented|INTERNAL|Internal|"
    r"Out of Range|Mismatch Type|Invalid|Dependency|Constraint|Serialization|IO|Sequence) "
    r"Error|duckdb|LINE \d+:|Candidate bindings|Traceback",
    re.IGNORECASE,
)
PUBLISHED = sorted(
    p.relative_to(SHARED_DATA).as_posix()
    for p in SHARED_DATA.rglob("*")
    if p.suffix in (".json", ".jsonl", ".csv")
)
PUBLISHED_FORMAT = {
    "pandalm": "pandalm",
    "alpaca_eval": "alpaca_eval",
    "llmbar": "llmbar",
    "nq_open": "nq_open",
    "mt_bench": "mt_bench",
}


def _check(store: Store, path: Path, fmt: str) -> str | None:
    """What is wrong with the outcome of importing `path` as `fmt`, or None."""
    try:
        import_path(store, path, fmt=fmt, score=False)
    except IngestError as error:
        for message in (str(error), error.page_message):
            if DUCKDB_TEXT.search(message) or "\n" in message:
                return f"--format {fmt}: {message}"
            if not message.startswith(str(path)):
                return f"--format {fmt}: does not name the file: {message}"
        return None
    except Exception as error:  # noqa: BLE001 (any other exception is what we look for)
        return f"--format {fmt}: {type(error).__name__}: {error}"
    return None


def _all_formats(tmp_path: Path, path: Path, own: str | None) -> list[str]:
    problems = []
    for n, fmt in enumerate(f for f in ALL_FORMATS if f != own):
        problem = _check(Store(tmp_path / f"db{n}.duckdb", wait_s=30), path, fmt)
        if problem:
            problems.append(problem)
    return problems


@pytest.mark.parametrize("own", sorted(PLAIN))
def test_every_format_on_a_plain_format_file(tmp_path: Path, own: str) -> None:
    path = write_jsonl(tmp_path / f"{own}.jsonl", [{**PLAIN[own], "id": "1"}])
    assert _all_formats(tmp_path, path, own) == []


@pytest.mark.parametrize("relative", PUBLISHED)
def test_every_format_on_a_published_file(tmp_path: Path, relative: str) -> None:
    own = PUBLISHED_FORMAT.get(relative.split("/")[0])
    assert _all_formats(tmp_path, SHARED_DATA / relative, own) == []


def test_every_format_on_a_fastchat_pair_file(tmp_path: Path) -> None:
    folder = tmp_path / "judgments"
    folder.mkdir()
    shutil.copyfile(SHARED_DATA / "mt_bench" / "question.jsonl", folder / "question.jsonl")
    path = write_jsonl(folder / "gpt-4_pair.jsonl", PAIR_RECORDS)
    assert _all_formats(tmp_path, path, "mt_bench_pair") == []


def test_empty_lists_in_every_record(tmp_path: Path) -> None:
    # DuckDB types a column of empty lists JSON[]; every field of every format meets one.
    fields = {f for record in PLAIN.values() for f in record}
    extra = ("contexts", "gt_answer", "gt_context", "options", "gold", "gold_answers")
    record = {f: [] for f in (*fields, *extra)}
    path = write_jsonl(tmp_path / "empty.jsonl", [record, record])
    assert _all_formats(tmp_path, path, None) == []


def test_a_published_level_empty_in_every_record(store: Store, tmp_path: Path) -> None:
    # NQ-open's levels are lists; one that is empty everywhere is typed JSON[] and used to
    # fail with DuckDB's "Conversion Error" when its predictions were unnested.
    records = [
        {
            "question": f"q{n}",
            "answer": ["a"],
            "def_correct_predictions": [],
            "poss_correct_predictions": [],
            "def_incorrect_predictions": [f"wrong {n}"],
            "answer_and_def_correct_predictions": ["a"],
        }
        for n in range(3)
    ]
    report = import_path(store, write_jsonl(tmp_path / "nq.jsonl", records))
    assert dict(report.files[0].added) == {"items": 3, "responses": 3, "ratings": 3}


@pytest.mark.parametrize(
    "record, message",
    [
        (
            {"input": "i", "output_1": ["a"], "output_2": "b", "label": 1},
            "record 1 (index 0): field 'output_1': expected a string, got a list",
        ),
        (
            {"input": "i", "output_1": "a", "output_2": "b", "label": "first"},
            "record 1 (index 0): field 'label': expected a number, got a string",
        ),
        (
            {"input": "i", "output_1": "a", "output_2": "b", "label": 3},
            "record 1 (index 0): field 'label': expected 1 or 2",
        ),
    ],
)
def test_a_published_set_value_of_the_wrong_type(
    store: Store, tmp_path: Path, record: dict, message: str
) -> None:
    path = tmp_path / "set.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    with pytest.raises(IngestError) as caught:
        import_path(store, path)
    assert str(caught.value) == f"{path}: {message}"
