"""Providers' limits: a judge's requests and tokens per minute (`rpm`, `tpm` in a panel file).

A `RateLimiter` spaces the starts of a judge's calls so that no window of time sees more than
the limit allows, with no burst: calls start one at a time, each at least 60 / rpm seconds
after the one before, and after the tokens of the one before (tokens x 60 / tpm seconds).
The next start is counted from when a call really started, so calls that waited while the
process was busy do not leave together. A call's
tokens are counted as providers count them before the call: the prompt (about four
characters a token) plus its `max_tokens`. With N worker processes each runs one limiter
with 1/N of the judge's budget, so that together they stay under it.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import AsyncIterator, Mapping, Sequence
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
        self._next = 0.0
        self._warm = False
        self._turn = asyncio.Lock()  # first come, first served

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
        """Wait for this call's turn; concurrent callers queue up in order."""
        async with self._turn:
            wait_s = self._next - time.monotonic()
            if wait_s > 0:
                await asyncio.sleep(wait_s)
            self._next = time.monotonic() + max(self.request_s, tokens * self.token_s)

    @contextlib.asynccontextmanager
    async def slot(self, tokens: int) -> AsyncIterator[None]:
        """The call runs inside the block. The first call goes out alone: a process's first
        request through LiteLLM takes a while to leave (its client is built), and the calls
        whose turns came meanwhile would otherwise reach the provider together."""
        if self._warm:
            await self.acquire(tokens)
            yield
            return
        async with self._turn:
            self._warm = True
            yield
            self._next = time.monotonic() + max(self.request_s, tokens * self.token_s)


def slot(limiter: RateLimiter | None, tokens: int) -> contextlib.AbstractAsyncContextManager[None]:
    """The limiter's slot for a call, or no wait when the judge has no limit."""
    return limiter.slot(tokens) if limiter is not None else contextlib.nullcontext()


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
