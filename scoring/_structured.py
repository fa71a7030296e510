"""Judge output that is a JSON object, read field by field, also when it was cut short.

A judge asked for JSON may wrap it in a code fence, and a call that hit `max_tokens` stops in
the middle of it: `{"score": 4, "explanation": "The answer is go`. The fields before the cut
are whole and say what they say; the field the cut falls in, and everything after it, are not
there. A number that ends exactly where the output ends may itself be cut ("1" of "10"), so
it is not read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_FENCE_OPEN = re.compile(r"\A\s*(?:```|~~~)[A-Za-z]*[ \t]*\n")
_SPACE = re.compile(r"[ \t\n\r]*")


@dataclass(frozen=True)
class Structured:
    """The top-level fields of a JSON object, in order, and whether the object was whole."""

    fields: tuple[tuple[str, object], ...]
    complete: bool

    def last(self, key: re.Pattern[str]) -> tuple[str, object] | None:
        """The last field whose whole name fits `key`, if any."""
        found = [(name, value) for name, value in self.fields if key.fullmatch(name)]
        return found[-1] if found else None


def _skip(body: str, pos: int) -> int:
    match = _SPACE.match(body, pos)
    return match.end() if match else pos


def _leading_fields(body: str) -> list[tuple[str, object]]:
    """The whole `"name": value` fields of an object that is cut short, up to the cut."""
    decoder = json.JSONDecoder()
    fields: list[tuple[str, object]] = []
    pos = 1
    while True:
        pos = _skip(body, pos)
        if not body.startswith('"', pos):
            return fields
        try:
            name, pos = decoder.raw_decode(body, pos)
            pos = _skip(body, pos)
            if not body.startswith(":", pos):
                return fields
            value, pos = decoder.raw_decode(body, _skip(body, pos + 1))
        except ValueError:
            return fields
        if isinstance(value, (int, float)) and not isinstance(value, bool) and pos == len(body):
            return fields  # the number may go on past the cut
        fields.append((name, value))
        pos = _skip(body, pos)
        if not body.startswith(",", pos):
            return fields
        pos += 1


def structured(text: str) -> Structured | None:
    """The JSON object `text` is (bare or in a code fence), whole or cut short; None when the
    text does not start with one."""
    fence = _FENCE_OPEN.match(text)
    body = text[fence.end() :] if fence else text
    body = body.lstrip()
    if not body.startswith("{"):
        return None
    try:
        whole, _ = json.JSONDecoder().raw_decode(body)
    except ValueError:
        return Structured(tuple(_leading_fields(body)), complete=False)
    if not isinstance(whole, dict):
        return None
    return Structured(tuple(whole.items()), complete=True)
