"""One judge call with bounded retries: exponential backoff with jitter, honouring Retry-After.

429, 408, 409, 5xx, timeouts and connection errors are retried, up to the judge's
`max_attempts` in all; other errors (a bad request, a wrong key) fail at once. A Retry-After
longer than the judge's `retry_max_s` is not waited out: the call fails, and the next run
retries it.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dashboard.judging.llm import CallError, Completion, JudgeClient
from dashboard.judging.offline import Case
from dashboard.judging.panel import Judge


@dataclass(frozen=True)
class CallOutcome:
    """How a call ended: a completion, or the last error after `attempts` attempts."""

    completion: Completion | None
    error: str | None
    attempts: int
    latency_ms: float | None  # of the successful attempt, or of the last one

    @property
    def ok(self) -> bool:
        return self.completion is not None


def backoff_s(
    attempt: int, *, judge: Judge, retry_after_s: float | None, rng: random.Random
) -> float | None:
    """Seconds to wait before attempt `attempt + 1`, or None when Retry-After is too long.

    "Equal jitter": uniform in [d/2, d] with d = min(retry_max_s, retry_base_s × 2^(attempt-1)),
    so that concurrent callers spread out but still back off; at least Retry-After."""
    ceiling = min(judge.retry_max_s, judge.retry_base_s * 2 ** (attempt - 1))
    delay = rng.uniform(ceiling / 2, ceiling)
    if retry_after_s is not None:
        if retry_after_s > judge.retry_max_s:
            return None
        delay = max(delay, retry_after_s)
    return delay


async def call_with_retries(
    client: JudgeClient,
    messages: Sequence[Mapping[str, str]],
    *,
    case: Case | None = None,
    rng: random.Random | None = None,
    epoch: int = 0,
) -> CallOutcome:
    """Up to `max_attempts` attempts; `case` goes to the offline baseline (see `offline.py`),
    `epoch` to the judge's seed (see `JudgeClient.complete`)."""
    judge = client.judge
    error: CallError | None = None
    latency_ms = None
    attempt = 0
    while attempt < judge.max_attempts:
        attempt += 1
        started = time.perf_counter()
        try:
            completion = await client.complete(messages, case=case, epoch=epoch)
        except CallError as failure:
            error = failure
            latency_ms = (time.perf_counter() - started) * 1000
        else:
            return CallOutcome(completion, None, attempt, (time.perf_counter() - started) * 1000)
        if not error.retryable or attempt >= judge.max_attempts:
            break
        if rng is None:  # made only for a retry: seeding one costs a tenth of a call's CPU
            rng = random.Random()
        delay = backoff_s(attempt, judge=judge, retry_after_s=error.retry_after_s, rng=rng)
        if delay is None:
            error = CallError(
                f"{error} (Retry-After {error.retry_after_s:g} s is longer than "
                f"retry_max_s {judge.retry_max_s:g} s; re-run later)",
                retryable=False,
                status=error.status,
            )
            break
        await asyncio.sleep(delay)
    message = str(error) if error else "no attempt made"
    if error is not None and error.retryable:
        message = f"{message} (gave up after {attempt} attempts)"
    return CallOutcome(None, message, attempt, latency_ms)
