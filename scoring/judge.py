"""Reading ratings and verdicts out of judge text, and combining a panel of judges.

A judge output that cannot be read becomes *unscored* with a reason, never a default grade.
A human override goes through the same functions as a judge's output.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring._structured import structured

PANEL_METHODS: tuple[str, ...] = ("mean", "median")


def _number(name: str) -> str:
    return rf"(?P<{name}_num>-?\d+(?:\.\d+)?)(?:\s*/\s*(?P<{name}_den>\d+(?:\.\d+)?))?"


# Closed fenced blocks and inline code spans: judged code such as `array[0]` is never a marker.
_CODE = re.compile(r"```.*?```|~~~.*?~~~|`[^`\n]*`", re.DOTALL)
_RATING_MARKERS = re.compile(
    # Labelled: Rating: 4, "Rating": 4, {"score": 4}, Rating: [[4]], [Rating: 9], Score = 4/5
    r"(?P<label>(?<![A-Za-z])(?:rating|score|grade)[\"']?\s*[:=]\s*[\"']?\s*(?:\[\[|\[|\()?\s*"
    + _number("label")
    + r")"
    # FastChat's verdict format: [[4]]
    + r"|(?P<double>\[\[\s*"
    + _number("double")
    + r"\s*\]\])"
    # A bracketed number alone on its line: FastChat's fallback "[5]"; never array[0].
    + r"|(?P<alone>^[ \t]*\[\s*"
    + _number("alone")
    + r"\s*\][ \t]*$)"
    # A fraction such as 4/5; it counts only when its denominator is the scale's top.
    + r"|(?P<fraction>(?<![\w./])(?P<fraction_num>-?\d+(?:\.\d+)?)\s*/\s*"
    + r"(?P<fraction_den>\d+(?:\.\d+)?)(?![\w/]|\.\d))",
    re.IGNORECASE | re.MULTILINE,
)
_WHOLE_NUMBER = re.compile(r"\s*(-?\d+(?:\.\d+)?)\s*\.?\s*")
_OPERATORS = frozenset("+-*/=^×÷<>")
_LINE_LABEL = re.compile(r"([A-Za-z][A-Za-z ]*):$")
_SCORE_LABELS = ("rating", "score", "grade", "overall", "total", "final")
_NOT_READ = ("empty output", "no rating marker found")
_RATING_FIELD = re.compile(r"(?:(?:final|overall|total)[\s_]*)?(?:rating|score|grade)", re.I)


@dataclass(frozen=True)
class ParseResult:
    """A rating read from judge text: `value` on the judge's scale, or None with `reason`."""

    value: float | None
    reason: str | None = None


@dataclass(frozen=True)
class PreferenceParse:
    """A pairwise verdict read from judge text: "A", "B" or "tie", or None with `reason`."""

    verdict: str | None
    reason: str | None = None


@dataclass(frozen=True)
class PanelScore:
    """One response's panel score; nan when no judge scored it (`n_used` == 0)."""

    value: float
    n_used: int
    n_skipped: int


@dataclass(frozen=True)
class PanelMatrix:
    """Row-wise panel scores: `values[i]` is nan when row i has no scored judge."""

    values: np.ndarray
    n_used: np.ndarray
    n_skipped: np.ndarray


def _fmt(x: float) -> str:
    return f"{x:g}"


def _check_scale(low: float, high: float) -> None:
    if not high > low:
        raise ValueError(f"scale needs low < high, got low={low!r}, high={high!r}")


def _strip_code(text: str) -> str:
    return _CODE.sub(" ", text)


def _fraction_is_marker(text: str, match: re.Match[str]) -> bool:
    """A bare fraction is a rating unless it sits in arithmetic or under another label."""
    line_before = text[: match.start()].rsplit("\n", 1)[-1].rstrip(" \t")
    after = text[match.end() :].lstrip(" \t")
    if (line_before and line_before[-1] in _OPERATORS) or (after and after[0] in _OPERATORS):
        return False
    label = _LINE_LABEL.search(line_before)
    # "Confidence: 9/10" or "Accuracy: 4/5" is not the overall rating; "Overall: 4/5" is.
    return label is None or any(w in _SCORE_LABELS for w in label.group(1).lower().split())


def _last_marker(text: str, high: float) -> tuple[float, float | None] | None:
    """(number, denominator or None) of the last rating marker in `text`, if any."""
    last = None
    for match in _RATING_MARKERS.finditer(text):
        kind = match.lastgroup or ""
        if kind == "fraction" and (
            float(match.group("fraction_den")) != high or not _fraction_is_marker(text, match)
        ):
            continue
        last = (float(match.group(f"{kind}_num")), match.group(f"{kind}_den"))
    if last is None:
        return None
    number, den = last
    return number, (float(den) if den is not None else None)


def _structured_rating(text: str, *, low: float, high: float) -> ParseResult | None:
    """The rating field of a JSON object (whole or cut short), or None to read markers."""
    found = structured(text)
    if found is None:
        return None
    field = found.last(_RATING_FIELD)
    if field is None:
        return None if found.complete else ParseResult(None, "output cut short before its rating")
    name, value = field
    if isinstance(value, (int, float, str)) and not isinstance(value, bool):
        result = parse_rating_result(str(value), low=low, high=high)
        if result.value is not None or result.reason not in _NOT_READ:
            return result
    return ParseResult(None, f"field {name!r} holds {json.dumps(value)}, not a rating")


def parse_rating_result(text: str | None, *, low: float, high: float) -> ParseResult:
    """Read a rating on the scale [low, high] from a judge's text.

    A JSON object (bare or in a code fence) is read by its rating field (``score``,
    ``rating``, ``grade``, optionally ``final_``/``overall_``/``total_``; the last one wins),
    also when the output was cut short after it (`max_tokens`): the markers inside its text
    fields are never read. Cut short before its rating field, it is unscored; a whole object
    without one is read by markers.

    Explicit rating markers are ``Rating: 4``, ``"Rating": 4``, ``[[4]]`` (FastChat), a
    bracketed number alone on its line (``[5]``), a fraction whose denominator is `high`
    (``4/5`` on a 1-5 scale; not inside arithmetic and not under another label such as
    ``Confidence: 9/10``), and a text that is just a number. The **last** marker wins,
    because judges tend to reason first and conclude last. Fenced code blocks and inline
    code are ignored, so ``array[0]`` in judged code is never a rating. Natural-language
    ratings ("I would rate it 8") are not markers.

    Unscored results carry a reason: "empty output", "no rating marker found", "rating 7
    outside scale 1–5", "rating 8/10 does not match scale 1–5" when a marker's denominator
    differs from `high`, "output cut short before its rating", or which JSON field held
    what. Raises ValueError when low >= high.
    """
    _check_scale(low, high)
    if text is None or not text.strip():
        return ParseResult(None, "empty output")
    from_json = _structured_rating(text, low=low, high=high)
    if from_json is not None:
        return from_json
    plain = _strip_code(text)
    whole = _WHOLE_NUMBER.fullmatch(plain)
    found = (float(whole.group(1)), None) if whole else _last_marker(plain, high)
    if found is None:
        return ParseResult(None, "no rating marker found")
    number, den = found
    if den is not None and den != high:
        return ParseResult(
            None, f"rating {_fmt(number)}/{_fmt(den)} does not match scale {_fmt(low)}–{_fmt(high)}"
        )
    if not low <= number <= high:
        return ParseResult(None, f"rating {_fmt(number)} outside scale {_fmt(low)}–{_fmt(high)}")
    return ParseResult(number, None)


def parse_rating(text: str | None, *, low: float, high: float) -> float | None:
    """The rating in `text` on the scale [low, high], or None; see `parse_rating_result`."""
    return parse_rating_result(text, low=low, high=high).value


# Arena-Hard's comparisons: A>B, A>>B (A better), A=B (a tie), B<A ...
_COMPARISON = r"[AB]\s*(?:>>?|<<?|=)\s*[AB]"
# A verdict letter must end the verdict: "A tie", "A=B", "A/B", "A or B" and "A, B" are not A.
_VERDICT_END = (
    r"(?![A-Za-z0-9])"
    r"(?!\s*(?:[=<>/&+]|,\s*[ABC](?![A-Za-z0-9])|(?i:or|and|nor|vs|versus|tied?)\b))"
)
_PREFERENCE_MARKERS = re.compile(
    # FastChat: [[A]], [[B]], [[C]] (C = tie); Arena-Hard: [[A>B]], [[A=B]], [[B>>A]]
    rf"\[\[\s*(?:(?P<double_cmp>{_COMPARISON})|(?P<double>[ABC]|(?i:tie|draw)))\s*\]\]"
    # Verdict: A, "winner": "B", Winner: Assistant A, Winner: Output (a), Verdict: a tie
    r"|(?i:\b(?:final\s+)?(?:verdict|winner|preference|better\s+response|choice))[\"']?\s*[:=]"
    r"\s*[\"']?\s*(?:\[\[)?\s*(?i:(?:assistant|response|output|model|system)[\s_]*)?"
    rf"(?:\((?P<paren>[ABab])\)|(?P<cmp>{_COMPARISON})|(?P<label>(?i:(?:a\s+)?(?:tie|draw))|[ABC]))"
    + _VERDICT_END,
)
_WHOLE_VERDICT = re.compile(rf"\W*(?:(?P<whole_cmp>{_COMPARISON})|(?P<whole>A|B|(?i:tie|draw)))\W*")
# A JSON verdict field's whole value: "B", "Assistant A", "model_a", "Output (b)", "tie", "A>B".
_VERDICT_VALUE = re.compile(
    r"\s*(?:(?:assistant|response|output|model|system)[\s_]*)?"
    rf"(?:\((?P<paren>[ab])\)|(?P<cmp>{_COMPARISON})|(?P<label>(?:a\s+)?(?:tie|draw)|[abc]))"
    r"\s*[.!]?\s*",
    re.IGNORECASE,
)
_VERDICT_FIELD = re.compile(
    r"(?:final[\s_]*)?(?:verdict|winner|preference|better[\s_]*response|choice)", re.IGNORECASE
)
_VERDICTS = {"A": "A", "B": "B", "C": "tie", "TIE": "tie", "DRAW": "tie"}
_COMPARISON_PARTS = re.compile(r"(?P<left>[AB])\s*(?P<op>>>?|<<?|=)\s*(?P<right>[AB])")


def _verdict_of(*, label: str | None = None, comparison: str | None = None) -> str | None:
    """The verdict a marker's label ("A", "a tie", "C") or comparison ("B>>A") states; None
    for a comparison of an answer with itself."""
    if comparison is not None:
        parts = _COMPARISON_PARTS.fullmatch(comparison.upper())
        if parts is None or parts["left"] == parts["right"]:
            return None
        if parts["op"] == "=":
            return "tie"
        return parts["left"] if parts["op"].startswith(">") else parts["right"]
    return _VERDICTS[str(label).split()[-1].upper()]


def _structured_preference(text: str) -> PreferenceParse | None:
    """The verdict field of a JSON object (whole or cut short), or None to read markers."""
    found = structured(text)
    if found is None:
        return None
    field = found.last(_VERDICT_FIELD)
    if field is None:
        return (
            None if found.complete else PreferenceParse(None, "output cut short before its verdict")
        )
    name, value = field
    match = _VERDICT_VALUE.fullmatch(value) if isinstance(value, str) else None
    verdict = (
        _verdict_of(label=match["paren"] or match["label"], comparison=match["cmp"])
        if match
        else None
    )
    if verdict is None:
        return PreferenceParse(None, f"field {name!r} holds {json.dumps(value)}, not A, B or tie")
    return PreferenceParse(verdict, None)


def parse_preference(text: str | None) -> PreferenceParse:
    """Read a pairwise verdict ("A", "B" or "tie") from a judge's text.

    A JSON object (bare or in a code fence) is read by its verdict field (``winner``,
    ``verdict``, ``preference``, ``choice``, ``better_response``; the last one wins), also when
    the output was cut short after it; a value that is not A, B or a tie is unscored, never a
    guess. Other text is read by its markers: FastChat's ``[[A]]``, ``[[B]]`` and ``[[C]]``
    (C = tie), Arena-Hard's ``[[A>B]]``, ``[[A=B]]`` (a tie) and ``[[B>>A]]``, labelled
    verdicts such as ``Verdict: A``, ``Winner: Assistant B``, ``Winner: Output (a)``,
    ``Verdict: A tie`` (a labelled C also means tie), and a text that is only "A", "B", "tie"
    or "draw". A letter that does not end its verdict ("A/B", "A or B", "A, B") is not one.
    The last marker wins; code blocks and inline code are ignored.

    Unscored results carry a reason: "empty output", "no verdict marker found", "output cut
    short before its verdict", or which field held what.
    """
    if text is None or not text.strip():
        return PreferenceParse(None, "empty output")
    found = _structured_preference(text)
    if found is not None:
        return found
    plain = _strip_code(text)
    whole = _WHOLE_VERDICT.fullmatch(plain)
    last: str | None = None
    if whole:
        last = _verdict_of(label=whole["whole"], comparison=whole["whole_cmp"])
        return PreferenceParse(last, None if last else "a comparison of an answer with itself")
    matched = None
    for match in _PREFERENCE_MARKERS.finditer(plain):
        matched = match
    if matched is None:
        return PreferenceParse(None, "no verdict marker found")
    label = matched["double"] or matched["paren"] or matched["label"]
    last = _verdict_of(label=label, comparison=matched["double_cmp"] or matched["cmp"])
    return PreferenceParse(last, None if last else "a comparison of an answer with itself")


def normalize(value: float | None, *, low: float, high: float) -> float | None:
    """Map a rating on [low, high] linearly onto [0, 1]: (value - low) / (high - low).

    None (unscored) and nan stay as they are. A value outside [low, high], or a scale with
    low >= high, raises ValueError: a rating off its scale is a caller bug, not data.
    """
    _check_scale(low, high)
    if value is None or math.isnan(value):
        return value
    if not low <= value <= high:
        raise ValueError(f"rating {value!r} is outside the scale {low!r}–{high!r}")
    return (float(value) - low) / (high - low)


def _check_method(method: str) -> None:
    if method not in PANEL_METHODS:
        raise ValueError(f"method must be one of {PANEL_METHODS}, got {method!r}")


def panel_aggregate(scores: Sequence[float | None], *, method: str = "mean") -> PanelScore:
    """Combine several judges' normalized scores for one response by mean or median.

    None and nan entries are unscored ratings: they are skipped and counted in `n_skipped`.
    The median of an even number of scores is the mean of the middle two. When no judge
    scored the response, `value` is nan and `n_used` is 0. Unknown methods raise ValueError.
    """
    _check_method(method)
    row = np.array([np.nan if s is None else s for s in scores], dtype=float)
    result = panel_aggregate_matrix(row.reshape(1, -1), method=method)
    return PanelScore(float(result.values[0]), int(result.n_used[0]), int(result.n_skipped[0]))


def panel_aggregate_matrix(matrix: npt.ArrayLike, *, method: str = "mean") -> PanelMatrix:
    """Row-wise `panel_aggregate` over a responses x judges array, with nan = unscored.

    Vectorized: one pass for the mean, one row-wise sort for the median. Rows without any
    scored judge get value nan. A 1-D input is read as a single row; None entries count as nan.
    """
    _check_method(method)
    m = np.asarray(matrix, dtype=float)
    if m.ndim == 1:
        m = m.reshape(1, -1)
    if m.ndim != 2:
        raise ValueError(f"matrix must be 2-D (responses x judges), got {m.ndim} dimensions")
    scored = ~np.isnan(m)
    n_used = scored.sum(axis=1)
    n_skipped = m.shape[1] - n_used
    values = np.full(m.shape[0], np.nan)
    has = n_used > 0
    if method == "mean":
        values[has] = np.where(scored, m, 0.0).sum(axis=1)[has] / n_used[has]
    elif m.shape[1]:
        ordered = np.sort(m, axis=1)  # nan sorts last, so the scored values come first
        lower = np.take_along_axis(ordered, np.maximum(n_used - 1, 0)[:, None] // 2, axis=1)
        upper = np.take_along_axis(ordered, (n_used // 2)[:, None], axis=1)
        values[has] = ((lower[:, 0] + upper[:, 0]) / 2)[has]
    return PanelMatrix(values, n_used, n_skipped)
