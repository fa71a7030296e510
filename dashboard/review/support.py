"""The passage of a context that supports the reference answer, to highlight it.

Pure text work, no store: a context is cut into sentences, and the run of one to three
consecutive sentences whose words overlap the reference answer's most (F1 over the sets of
content words, best over the reference answers) is the supporting passage, when that overlap
is large enough to mean something (`MIN_F1`, `MIN_SHARED`). Offsets index the original text,
so the context is shown whole, only split around the passage.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# Below these, a "best" passage is a coincidence of common words, not support.
MIN_F1 = 0.3
MIN_SHARED = 3
MAX_SENTENCES = 3

_WORD = re.compile(r"[^\W_]+(?:[-'.][^\W_]+)*", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n\s*\n")
# Words too common to show that a passage says what the reference says.
_STOPWORDS = frozenset(
    "a an and are as at be by for from has have in is it its of on or that the their this "
    "to was were which with".split()
)


@dataclass(frozen=True)
class Passage:
    """`text[start:end]` supports the reference; `f1` is the overlap that chose it."""

    text: str
    start: int
    end: int
    f1: float

    @property
    def before(self) -> str:
        return self.text[: self.start]

    @property
    def passage(self) -> str:
        return self.text[self.start : self.end]

    @property
    def after(self) -> str:
        return self.text[self.end :]


def content_words(text: str) -> frozenset[str]:
    """The lower-cased words of `text` without the commonest English ones."""
    return frozenset(w for w in (m.lower() for m in _WORD.findall(text)) if w not in _STOPWORDS)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text`, surrounding blanks left out."""
    spans, start = [], 0
    for cut in [*_SENTENCE_END.finditer(text), None]:
        end = cut.start() if cut else len(text)
        piece = text[start:end]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            spans.append((start + lead, start + len(piece.rstrip())))
        start = cut.end() if cut else len(text)
    return spans


def _f1(words: frozenset[str], reference: frozenset[str]) -> tuple[float, int]:
    shared = len(words & reference)
    if not shared:
        return 0.0, 0
    precision, recall = shared / len(words), shared / len(reference)
    return 2 * precision * recall / (precision + recall), shared


def supporting_passage(text: str | None, references: Sequence[str]) -> Passage | None:
    """The run of consecutive sentences of `text` that best matches a reference answer, or
    None when no run shares at least `MIN_SHARED` content words at an F1 of `MIN_F1`."""
    targets = [w for w in (content_words(r) for r in references) if w]
    if not text or not targets:
        return None
    spans = sentence_spans(text)
    best: Passage | None = None
    for first in range(len(spans)):
        for last in range(first, min(first + MAX_SENTENCES, len(spans))):
            start, end = spans[first][0], spans[last][1]
            words = content_words(text[start:end])
            for reference in targets:
                f1, shared = _f1(words, reference)
                if shared >= MIN_SHARED and f1 >= MIN_F1 and (best is None or f1 > best.f1):
                    best = Passage(text, start, end, f1)
    return best
