"""Ids and timestamps.

Items and responses get ids derived from their content, so importing the same file twice adds
nothing. The rule, which the importer's SQL repeats exactly (see `store/importing.py`):
the first 16 hex digits of md5 over the parts joined by U+001F, where a missing part is the
empty string and a list part is its elements joined by U+001E.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

Part = str | Sequence[str] | None

PART_SEPARATOR = "\x1f"
LIST_SEPARATOR = "\x1e"
ID_HEX_DIGITS = 16


def _part(value: Part) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return LIST_SEPARATOR.join(value)


def content_id(*parts: Part) -> str:
    """A stable id for content: 64 bits of md5, ample for the millions of rows a file holds."""
    joined = PART_SEPARATOR.join(_part(p) for p in parts)
    return hashlib.md5(joined.encode("utf-8")).hexdigest()[:ID_HEX_DIGITS]


def new_id() -> str:
    """A random id for an event that has no content identity, such as a person's rating."""
    return uuid.uuid4().hex


def utc_now() -> datetime:
    """Naive UTC, the form stored in every `created_utc` column."""
    return datetime.now(UTC).replace(tzinfo=None)
