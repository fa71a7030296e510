"""Strict JSON for the error path: what Python's parser accepts and DuckDB's reader refuses.

Python's `json` keeps the last of two equal keys in an object and decodes a lone UTF-16
surrogate (`\\ud800` without its pair) into a string that is no text; DuckDB refuses both,
with a message that names a line one past the bad one. `locate.py` parses with `STRICT` and
checks strings with `lone_surrogate`, so the refusal names the record and says why.
"""

from __future__ import annotations

import json
from typing import Any


class DuplicateKey(ValueError):
    """An object of the record names a key twice (DuckDB refuses such a record)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise DuplicateKey(key)
        seen[key] = value
    return seen


STRICT = json.JSONDecoder(object_pairs_hook=_unique_pairs)


def duplicate_key(text: str) -> str | None:
    """The first key named twice in one object of a JSON text that parses, or None."""
    try:
        STRICT.decode(text)
    except DuplicateKey as error:
        return error.key
    return None


def duplicate_key_problem(key: str) -> str:
    return f"an object has the key {key!r} twice; each key may appear once in an object"


def lone_surrogate(value: Any) -> str | None:
    """The first string (key or value) holding half of a UTF-16 surrogate pair (`\\ud800`
    alone), which is no character: DuckDB refuses it, Python's parser lets it through."""
    stack = [value]
    while stack:
        current = stack.pop()
        texts = [current] if isinstance(current, str) else []
        if isinstance(current, dict):
            texts.extend(current)
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
        for text in texts:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return text
    return None


def lone_surrogate_problem(text: str) -> str:
    bad = next(c for c in text if 0xD800 <= ord(c) <= 0xDFFF)
    return (
        f"a string holds \\u{ord(bad):04x}, half of a UTF-16 surrogate pair without its "
        "other half, which is no character; write the character itself, or both halves"
    )
