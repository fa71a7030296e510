"""Providers' limits: a judge's requests and tokens per minute (`rpm`, `tpm` in a panel file).

A `RateLimiter` spaces the starts of a judge's calls so that no window of time sees more than
the limit allows, with no burst: each call reserves its slot (60 / rpm seconds) and its
tokens (tokens x 60 / tpm seconds) on two clocks and starts when both are free. A call's
tokens are counted as providers count them before the call: the prompt (about four
characters a token) plus its `max_tokens`. With N worker processes each runs one limiter
with 1/N of the judge's budget, so that together they stay under it.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dashboard.judging.panel import Judge

CHARS_PER_TOKEN = 4
SECONDS_PER_MINUTE = 60.0


def tokens_of_call(judge: Judge, messages: Sequence[Mapping[str, str]]) -> int:
    """The tokens a provider counts against `tpm` for one call, before it is made."""
    chars = sum(len(m.get("content") or "") for m in messages)
    return chars // CHARS_PER_TOKEN + judge.max_tokens


class RateLimiter:
    """Starts of calls spaced to stay under `rpm` requests and `tpm` tokens per minute."""

    def __init__(self, *, rpm: float | None, tpm: float | None) -> None:
        self.request_s = SECONDS_PER_MINUTE / rpm if rpm else 0.0
        self.token_s = SECONDS_PER_MINUTE / tpm if tpm else 0.0
        self._next_request = 0.0
        self._next_tokens = 0.0

    @classmethod
    def for_judge(cls, judge: Judge, *, share: float = 1.0) -> RateLimiter | None:
        """The judge's limiter for one of 1/share workers; None when it has no limit."""
        if judge.rpm is None and judge.tpm is None:
            return None
        return cls(
            rpm=judge.rpm * share if judge.rpm else None,
            tpm=judge.tpm * share if judge.tpm else None,
        )

    async def acquire(self, tokens: int) -> None:
        """Wait for this call's turn (reserved at once, so concurrent callers queue up)."""
        now = time.monotonic()
        start = max(now, self._next_request, self._next_tokens)
        self._next_request = start + self.request_s
        self._next_tokens = max(now, self._next_tokens) + tokens * self.token_s
        if start > now:
            await asyncio.sleep(start - now)


@dataclass(frozen=True)
class LimitEstimate:
    """The least time a judge's calls take under its limits, and which limit binds."""

    judge: str
    seconds: float
    bound_by: str  # "rpm" or "tpm"


def limited_seconds(judge: Judge, calls: int, tokens: int) -> LimitEstimate | None:
    """The least seconds `calls` calls of `tokens` tokens in all take under the judge's
    limits (None when it has none)."""
    by_requests = calls * SECONDS_PER_MINUTE / judge.rpm if judge.rpm else 0.0
    by_tokens = tokens * SECONDS_PER_MINUTE / judge.tpm if judge.tpm else 0.0
    if not judge.rpm and not judge.tpm:
        return None
    if by_tokens > by_requests:
        return LimitEstimate(judge.name, by_tokens, "tpm")
    return LimitEstimate(judge.name, by_requests, "rpm")


def duration_text(seconds: float) -> str:
    if seconds < 90:
        return f"{math.ceil(seconds)} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"
