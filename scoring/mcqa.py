"""Multiple-choice QA: reading chosen letters out of free text, accuracy and set IoU.

Option i carries the letter ``chr(65 + i)`` ("A", "B", ...), as in `dashboard.types.Item`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Hashable, Iterable, Sequence

from scoring.qa import normalize_answer

# "The answer is", "Answers: ", "correct options are", "Final answer =" ...
_ANSWER_MARKER = re.compile(
    r"\b(?:answers?|options?|choices?)\b\s*(?:is|are|would be|:|=)\s*",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"\.(?:\s|$)|\n")
_BARE_LETTER = re.compile(r"(?<![A-Za-z0-9'])([A-Z])(?![A-Za-z0-9'])")
_PAREN_LOWER = re.compile(r"\(([a-z])\)")
# Words that follow a choice letter ("A is correct", "A and C") but not the article "A".
_CONNECTORS = frozenset(
    "is and or are was were would should seems seem because since as with nor but then "
    "too also only".split()
)
_NEXT_WORD = re.compile(r"\s+([a-z]+)")


def _option_letters(options: Sequence[str] | int) -> str:
    n = options if isinstance(options, int) else len(options)
    if not 0 <= n <= 26:
        raise ValueError(f"expected between 0 and 26 options, got {n}")
    return "".join(chr(65 + i) for i in range(n))


def _letters_in(segment: str, allowed: str) -> list[str]:
    found: list[str] = []
    for match in _BARE_LETTER.finditer(segment):
        letter = match.group(1)
        if letter not in allowed:
            continue
        if letter in "AI":
            # "A good answer", "I think": a capital word, not a choice.
            following = _NEXT_WORD.match(segment, match.end())
            if following and following.group(1) not in _CONNECTORS:
                continue
        found.append(letter)
    found.extend(m.group(1).upper() for m in _PAREN_LOWER.finditer(segment))
    return [letter for letter in found if letter in allowed]


def extract_choices(text: str, options: Sequence[str] | int) -> tuple[str, ...]:
    """The option letters chosen in free text, in option order, without repeats.

    `options` is the option texts (or the letters themselves, or their number); option i has
    the letter ``chr(65 + i)``. Handled forms include "The answer is B and D", "**C**",
    "A, C", "(b)" and "Answer: A". When the text has an answer marker ("answer is", "answers:",
    "options are" ...), only the sentence after the last marker is read, so that options
    discussed earlier do not count. A capital "A"/"I" followed by an ordinary lowercase word
    is read as the article/pronoun, not as a choice.

    If no letter is found and the whole normalized text equals one option's normalized text,
    that option is returned. Empty or unreadable text gives ``()``.
    """
    allowed = _option_letters(options)
    markers = list(_ANSWER_MARKER.finditer(text))
    found: list[str] = []
    if markers:
        rest = text[markers[-1].end() :]
        end = _SENTENCE_END.search(rest)
        found = _letters_in(rest[: end.start()] if end else rest, allowed)
    if not found:
        found = _letters_in(text, allowed)
    if not found and not isinstance(options, int):
        target = normalize_answer(text)
        found = [
            letter
            for letter, option in zip(allowed, options)
            if target and normalize_answer(option) == target
        ]
    return tuple(letter for letter in allowed if letter in set(found))


def _as_key(item: Hashable | Collection[Hashable]) -> Hashable:
    # Multi-answer items compare as sets, so ("A", "C") equals ("C", "A").
    if isinstance(item, str) or not isinstance(item, Iterable):
        return item
    return frozenset(item)


def accuracy(predicted: Sequence[object], gold: Sequence[object]) -> float:
    """Fraction of items whose prediction equals the gold answer.

    Items may be single letters or collections of letters; collections compare as sets
    (order and repeats do not matter). Empty input gives nan. Sequences of different
    lengths raise ValueError.
    """
    pred = list(predicted)
    ref = list(gold)
    if len(pred) != len(ref):
        raise ValueError(f"predicted has {len(pred)} items but gold has {len(ref)}")
    if not pred:
        return math.nan
    hits = sum(_as_key(p) == _as_key(g) for p, g in zip(pred, ref))
    return hits / len(pred)


def iou(predicted: Iterable[Hashable], gold: Iterable[Hashable]) -> float:
    """Intersection over union of two answer sets, |P ∩ G| / |P ∪ G| (Jaccard index).

    Both sets empty gives 1.0: the prediction agrees exactly with a gold "no option".
    """
    p, g = set(predicted), set(gold)
    union = p | g
    if not union:
        return 1.0
    return len(p & g) / len(union)
