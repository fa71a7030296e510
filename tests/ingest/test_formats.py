"""The formats judgeboard knows without a mapping, in every file kind, and --map."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dashboard.ingest import import_path
from dashboard.store import Store
from tests.ingest.conftest import Writer, query
from tests.ingest.identity import item_id, response_id

RAG = [
    {
        "question": "What does NDVI measure?",
        "gt_answer": "Vegetation greenness.",
        "gt_context": ["NDVI compares red and NIR.", "It ranges from -1 to 1."],
        "document": "ndvi.pdf",
        "contexts": ["NDVI is computed from red and NIR bands."],
        "answer": "How green the vegetation is.",
    },
    {
        "question": "Which band sees through clouds?",
        "gt_answer": ["SAR", "radar"],
        "gt_context": "",
        "document": None,
        "contexts": [],
        "answer": "Synthetic aperture radar.",
        "note": "extra",
    },
]


def _items(store: Store) -> dict[str, tuple]:
    rows = query(
        store,
        "SELECT question, item_id, task_type, reference_answers, "
        "reference_context, document, metadata FROM items ORDER BY question",
    )
    return {r[0]: r[1:] for r in rows}


@pytest.mark.parametrize("kind", ["jsonl", "json", "csv", "parquet"])
def test_rag_file_in_every_kind(store: Store, write: Writer, kind: str) -> None:
    records = RAG
    if kind == "parquet":  # a Parquet column has one type: lists throughout
        records = [
            {
                **r,
                "gt_answer": [r["gt_answer"]]
                if isinstance(r["gt_answer"], str)
                else r["gt_answer"],
                "gt_context": [r["gt_context"]]
                if isinstance(r["gt_context"], str)
                else r["gt_context"],
                "note": r.get("note"),
            }
            for r in RAG
        ]
    path = write(f"answers.{kind}", records)
    report = import_path(store, path, dataset="eo", system="sys")
    assert report.files[0].format == "rag"
    assert report.added["items"] == 2 and report.added["responses"] == 2
    items = _items(store)
    ndvi = items["What does NDVI measure?"]
    assert ndvi[1] == "open_qa_context"  # gt_context present and non-empty
    assert ndvi[2] == ["Vegetation greenness."]  # a single reference becomes a list
    assert ndvi[3] == "NDVI compares red and NIR.\n\nIt ranges from -1 to 1."
    sar = items["Which band sees through clouds?"]
    assert sar[1] == "open_qa" and sar[2] == ["SAR", "radar"] and sar[4] is None
    assert json.loads(sar[5])["note"] == "extra"
    # The SQL ids are the Python rule's ids, whatever the file kind.
    expected = item_id(
        dataset="eo",
        task_type="open_qa_context",
        question="What does NDVI measure?",
        reference_answers=["Vegetation greenness."],
        reference_context="NDVI compares red and NIR.\n\nIt ranges from -1 to 1.",
        document="ndvi.pdf",
    )
    assert ndvi[0] == expected
    answers = dict(query(store, "SELECT item_id, response_id FROM responses"))
    assert answers[expected] == response_id(expected, "sys", "How green the vegetation is.")


def test_reimport_adds_nothing_and_system_defaults_to_file_name(
    store: Store, write: Writer
) -> None:
    path = write("my-system.jsonl", RAG)
    first = import_path(store, path)
    second = import_path(store, path)
    assert first.added["responses"] == 2
    assert second.added == {"items": 0, "responses": 0, "ratings": 0, "preferences": 0}
    assert second.skipped["items"] == 2 and second.skipped["responses"] == 2
    assert query(store, "SELECT DISTINCT system, dataset FROM responses") == [
        ("my-system", "my-system")
    ]


def test_same_question_in_two_datasets_is_two_items(store: Store, write: Writer) -> None:
    path = write("a.jsonl", RAG[:1])
    import_path(store, path, dataset="one")
    import_path(store, path, dataset="two")
    assert query(store, "SELECT count(*), count(DISTINCT item_id) FROM items") == [(2, 2)]


def test_several_systems_share_items(store: Store, write: Writer) -> None:
    rows = [{**RAG[0], "system": s, "answer": f"answer of {s}", "id": "q1"} for s in "xyz"]
    report = import_path(store, write("runs.jsonl", rows), dataset="d")
    assert report.added["items"] == 1 and report.added["responses"] == 3
    assert query(store, "SELECT external_id FROM items") == [("q1",)]


def test_mcqa_letters_and_options(store: Store, write: Writer) -> None:
    rows = [
        {
            "question": "Which sensor is optical?",
            "options": ["SAR", "MSI", "Altimeter"],
            "gold": "B",
            "answer": "The answer is B",
        },
        {
            "question": "Which are radars?",
            "options": {"A": "SAR", "B": "MSI", "C": "RA"},
            "gold": "A, C",
            "answer": "A and C",
        },
        {
            "question": "Which are bands?",
            "options": ["red", "NIR", "SWIR", "cat"],
            "gold": ["a", "b", "c"],
            "answer": "A, B, C",
        },
    ]
    import_path(store, write("mcqa.jsonl", rows), dataset="m", system="s")
    got = {
        q: (t, o, g)
        for q, t, o, g in query(
            store, "SELECT question, task_type, options, gold_letters FROM items"
        )
    }
    assert got["Which sensor is optical?"] == ("mcqa_single", ["SAR", "MSI", "Altimeter"], ["B"])
    assert got["Which are radars?"] == ("mcqa_multi", ["SAR", "MSI", "RA"], ["A", "C"])
    assert got["Which are bands?"][2] == ["A", "B", "C"]


def test_hallucination_labels(store: Store, write: Writer) -> None:
    labels = [True, "yes", "hallucinated", 1, False, "no", "faithful", 0]
    rows = [
        {
            "question": f"q{i}",
            "context": "ctx",
            "candidate": f"text {i}",
            "label": label,
            "prediction": "Yes, it is hallucinated" if i % 2 else "no",
        }
        for i, label in enumerate(labels)
    ]
    import_path(store, write("halu.json", rows), dataset="h", system="s")
    got = dict(query(store, "SELECT question, hallucination_gold FROM items"))
    assert [got[f"q{i}"] for i in range(8)] == [True] * 4 + [False] * 4
    assert query(store, "SELECT DISTINCT task_type FROM items") == [("hallucination",)]
    assert query(store, "SELECT candidate_answer FROM items WHERE question = 'q0'") == [("text 0",)]
    assert sorted(r[0] for r in query(store, "SELECT DISTINCT answer FROM responses")) == [
        "Yes, it is hallucinated",
        "no",
    ]


def test_conversational_history_forms_agree(store: Store, write: Writer) -> None:
    turns = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
    objects = {
        "history": turns,
        "question": "And Sentinel-2?",
        "gold_answers": ["An optical mission."],
        "answer": "Optical.",
        "id": "c1",
    }
    strings = {**objects, "history": ["Hi", "Hello"], "id": "c2"}
    import_path(store, write("conv.jsonl", [objects, strings]), dataset="c", system="s")
    rows = query(
        store, "SELECT external_id, item_id, history, task_type FROM items ORDER BY external_id"
    )
    assert json.loads(rows[0][2]) == turns == json.loads(rows[1][2])
    assert rows[0][3] == "conversational_qa"
    assert rows[0][1] == item_id(
        dataset="c",
        external_id="c1",
        task_type="conversational_qa",
        question="And Sentinel-2?",
        history=turns,
        reference_answers=["An optical mission."],
    )


def test_pairwise_with_winner(store: Store, write: Writer) -> None:
    rows = [
        {
            "question": "q",
            "answer_a": "a1",
            "answer_b": "b1",
            "system_a": "x",
            "system_b": "y",
            "winner": "B",
            "rater": "ann",
        },
        {"question": "q2", "answer_a": "a2", "answer_b": "b2", "system_a": "x", "system_b": "y"},
    ]
    report = import_path(store, write("pairs.csv", rows), dataset="p")
    assert report.added == {"items": 2, "responses": 4, "ratings": 0, "preferences": 1}
    [(verdict, shown_first, kind, rater, a_system)] = query(
        store,
        """
        SELECT p.verdict, p.shown_first, p.rater_kind, p.rater, r.system
        FROM preferences p JOIN responses r ON r.response_id = p.response_a""",
    )
    assert (verdict, shown_first, kind, rater, a_system) == ("B", "A", "human", "ann", "x")


def _rating(value: float | None, **extra: object) -> dict[str, object]:
    return {
        "dataset": "r",
        "task_type": "open_qa",
        "question": "q",
        "system": "s",
        "answer": "a",
        "rater_kind": "human",
        "rater": "ana",
        "rubric": "likert-rag",
        "rubric_version": "1",
        "value": value,
        "scale_low": 1,
        "scale_high": 5,
        **extra,
    }


def test_ratings_chain_and_unscored(store: Store, write: Writer) -> None:
    import_path(store, write("r1.jsonl", [_rating(2, created_utc="2024-01-01T10:00:00")]))
    import_path(
        store,
        write(
            "r2.jsonl",
            [
                _rating(4, created_utc="2024-01-02T10:00:00"),
                _rating(None, unscored_reason="could not read it", rater="bo"),
            ],
        ),
    )
    rows = query(
        store,
        "SELECT value, supersedes IS NOT NULL, unscored_reason "
        "FROM ratings ORDER BY created_utc, rater",
    )
    assert rows[0][:2] == (2.0, False)
    assert (4.0, True, None) in rows and (None, False, "could not read it") in rows
    current = query(store, "SELECT rater, value FROM current_ratings ORDER BY rater")
    assert current == [("ana", 4.0), ("bo", None)]
    # The item and response were found, not duplicated.
    assert query(store, "SELECT count(*) FROM responses") == [(1,)]


def test_preferences_format(store: Store, write: Writer) -> None:
    row = {
        "question": "q",
        "system_a": "x",
        "answer_a": "a",
        "system_b": "y",
        "answer_b": "b",
        "rater_kind": "llm",
        "rater": "judge",
        "rubric": "pref",
        "verdict": "tie",
        "shown_first": "B",
    }
    report = import_path(store, write("prefs.parquet", [row]), dataset="p")
    assert report.files[0].format == "preferences"
    assert query(store, "SELECT verdict, shown_first, rubric_version FROM preferences") == [
        ("tie", "B", "1")
    ]
    assert query(store, "SELECT DISTINCT task_type FROM items") == [("pairwise",)]


def test_map_renames_columns(store: Store, write: Writer) -> None:
    rows = [{"prompt": "What is SAR?", "reference": "Radar.", "output": "A radar."}]
    path = write("mine.csv", rows)
    report = import_path(
        store,
        path,
        dataset="d",
        system="s",
        mapping={"question": "prompt", "gt_answer": "reference", "answer": "output"},
    )
    assert report.files[0].format == "rag"
    assert query(store, "SELECT question, reference_answers, metadata FROM items") == [
        ("What is SAR?", ["Radar."], None)
    ]
    assert query(store, "SELECT answer FROM responses") == [("A radar.",)]


def test_mixed_types_in_one_column(store: Store, write: Writer) -> None:
    rows = [
        {"question": "q1", "gt_answer": "one", "answer": "a", "id": 7},
        {"question": "q2", "gt_answer": ["two", "deux"], "answer": "b", "id": "x8"},
    ]
    import_path(store, write("mixed.jsonl", rows), dataset="d", system="s")
    assert query(store, "SELECT external_id, reference_answers FROM items ORDER BY 1") == [
        ("7", ["one"]),
        ("x8", ["two", "deux"]),
    ]


def test_folder_imports_its_files(store: Store, write: Writer, tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    write("runs/sys-a.jsonl", RAG)
    write("runs/sys-b.jsonl", RAG)
    (folder / "notes.txt").write_text("not data")
    write("runs/other.json", [{"something": 1}])
    report = import_path(store, folder)
    assert report.datasets == ("runs",)
    assert report.added["items"] == 2 and report.added["responses"] == 4
    assert report.ignored == (str(folder / "other.json"),)


def test_columns_that_are_null_or_empty_everywhere(store: Store, write: Writer) -> None:
    # DuckDB types such columns "NULL" and JSON[]: they still import as absent and empty.
    rows = [
        {"question": f"q{i}", "answer": "a", "document": None, "contexts": [], "gt_answer": None}
        for i in range(3)
    ]
    import_path(store, write("sparse.jsonl", rows), dataset="d", system="s")
    assert query(store, "SELECT DISTINCT document, reference_answers FROM items") == [(None, None)]
    assert query(store, "SELECT DISTINCT contexts FROM responses") == [([],)]


def test_exact_duplicates_are_counted(store: Store, write: Writer) -> None:
    record = {"question": "q", "answer": "a", "note": "x"}
    rows = [record, record, {**record, "note": "y"}, record]
    report = import_path(store, write("dups.jsonl", rows), dataset="d", system="s")
    # Two records repeat the first exactly; the third differs in its metadata (kept as the
    # same response: its id is its item, system and answer).
    assert report.duplicates == 2
    assert report.lines()[0].endswith(
        "added 1 items, 1 responses (2 exact duplicate records dropped)"
    )


def test_exact_duplicates_of_a_published_set_are_counted(store: Store, write: Writer) -> None:
    record = {"input": "i", "output_1": "a", "output_2": "b", "label": 1}
    report = import_path(store, write("set.json", [record, record]))
    assert report.files[0].format == "llmbar" and report.duplicates == 1
    assert report.added["preferences"] == 1
