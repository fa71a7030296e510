"""`--map`: renames, constants and value mappings, parsed from text and applied in SQL."""

from __future__ import annotations

import pytest

from dashboard.ingest import IngestError, import_path
from dashboard.ingest.mapping import FieldMap, MappingSyntaxError, parse_field_map, parse_mapping
from dashboard.store import Store
from tests.ingest.conftest import Writer, query, snapshot

LABELS = [
    {"prompt": "q1", "left": "a1", "right": "b1", "label": "A>B"},
    {"prompt": "q2", "left": "a2", "right": "b2", "label": "B>A"},
    {"prompt": "q3", "left": "a3", "right": "b3", "label": "A=B"},
]
PAIR_MAP = {
    "question": "prompt",
    "answer_a": "left",
    "answer_b": "right",
    "system_a": FieldMap("system_a", constant="gpt-4o"),
    "system_b": FieldMap("system_b", constant="claude"),
}


@pytest.mark.parametrize(
    "option, expected",
    [
        ("question=prompt", FieldMap("question", source="prompt")),
        (" question = prompt ", FieldMap("question", source="prompt")),
        ('system_a="gpt-4o"', FieldMap("system_a", constant="gpt-4o")),
        ("system_a='gpt 4o'", FieldMap("system_a", constant="gpt 4o")),
        (r'rater="say \"hi\""', FieldMap("rater", constant='say "hi"')),
        ('rubric=""', FieldMap("rubric", constant="")),
        (
            "winner=label{A>B:A,B>A:B,A=B:tie}",
            FieldMap("winner", source="label", values=(("A>B", "A"), ("B>A", "B"), ("A=B", "tie"))),
        ),
        (
            'winner=label{"a, b":A, c : B ,err:}',
            FieldMap("winner", source="label", values=(("a, b", "A"), ("c", "B"), ("err", None))),
        ),
    ],
)
def test_parse_each_form(option: str, expected: FieldMap) -> None:
    parsed = parse_field_map(option)
    assert parsed == expected
    assert parse_field_map(parsed.spec()) == parsed  # spec() writes what parses back


@pytest.mark.parametrize(
    "option, says",
    [
        ("question", "expected TARGET=SOURCE"),
        ("question=", "expected TARGET=SOURCE"),
        ('system_a="gpt-4o', "the quote is not closed"),
        ('system_a="gpt"4o', "text after the closing quote"),
        ("winner=label{A>B}", "expected FROM:TO pairs"),
        ("winner=label{A>B:A", "must end with '}'"),
        ("winner=label{A:A,A:B}", "the value 'A' is mapped twice"),
        ("winner={A:A}", "name the column before '{'"),
        ("winner=label{}", "names no value"),
    ],
)
def test_syntax_errors_say_what_was_expected(option: str, says: str) -> None:
    with pytest.raises(MappingSyntaxError, match=says.replace("{", r"\{").replace("}", r"\}")):
        parse_field_map(option)


def test_a_field_mapped_twice_is_an_error() -> None:
    with pytest.raises(MappingSyntaxError, match="field 'question' is mapped twice"):
        parse_mapping(["question=a", "question=b"])


@pytest.mark.parametrize("kind", ["jsonl", "json", "csv", "parquet"])
def test_value_mapping_and_constants_in_every_kind(store: Store, write: Writer, kind: str) -> None:
    path = write(f"labels.{kind}", LABELS)
    mapping = {**PAIR_MAP, **parse_mapping(["winner=label{A>B:A,B>A:B,A=B:tie}"])}
    report = import_path(store, path, dataset="d", mapping=mapping)
    assert report.files[0].format == "pairwise"
    rows = query(
        store,
        """
        SELECT i.question, p.verdict, a.system, b.system, a.answer FROM preferences p
        JOIN items i USING (item_id) JOIN responses a ON a.response_id = p.response_a
        JOIN responses b ON b.response_id = p.response_b ORDER BY 1""",
    )
    assert rows == [
        ("q1", "A", "gpt-4o", "claude", "a1"),
        ("q2", "B", "gpt-4o", "claude", "a2"),
        ("q3", "tie", "gpt-4o", "claude", "a3"),
    ]
    # The mapped column is the winner, not item metadata; the constants replace no column.
    assert query(store, "SELECT DISTINCT metadata FROM items") == [(None,)]


def test_numbers_map_by_value_and_an_empty_target_maps_to_nothing(
    store: Store, write: Writer
) -> None:
    rows = [
        {"prompt": "q1", "left": "a", "right": "b", "score": 1},
        {"prompt": "q2", "left": "a", "right": "b", "score": 2.0},  # 2.0 matches "2"
        {"prompt": "q3", "left": "a", "right": "b", "score": 0},  # 0 = no verdict
        {"prompt": "q4", "left": "a", "right": "b", "score": None},  # null stays null
    ]
    mapping = {**PAIR_MAP, **parse_mapping(["winner=score{1:A,2:B,0:}"])}
    report = import_path(store, write("scores.jsonl", rows), dataset="d", mapping=mapping)
    assert report.added["preferences"] == 2
    verdicts = query(
        store,
        "SELECT i.question, p.verdict FROM preferences p JOIN items i USING (item_id) ORDER BY 1",
    )
    assert verdicts == [("q1", "A"), ("q2", "B")]


def test_a_constant_fills_a_required_field_and_a_list_field(store: Store, write: Writer) -> None:
    rows = [{"question": "q", "answer": "a"}]
    mapping = parse_mapping(['system="mine"', 'contexts="[\\"p1\\", \\"p2\\"]"', 'gt_answer="r"'])
    import_path(store, write("c.jsonl", rows), dataset="d", mapping=mapping)
    assert query(store, "SELECT system, contexts FROM responses") == [("mine", ["p1", "p2"])]
    assert query(store, "SELECT reference_answers FROM items") == [(["r"],)]


def test_a_value_with_no_mapping_names_the_file_record_and_column(
    store: Store, write: Writer
) -> None:
    path = write("labels.jsonl", LABELS)
    mapping = {**PAIR_MAP, **parse_mapping(["winner=label{A>B:A,B>A:B}"])}
    before = snapshot(store)
    with pytest.raises(IngestError) as caught:
        import_path(store, path, dataset="d", mapping=mapping)
    error = caught.value
    assert str(error) == (
        f"{path}: line 3 (record 3): field 'label': the value 'A=B' has no mapping "
        "(mapped: 'A>B', 'B>A'); add 'A=B' to --map 'winner=label{A>B:A,B>A:B}'"
    )
    assert error.page_message.endswith("; map the value 'A=B' of column label")
    assert (error.record, error.field) == (3, "label")
    assert snapshot(store) == before


def test_a_mapped_value_is_checked_as_its_field(store: Store, write: Writer) -> None:
    path = write("labels.csv", LABELS)
    mapping = {**PAIR_MAP, **parse_mapping(["winner=label{A>B:A,B>A:B,A=B:maybe}"])}
    with pytest.raises(IngestError) as caught:
        import_path(store, path, dataset="d", mapping=mapping)
    assert str(caught.value) == (
        f"{path}: row 3: field 'label': expected A, B or tie, got \"maybe\""
    )


def test_a_mapping_does_not_apply_to_a_published_set(store: Store, write: Writer) -> None:
    path = write("set.json", [{"input": "i", "output_1": "a", "output_2": "b", "label": 1}])
    with pytest.raises(IngestError, match="a file of LLMBar, which is imported as published"):
        import_path(store, path, mapping={"question": "input"})
