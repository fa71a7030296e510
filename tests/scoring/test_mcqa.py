"""scoring.mcqa: letter extraction, accuracy and IoU, on hand-made cases."""

import math

import pytest

from scoring.mcqa import accuracy, extract_choices, iou

OPTIONS = ("Paris", "London", "Berlin", "Madrid")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The answer is B and D", ("B", "D")),
        ("**C**", ("C",)),
        ("A, C", ("A", "C")),
        ("C", ("C",)),
        ("(b)", ("B",)),
        ("Answer: A", ("A",)),
        ("The correct options are C, A.", ("A", "C")),
        ("A is correct.", ("A",)),
        ("I think the answer is D.", ("D",)),
        ("A good answer would be B.", ("B",)),  # "A good": the article, not a choice
        ("Options A and B are wrong. The answer is C.", ("C",)),  # last marker wins
        ("Berlin", ("C",)),  # no letter, but the text is option C
        ("I don't know", ()),
        ("", ()),
        ("The answer is E", ()),  # E is not an option
    ],
)
def test_extract_choices(text: str, expected: tuple[str, ...]) -> None:
    assert extract_choices(text, OPTIONS) == expected


def test_extract_choices_accepts_letters_or_count() -> None:
    assert extract_choices("B, D", ["A", "B", "C", "D"]) == ("B", "D")
    assert extract_choices("B, D", 3) == ("B",)
    with pytest.raises(ValueError):
        extract_choices("A", 27)


def test_accuracy() -> None:
    # 2 of 3 equal -> 2/3
    assert accuracy(["A", "B", "C"], ["A", "B", "D"]) == pytest.approx(2 / 3)
    # multi-answer items compare as sets: {A, C} == {C, A}; {B} != {B, D}
    assert accuracy([("A", "C"), ("B",)], [["C", "A"], ["B", "D"]]) == 0.5
    assert math.isnan(accuracy([], []))
    with pytest.raises(ValueError):
        accuracy(["A"], [])


def test_iou() -> None:
    # {A, B, C} vs {B, C, D}: intersection {B, C} = 2, union {A, B, C, D} = 4 -> 0.5
    assert iou("ABC", "BCD") == 0.5
    assert iou(["A"], ["A"]) == 1.0
    assert iou(["A"], ["B"]) == 0.0
    assert iou([], ["A"]) == 0.0
    assert iou([], []) == 1.0  # both empty: defined as full agreement
