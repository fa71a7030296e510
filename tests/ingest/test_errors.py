"""Bad input: a clear message naming the file, the record and the field, and nothing written.

Each case imports into a store that already holds a good import, and checks that the row
counts and dataset summaries are exactly as they were.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboard.ingest import IngestError, import_path
from dashboard.store import Store
from tests.ingest.conftest import Writer, query, rating_record, snapshot, write_jsonl

GOOD = {"question": "q1", "answer": "a1", "gt_answer": "r1", "contexts": ["c"]}


@pytest.fixture
def seeded(store: Store, tmp_path: Path) -> Store:
    import_path(store, write_jsonl(tmp_path / "good.jsonl", [GOOD]), dataset="d", system="s")
    return store


def _fails(store: Store, path: Path, expected: str, **options: object) -> IngestError:
    before = snapshot(store)
    with pytest.raises(IngestError) as caught:
        import_path(store, path, **options)
    assert str(caught.value) == expected
    assert snapshot(store) == before
    return caught.value


def _raw(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_malformed_jsonl_line(seeded: Store, tmp_path: Path) -> None:
    # A blank line before the bad one: line and record numbers differ, and both are right.
    path = _raw(
        tmp_path,
        "bad.jsonl",
        b'{"question": "q", "answer": "a"}\n\n{"question": "q2", answer: 1}\n',
    )
    error = _fails(
        seeded,
        path,
        f"{path}: line 3 (record 2): malformed JSON: Expecting "
        "property name enclosed in double quotes (column 20)",
    )
    assert (error.line, error.record, error.file) == (3, 2, str(path))


def test_truncated_last_line(seeded: Store, tmp_path: Path) -> None:
    path = _raw(tmp_path, "cut.jsonl", b'{"question": "q", "answer": "a"}\n{"question": "q')
    _fails(
        seeded,
        path,
        f"{path}: line 2 (record 2): malformed JSON: Unterminated string starting at (column 14)",
    )


def test_malformed_json_array(seeded: Store, tmp_path: Path) -> None:
    path = _raw(
        tmp_path,
        "bad.json",
        b'[{"question": "q", "answer": "a"},\n {"question": "q2", "answer": }]',
    )
    _fails(
        seeded,
        path,
        f"{path}: record 2 (index 1): malformed JSON: Expecting value (line 2 column 31)",
    )


@pytest.mark.parametrize(
    "name, data, where",
    [
        (
            "bad.jsonl",
            b'{"question": "q", "answer": "a"}\n{"question": "\xff", "answer": "b"}\n',
            "line 2 (record 2): invalid UTF-8 (byte 15 of the line)",
        ),
        (
            "bad.json",
            b'[{"question": "q", "answer": "a"}, {"question": "\xfe", "answer": "b"}]',
            "record 2 (index 1): invalid UTF-8",
        ),
        ("bad.csv", b"question,answer\nq,a\nq2,b\xff\n", "row 2: invalid UTF-8"),
    ],
)
def test_invalid_utf8(seeded: Store, tmp_path: Path, name: str, data: bytes, where: str) -> None:
    path = _raw(tmp_path, name, data)
    _fails(seeded, path, f"{path}: {where}")


def test_missing_value(seeded: Store, write: Writer) -> None:
    path = write("miss.jsonl", [GOOD, {"question": "q2", "answer": None}])
    error = _fails(
        seeded,
        path,
        f"{path}: line 2 (record 2): field 'answer': is missing",
        dataset="d",
        system="s",
    )
    assert error.field == "answer"


def test_missing_column(seeded: Store, write: Writer) -> None:
    path = write("nocol.csv", [{"question": "q"}])
    error = _fails(
        seeded,
        path,
        f"{path}: field 'answer': the file has no such column (it has: question); "
        "map a column onto it with --map answer=COLUMN",
        fmt="rag",
    )
    assert error.page_message == (
        f"{path}: field 'answer': the file has no such column (it has: question); "
        "pick a column for answer"
    )


@pytest.mark.parametrize(
    "record, field, problem",
    [
        ({"question": 12, "answer": "a"}, "question", "expected a string, got a number"),
        (
            {"question": "q", "answer": "a", "contexts": "one passage"},
            "contexts",
            "expected a list of strings, got a string",
        ),
        (
            {"question": "q", "answer": "a", "gt_answer": {"x": 1}},
            "gt_answer",
            "expected a string or a list of strings, got an object",
        ),
        ({"question": "q", "answer": ["a"]}, "answer", "expected a string, got a list"),
    ],
)
def test_wrong_type(seeded: Store, write: Writer, record: dict, field: str, problem: str) -> None:
    path = write("types.json", [GOOD, record])
    _fails(seeded, path, f"{path}: record 2 (index 1): field '{field}': {problem}", fmt="rag")


def test_wrong_type_names_the_mapped_column(seeded: Store, write: Writer) -> None:
    path = write("mapped.jsonl", [{"prompt": "q", "output": "a"}, {"prompt": 3, "output": "b"}])
    _fails(
        seeded,
        path,
        f"{path}: line 2 (record 2): field 'prompt': expected a string, got a number",
        mapping={"question": "prompt", "answer": "output"},
    )


def test_unknown_task_type(seeded: Store, write: Writer) -> None:
    path = write("task.jsonl", [{**GOOD, "task_type": "essay"}])
    _fails(
        seeded,
        path,
        f"{path}: line 1 (record 1): field 'task_type': unknown task type "
        "'essay' (known: open_qa, open_qa_context, mcqa_single, mcqa_multi, "
        "hallucination, conversational_qa, pairwise)",
    )


def test_conflicting_duplicate_ids_in_one_file(seeded: Store, write: Writer) -> None:
    rows = [{**GOOD, "id": "x"}, {**GOOD, "id": "y"}, {**GOOD, "id": "x", "question": "other"}]
    path = write("dup.jsonl", rows)
    _fails(
        seeded,
        path,
        f"{path}: line 3 (record 3): field 'id': duplicate id 'x': record 1 "
        "has this id with different content",
    )


def test_conflicting_id_with_a_stored_item(seeded: Store, write: Writer) -> None:
    import_path(seeded, write("v1.jsonl", [{**GOOD, "id": "x"}]), dataset="d", system="s")
    path = write("v2.jsonl", [{**GOOD, "id": "x", "gt_answer": "changed"}])
    _fails(
        seeded,
        path,
        f"{path}: line 1 (record 1): field 'id': duplicate id 'x': an item "
        "already stored in this dataset has this id with different content",
        dataset="d",
    )


def test_same_id_same_content_is_fine(seeded: Store, write: Writer) -> None:
    rows = [{**GOOD, "id": "x", "system": "s1"}, {**GOOD, "id": "x", "system": "s2"}]
    report = import_path(seeded, write("same.jsonl", rows), dataset="d")
    assert report.added["responses"] == 2


@pytest.mark.parametrize(
    "records, message",
    [
        (
            [{"question": "q", "options": ["a", "b"], "gold": "C", "answer": "C"}],
            "line 1 (record 1): field 'gold': letter C is not among the 2 options",
        ),
        (
            [{"question": "q", "options": ["a", "b"], "gold": [], "answer": "A"}],
            "line 1 (record 1): field 'gold': names no letter",
        ),
        (
            [{"question": "q", "options": ["a", "b"], "gold": "maybe", "answer": "A"}],
            'line 1 (record 1): field \'gold\': expected option letters such as "B", "A, C" or '
            '["A", "C"], got "maybe"',
        ),
        (
            [{"question": "q", "candidate": "c", "label": "perhaps", "prediction": "no"}],
            "line 1 (record 1): field 'label': expected true/yes/hallucinated/1 or "
            'false/no/faithful/0, got "perhaps"',
        ),
        (
            [{"history": "hi", "question": "q", "answer": "a"}],
            "line 1 (record 1): field 'history': expected a list of turns {\"role\": "
            '"user"|"assistant", "content": text} or of strings',
        ),
        (
            [
                {
                    "question": "q",
                    "answer_a": "a",
                    "answer_b": "b",
                    "system_a": "x",
                    "system_b": "y",
                    "winner": "C",
                }
            ],
            "line 1 (record 1): field 'winner': expected A, B or tie, got \"C\"",
        ),
    ],
)
def test_bad_values_per_format(seeded: Store, write: Writer, records: list, message: str) -> None:
    path = write("bad.jsonl", records)
    _fails(seeded, path, f"{path}: {message}", system="s")


@pytest.mark.parametrize(
    "extra, message",
    [
        ({"value": 7}, "field 'value': value 7.0 is outside the scale 1.0–5.0"),
        ({"value": None}, "field 'value': is missing (an unscored rating needs unscored_reason)"),
        (
            {"rater_kind": "robot"},
            "field 'rater_kind': expected llm, human or reference, got \"robot\"",
        ),
        ({"value": "high"}, "field 'value': expected a number, got \"high\""),
        (
            {"selection": "worst"},
            "field 'selection': expected random, census, targeted or unknown, got \"worst\"",
        ),
        (
            {"selection": "random", "inclusion_probability": 1.5},
            "field 'inclusion_probability': expected a probability in (0, 1], got 1.5",
        ),
        (
            {"selection": "random", "inclusion_probability": 0},
            "field 'inclusion_probability': expected a probability in (0, 1], got 0",
        ),
        ({"blind": "maybe"}, "field 'blind': expected true/yes/1 or false/no/0, got \"maybe\""),
    ],
)
def test_bad_ratings(seeded: Store, write: Writer, extra: dict, message: str) -> None:
    path = write("ratings.jsonl", [rating_record(), rating_record(**extra)])
    _fails(seeded, path, f"{path}: line 2 (record 2): {message}")


def test_record_that_is_not_an_object(seeded: Store, tmp_path: Path) -> None:
    path = _raw(tmp_path, "list.jsonl", b'{"question": "q", "answer": "a"}\n[1, 2]\n')
    _fails(seeded, path, f"{path}: line 2 (record 2): expected a JSON object, got a list")


@pytest.mark.parametrize("name, data", [("empty.jsonl", b""), ("empty.json", b"[]")])
def test_empty_file(seeded: Store, tmp_path: Path, name: str, data: bytes) -> None:
    path = _raw(tmp_path, name, data)
    _fails(seeded, path, f"{path}: the file holds no records")


def test_unknown_format(seeded: Store, write: Writer) -> None:
    path = write("what.jsonl", [{"foo": 1, "bar": "x"}])
    error = _fails(
        seeded,
        path,
        f"{path}: cannot tell its format from its columns (foo, bar); "
        "pass --format (mt_bench, mt_bench_pair, nq_open, llmbar, alpaca_eval, "
        "pandalm, ratings, preferences, pairwise, mcqa, "
        "hallucination, conversational, rag) or --map TARGET=SOURCE",
    )
    assert error.record is None


def test_map_of_a_missing_column(seeded: Store, write: Writer) -> None:
    path = write("m.jsonl", [GOOD])
    _fails(
        seeded,
        path,
        f"{path}: field 'question': the file has no column 'prompt' to read it from "
        "(it has: question, answer, gt_answer, contexts); fix --map question=prompt",
        mapping={"question": "prompt"},
    )


def test_a_bad_file_in_a_folder_writes_nothing(
    seeded: Store, write: Writer, tmp_path: Path
) -> None:
    (tmp_path / "runs").mkdir()
    write("runs/a-good.jsonl", [GOOD, {**GOOD, "question": "q2"}])
    bad = write("runs/b-bad.jsonl", [GOOD, {"question": "q3"}])
    _fails(seeded, tmp_path / "runs", f"{bad}: line 2 (record 2): field 'answer': is missing")


def test_pandalm_judge_file_needs_its_pairs(seeded: Store, write: Writer) -> None:
    path = write(
        "gpt-3.5-turbo-testset-v1.json",
        [{"idx": 4, "gpt_result": "1", "gpt_reason": "r", "gpt_reference": "x"}],
    )
    _fails(
        seeded,
        path,
        f"{path}: record 1 (index 0): field 'idx': idx 4 has no pair in dataset "
        "'gpt-3.5-turbo-testset-v1'; import it with PandaLM's testset-v1.json (their folder), "
        "or pass --dataset NAME of the dataset that holds its pairs",
    )


def test_bad_pandalm_label(seeded: Store, write: Writer) -> None:
    pair = {
        "idx": 0,
        "motivation_app": "m",
        "cmp_key": "x_y",
        "instruction": "i",
        "input": "",
        "response1": "a",
        "response2": "b",
        "annotator1": 1,
        "annotator2": 2,
        "annotator3": 0,
    }
    path = write("testset.json", [pair, {**pair, "idx": 1, "annotator2": 5}])
    _fails(
        seeded, path, f"{path}: record 2 (index 1): field 'annotator2': expected 0 (tie), 1 or 2"
    )


def test_error_attributes_for_callers(seeded: Store, write: Writer) -> None:
    path = write("attrs.jsonl", [GOOD, {"question": "q", "answer": 5}])
    error = _fails(
        seeded,
        path,
        f"{path}: line 2 (record 2): field 'answer': expected a string, got a number",
        fmt="rag",
    )
    assert (error.record, error.line, error.field) == (2, 2, "answer")
    assert error.problem == "expected a string, got a number"


def test_failed_import_creates_no_dataset(seeded: Store, write: Writer) -> None:
    path = write("x.jsonl", [{"question": "q", "answer": "a", "task_type": "nope"}])
    with pytest.raises(IngestError):
        import_path(seeded, path, dataset="brand-new")
    assert [d.name for d in seeded.list_datasets()] == ["d"]


def test_a_bad_record_deep_in_a_big_file_is_numbered_in_file_order(
    store: Store, tmp_path: Path
) -> None:
    from bench.bench_import import generate_rag_jsonl

    path = generate_rag_jsonl(tmp_path / "big.jsonl", 60_000)  # ~100 MB: a parallel read
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[50_000] = lines[50_000].replace('"contexts": [', '"contexts": 7, "was": [', 1)
    path.write_text("".join(lines), encoding="utf-8")
    _fails(
        store,
        path,
        f"{path}: line 50001 (record 50001): field 'contexts': expected a "
        "list of strings, got a number",
        system="s",
    )


def test_a_wrong_type_beyond_the_type_sample(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Files over 256 MB are typed from their first 20,480 records; a list where the sample
    # saw strings then fails in DuckDB's reader, and our scan names the record.
    from dashboard.ingest import read_sql

    monkeypatch.setattr(read_sql, "FULL_SAMPLE_BYTES", 0)
    rows = [{"question": f"q{i}", "answer": "a", "contexts": ["c"]} for i in range(25_000)]
    rows[24_000]["contexts"] = "one passage"
    path = write_jsonl(tmp_path / "sampled.jsonl", rows)
    _fails(
        store,
        path,
        f"{path}: line 24001 (record 24001): field 'contexts': expected a "
        "list of strings, got a string",
        system="s",
    )


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_a_labels_provenance_imports(store: Store, write: Writer, suffix: str) -> None:
    records = [
        rating_record(selection="Random", inclusion_probability=0.2, campaign="c1", blind=True),
        rating_record(question="q2", selection="census", blind="no"),
        rating_record(question="q3"),
    ]
    if suffix != ".jsonl":  # a column holds one type: the flags as the file kind writes them
        records[1]["blind"] = False
    import_path(store, write(f"labels{suffix}", records), dataset="d")
    rows = query(
        store,
        "SELECT i.question, g.selection, g.inclusion_probability, g.campaign, g.blind "
        "FROM ratings g JOIN responses r USING (response_id) JOIN items i USING (item_id) "
        "ORDER BY i.question",
    )
    assert rows == [
        ("q", "random", 0.2, "c1", True),
        ("q2", "census", None, None, False),
        ("q3", None, None, None, None),
    ]
