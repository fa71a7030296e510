"""Where a judge run's calls come from: its plan alone, or a run shared with other processes.

On a file store a run makes every call of its plan (`PlannedCalls`). On a PostgreSQL store
several `judgeboard judge` processes, on one machine or several, share the calls through the
store's claims (`ClaimedCalls`, over `dashboard.store.claims`): each process offers the calls
its plan needs, claims a few at a time that nobody holds, makes them, and marks them done once
their results are stored (after the run's merge). A process that finds nothing to claim while
others still hold calls of its plan waits: they finish them, or they stopped and their lease
runs out (`JUDGEBOARD_CLAIM_LEASE_S`, 10 minutes by default), and it claims them. A live
process renews its claims every third of the lease.

A run asked `--epochs N` times per prompt, and a `--batch` run, are not shared: each process
makes its plan's calls (an answer's epochs are reduced in the process that made them all).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections import deque
from collections.abc import Callable
from typing import Protocol

from dashboard.ids import new_id
from dashboard.judging.calls import CallOutcome, call_with_retries
from dashboard.judging.limits import RateLimiter, slot, tokens_of_call
from dashboard.judging.panel import Judge, PanelError
from dashboard.judging.plan import CallSpec, RunPlan
from dashboard.judging.rubrics import Rubric
from dashboard.store import Store, StoreError

log = logging.getLogger(__name__)

# Calls claimed at a time, per concurrent slot of a judge: few, so that the processes of a run
# share the calls evenly and a killed one strands few of them.
CLAIM_PER_SLOT = 2
POLL_S = 1.0  # how often a process that waits for others' claims asks again


class Calls(Protocol):
    """The calls of a run, judge by judge."""

    async def next_call(self, judge: str, *, stopping: Callable[[], bool]) -> CallSpec | None:
        """The judge's next call; None when there is none left for this process."""
        ...


class Recorder(Protocol):
    """What making calls needs of a run (`runner._Run`)."""

    fault: StoreError | None

    @property
    def cancelled(self) -> bool: ...

    def record(self, judge: Judge, spec: CallSpec, outcome: CallOutcome) -> None: ...


class PlannedCalls:
    """Every call of the plan, made by this process."""

    def __init__(self, plan: RunPlan) -> None:
        self.queues = {
            j.name: deque(c for c in plan.calls if c.judge == j.name) for j in plan.panel.judges
        }

    async def next_call(self, judge: str, *, stopping: Callable[[], bool]) -> CallSpec | None:
        queue = self.queues[judge]  # a cancel or a fault: no new call starts
        return queue.popleft() if queue and not stopping() else None


def owner_name() -> str:
    """This process among those sharing a run: its machine, its PID, and a random part."""
    return f"{socket.gethostname()}:{os.getpid()}:{new_id()[:8]}"


class ClaimedCalls:
    """The calls of the plan this process claims in the PostgreSQL store's shared run."""

    def __init__(self, store: Store, plan: RunPlan) -> None:
        from dashboard.store.claims import Claims, call_key  # psycopg: only on PostgreSQL

        self.owner = owner_name()
        self.claims = Claims(store.url, self.owner, location=store.location)
        self.poll_s = min(POLL_S, self.claims.lease_s / 4)
        # By claim key, not cache key: judges of one model share cache keys, not calls.
        self.specs = {call_key(spec.cache_key, spec.judge): spec for spec in plan.calls}
        self.judges = {j.name: j for j in plan.panel.judges}
        self.run_keys = {name: f"{self.owner}/{name}" for name in self.judges}
        self.claimed: set[str] = set()
        self.recorded: list[str] = []  # made and in the journal, not yet marked done
        self.finished: set[str] = set()
        self.waiting: dict[str, deque[CallSpec]] = {name: deque() for name in self.judges}
        self.over: set[str] = set()
        self._locks: dict[str, asyncio.Lock] = {}

    def open(self) -> None:
        """Offer the plan's calls, judge by judge."""
        for name, run_key in self.run_keys.items():
            keys = [key for key, s in self.specs.items() if s.judge == name]
            if keys:
                self.claims.offer(run_key, keys)
            else:
                self.over.add(name)

    def take(self, judge: str, limit: int) -> list[CallSpec] | None:
        """Calls of the judge now claimed by this process; [] when others hold the rest
        (ask again later); None when the judge's calls are all made or held by nobody."""
        if judge in self.over:
            return None
        keys = self.claims.claim(self.run_keys[judge], limit)
        if keys:
            self.claimed.update(keys)
            return [self.specs[key] for key in keys]
        if self.claims.held_by_others(self.run_keys[judge]):
            return []
        self.over.add(judge)
        return None

    def limit(self, judge: str) -> int:
        return max(1, self.judges[judge].concurrency * CLAIM_PER_SLOT)

    async def next_call(self, judge: str, *, stopping: Callable[[], bool]) -> CallSpec | None:
        lock = self._locks.setdefault(judge, asyncio.Lock())
        waiting = self.waiting[judge]
        while not stopping():
            if waiting:
                return waiting.popleft()
            async with lock:  # one claim at a time per judge; the others take from it
                if waiting:
                    continue
                found = await asyncio.to_thread(self.take, judge, self.limit(judge))
                if found is None:
                    return None
                waiting.extend(found)
                if not found:
                    await asyncio.sleep(self.poll_s)
        return None

    def made(self, spec: CallSpec) -> None:
        """The call is made and in the journal, not yet stored."""
        from dashboard.store.claims import call_key

        self.recorded.append(call_key(spec.cache_key, spec.judge))

    def mark(self) -> int:
        """How many recorded calls a merge starting now takes into the store."""
        return len(self.recorded)

    def stored(self, marked: int) -> list[str]:
        """The calls of a merge that succeeded (taken on the loop's thread, which records)."""
        done, self.recorded = self.recorded[:marked], self.recorded[marked:]
        return done

    def finish(self, done: list[str]) -> None:
        """Stored calls are done: nobody makes them again in this run."""
        self.claims.finish(done)
        self.finished.update(done)

    async def keep_alive(self, stopped: asyncio.Event) -> None:
        """Renew this process's claims until the run stops."""
        while not stopped.is_set():
            try:
                await asyncio.wait_for(stopped.wait(), timeout=self.claims.lease_s / 3)
            except TimeoutError:
                try:
                    await asyncio.to_thread(self.claims.renew)
                except StoreError as error:  # the claims lapse; others may make them again
                    log.warning("the run's claims were not renewed: %s", error)

    def close(self) -> None:
        """Give back what was claimed and not made (a cancel, a fault); calls made whose
        results could not be stored stay held until their lease runs out."""
        unmade = self.claimed - self.finished - set(self.recorded)
        try:
            self.claims.release(sorted(unmade))
            self.claims.close(list(self.run_keys.values()))
        except StoreError as error:
            log.warning("the run's claims were not given back: %s", error)


async def run_judge(run: Recorder, judge: Judge, calls: Calls, *, rubric: Rubric) -> None:
    """Make the judge's calls with its concurrency and rate limits; each outcome goes to
    `run.record`. A cancel or a fault lets the calls in flight finish; no new one starts."""
    from dashboard.judging.llm import JudgeClient

    def stopping() -> bool:
        return run.cancelled or run.fault is not None

    try:
        client = JudgeClient(judge, kind=rubric.kind, low=rubric.scale_low, high=rubric.scale_high)
    except PanelError as error:  # e.g. its key variable is not set: fail only this judge
        while (spec := await calls.next_call(judge.name, stopping=stopping)) is not None:
            run.record(judge, spec, CallOutcome(None, str(error), 0, None))
        return
    limiter = RateLimiter.for_judge(judge)

    async def worker() -> None:
        while (spec := await calls.next_call(judge.name, stopping=stopping)) is not None:
            async with slot(limiter, tokens_of_call(judge, spec.messages)):
                outcome = await call_with_retries(
                    client, spec.messages, case=spec.case, epoch=spec.epoch
                )
            run.record(judge, spec, outcome)

    with client.scrubbed_logs():
        await asyncio.gather(*(worker() for _ in range(judge.concurrency)))


def shared_calls(store: Store, plan: RunPlan, *, batch: bool) -> ClaimedCalls | None:
    """The claims of a run on a PostgreSQL store (None: the run makes its whole plan)."""
    if not store.on_server or batch or plan.epochs > 1 or not plan.calls:
        return None
    return ClaimedCalls(store, plan)
