"""scoring.judge: rating and verdict parsing, normalization and panel aggregation."""

import math
import warnings

import numpy as np
import pytest

from scoring.judge import (
    PanelScore,
    ParseResult,
    PreferenceParse,
    normalize,
    panel_aggregate,
    panel_aggregate_matrix,
    parse_preference,
    parse_rating,
    parse_rating_result,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Rating: 4", 4.0),
        ('"Rating": 4', 4.0),
        ("[[4]]", 4.0),
        ("4/5", 4.0),
        ('{"score": 4}', 4.0),
        ('{"score": "3", "reason": "ok"}', 3.0),
        ("The answer is fine.\n\nRating: [[2]]", 2.0),
        ("[Rating: 3]", 3.0),
        ("score = 5", 5.0),
        ("Overall: 4/5", 4.0),
        ("I'd give it 3/5.", 3.0),
        ("\n[5]\n", 5.0),
        ("4", 4.0),
        (" 2.0 ", 2.0),
        ("Rating: 4.5", 4.5),
        # the last explicit marker wins
        ("Rating: [[2]] at first, but on reflection Rating: [[5]]", 5.0),
        ("[[1]] ... [[3]] ... 4/5", 4.0),
    ],
)
def test_parse_rating_markers(text: str, expected: float) -> None:
    assert parse_rating(text, low=1, high=5) == expected
    assert parse_rating_result(text, low=1, high=5) == ParseResult(expected, None)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty output"),
        ("   \n", "empty output"),
        (None, "empty output"),
        ("A thoughtful answer overall.", "no rating marker found"),
        ("I would rate it 4.", "no rating marker found"),  # prose is not a marker
        ("Rating: 7", "rating 7 outside scale 1–5"),
        ("Rating: 0", "rating 0 outside scale 1–5"),
        ("[[4]] then Rating: 9", "rating 9 outside scale 1–5"),  # last marker, off scale
        ("Rating: 8/10", "rating 8/10 does not match scale 1–5"),
        ("Confidence: 4/5", "no rating marker found"),  # another label's fraction
        ("x = a + 3/5 - b", "no rating marker found"),  # arithmetic
        ("on 12/5/2024 we met", "no rating marker found"),  # a date
        ("first = array[0]", "no rating marker found"),
        ("```python\nx = data[[3]]\n```\nLooks fine.", "no rating marker found"),
        ("Use `Rating: [[5]]` as the format.", "no rating marker found"),  # inline code
    ],
)
def test_parse_rating_unscored(text: str | None, reason: str) -> None:
    assert parse_rating_result(text, low=1, high=5) == ParseResult(None, reason)
    assert parse_rating(text, low=1, high=5) is None


def test_bracketed_number_in_code_is_not_a_marker() -> None:
    text = (
        "The function is mostly right.\n\n```python\ndef first(array):\n"
        "    return array[0]\n```\n\n[0]\n"
    )
    # "[0]" alone on its line is a marker, but off the 1-10 scale; array[0] is not read.
    unscored = ParseResult(None, "rating 0 outside scale 1–10")
    assert parse_rating_result(text, low=1, high=10) == unscored
    assert parse_rating(text + "\nRating: [[6]]", low=1, high=10) == 6.0


def test_parse_rating_zero_based_scale_and_bad_scale() -> None:
    assert parse_rating("Score: 0", low=0, high=1) == 0.0
    assert parse_rating("1/1", low=0, high=1) == 1.0
    with pytest.raises(ValueError):
        parse_rating("Rating: 3", low=5, high=1)


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("[[A]]", "A"),
        ("[[B]]", "B"),
        ("[[C]]", "tie"),
        ("Verdict: A", "A"),
        ('{"winner": "B"}', "B"),
        ("tie", "tie"),
        ("Tie.", "tie"),
        ("B", "B"),
        ("**A**", "A"),
        ("Winner: Assistant B", "B"),
        ("Winner: Output (a)", "A"),
        ("Final verdict: a tie", "tie"),
        ('{"verdict": "tie"}', "tie"),
        ("Assistant A is clearer... [[A]] ... wait, on reflection [[B]]", "B"),
    ],
)
def test_parse_preference(text: str, verdict: str) -> None:
    assert parse_preference(text) == PreferenceParse(verdict, None)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty output"),
        (None, "empty output"),
        ("Both answers have merits.", "no verdict marker found"),
        ("A good answer would cite sources.", "no verdict marker found"),
        ("```\nprint([[A]])\n```", "no verdict marker found"),
    ],
)
def test_parse_preference_unscored(text: str | None, reason: str) -> None:
    assert parse_preference(text) == PreferenceParse(None, reason)


def test_normalize() -> None:
    # (4 - 1) / (5 - 1) = 0.75
    assert normalize(4, low=1, high=5) == 0.75
    assert normalize(1, low=1, high=5) == 0.0
    assert normalize(10, low=1, high=10) == 1.0
    assert normalize(None, low=1, high=5) is None
    assert math.isnan(normalize(math.nan, low=1, high=5))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        normalize(6, low=1, high=5)
    with pytest.raises(ValueError):
        normalize(1, low=1, high=1)


def test_panel_aggregate_hand_computed() -> None:
    # used [0.25, 1.0, 0.5]: mean = 1.75 / 3, median = 0.5; two unscored skipped
    scores = [0.25, None, 1.0, math.nan, 0.5]
    mean = panel_aggregate(scores, method="mean")
    assert mean.value == pytest.approx(1.75 / 3)
    assert (mean.n_used, mean.n_skipped) == (3, 2)
    assert panel_aggregate(scores, method="median") == PanelScore(0.5, 3, 2)
    # even count: median of [0.2, 0.4] is their mean 0.3
    assert panel_aggregate([0.4, 0.2], method="median").value == pytest.approx(0.3)


def test_panel_aggregate_degenerate() -> None:
    for method in ("mean", "median"):
        none_scored = panel_aggregate([None, None], method=method)
        assert math.isnan(none_scored.value) and none_scored.n_skipped == 2
        empty = panel_aggregate([], method=method)
        assert math.isnan(empty.value) and (empty.n_used, empty.n_skipped) == (0, 0)
        assert panel_aggregate([0.7], method=method) == PanelScore(0.7, 1, 0)
    with pytest.raises(ValueError):
        panel_aggregate([0.5], method="mode")


@pytest.mark.parametrize("method", ["mean", "median"])
def test_panel_aggregate_matrix_matches_numpy(method: str) -> None:
    rng = np.random.default_rng(0)
    m = rng.random((500, 5))
    m[rng.random(m.shape) < 0.3] = np.nan
    m[7] = np.nan  # a response no judge scored
    result = panel_aggregate_matrix(m, method=method)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # nanmean of an all-nan row
        expected = np.nanmean(m, axis=1) if method == "mean" else np.nanmedian(m, axis=1)
    np.testing.assert_allclose(result.values, expected, equal_nan=True)
    np.testing.assert_array_equal(result.n_skipped, np.isnan(m).sum(axis=1))
    np.testing.assert_array_equal(result.n_used, 5 - np.isnan(m).sum(axis=1))
    row = panel_aggregate(list(m[3]), method=method)
    assert row.value == pytest.approx(result.values[3])


def test_panel_aggregate_matrix_shapes() -> None:
    empty = panel_aggregate_matrix(np.empty((0, 3)), method="mean")
    assert empty.values.shape == (0,)
    no_judges = panel_aggregate_matrix(np.empty((2, 0)), method="median")
    assert np.isnan(no_judges.values).all()
    with pytest.raises(ValueError):
        panel_aggregate_matrix(np.zeros((2, 2, 2)), method="mean")


# -- structured output, also when the call hit max_tokens ---------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"score": 4, "explanation": "The answer is go', ParseResult(4.0, None)),
        ('{"rating": 3, "reason": "Ok', ParseResult(3.0, None)),
        # the markers inside a cut text field are not the rating the output states
        ('{"score": 4, "explanation": "The answer scores 5/5 on sty', ParseResult(4.0, None)),
        ('{"score": 4, "explanation": "Rating: 2 would be harsh; it is go', ParseResult(4.0, None)),
        ('```json\n{"score": 4, "explanation": "ok"}\n```', ParseResult(4.0, None)),
        ('```json\n{"final_score": "3", "explanation": "It is', ParseResult(3.0, None)),
        ('{"score": 9, "explanation": "x', ParseResult(None, "rating 9 outside scale 1–5")),
        # no readable rating: unscored
        (
            '{"explanation": "The answer is go',
            ParseResult(None, "output cut short before its rating"),
        ),
        (
            '{"explanation": "A Rating: 2 would be harsh, so',
            ParseResult(None, "output cut short before its rating"),
        ),
        ('{"score": 1', ParseResult(None, "output cut short before its rating")),  # 1 of 10?
        (
            '{"score": "N/A", "why": "',
            ParseResult(None, "field 'score' holds \"N/A\", not a rating"),
        ),
        ('{"score": true}', ParseResult(None, "field 'score' holds true, not a rating")),
    ],
)
def test_structured_rating_cut_short(text: str, expected: ParseResult) -> None:
    assert parse_rating_result(text, low=1, high=5) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"winner": "B", "reason": "Assistant B', PreferenceParse("B", None)),
        ('{"winner": "B", "reason": "Assistant B says [[A]] is', PreferenceParse("B", None)),
        ('{"verdict": "A", "why": "Verdict: B would be wrong', PreferenceParse("A", None)),
        ('```json\n{"winner": "B"}\n```', PreferenceParse("B", None)),
        ('{"winner": "model_a"}', PreferenceParse("A", None)),
        ('{"winner": "tie", "reason": "Both', PreferenceParse("tie", None)),
        (
            '{"reason": "Assistant B is',
            PreferenceParse(None, "output cut short before its verdict"),
        ),
        ('{"reason": "Verdict: A is', PreferenceParse(None, "output cut short before its verdict")),
        (
            '{"winner": "both", "reason": "x"}',
            PreferenceParse(None, "field 'winner' holds \"both\", not A, B or tie"),
        ),
    ],
)
def test_structured_preference_cut_short(text: str, expected: PreferenceParse) -> None:
    assert parse_preference(text) == expected


# -- a verdict the parser cannot read is never a tie or a win ------------------------------


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("Final verdict: A tie.", "tie"),  # was "A"
        ("Verdict: A draw", "tie"),  # was "A"
        ("Verdict: A=B", "tie"),  # Arena-Hard's tie; was "A"
        ("Verdict: A<B", "B"),  # was "A"
        ("My final verdict is tie: [[A=B]]", "tie"),
        ("[[B>>A]]", "B"),
        ("[[A>B]]", "A"),
        ("A>B", "A"),
        ("Verdict: A, because it follows the instruction", "A"),
    ],
)
def test_verdicts_that_were_misread(text: str, verdict: str) -> None:
    assert parse_preference(text) == PreferenceParse(verdict, None)


@pytest.mark.parametrize(
    "text",
    ["Verdict: A/B", "Verdict: A or B", "Verdict: A, B", "Winner: A and B are tied"],
)
def test_an_ambiguous_verdict_is_unscored(text: str) -> None:
    # each read as "A" before: a win nobody stated
    assert parse_preference(text) == PreferenceParse(None, "no verdict marker found")


def test_a_comparison_of_an_answer_with_itself_is_unscored() -> None:
    assert parse_preference("[[A=A]]").verdict is None
