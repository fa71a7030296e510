"""A worker process of a judge run: it makes its share of the plan's calls and sends back
every outcome; it never opens the database (the parent records and merges every result).

Started by `pool.py` with multiprocessing's `spawn` method, never `fork`: a process forked
while its parent has the store open would inherit DuckDB's instance without its lock
(`store.gate.ForkedWhileOpen`). Importing this module has no side effects, so that it can
stand in as the child's main module (see `pool.spawn_safely`).

Messages on the result queue: ("ready", worker), ("results", worker, [(index, outcome)…]),
("done", worker), ("error", worker, text).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dashboard.judging.calls import CallOutcome, call_with_retries
from dashboard.judging.limits import RateLimiter, slot, tokens_of_call
from dashboard.judging.offline import Case
from dashboard.judging.panel import Judge, PanelError

RESULT_BATCH = 64  # outcomes per message at most
RESULT_EVERY_S = 0.05  # and at least this often while outcomes wait
PARENT_CHECK_S = 0.5


@dataclass(frozen=True)
class Task:
    """One call for a worker: its index in the plan's calls, and what the call needs."""

    index: int
    judge: str
    messages: Sequence[Mapping[str, str]]
    case: Case | None
    epoch: int = 0  # which of `--epochs N` asks: it moves the seed (`calls.call_with_retries`)


@dataclass(frozen=True)
class WorkerSetup:
    """What a worker needs besides its tasks. `share` is its fraction of every judge's
    concurrency and rate limits (1 / the number of workers)."""

    worker: int
    judges: tuple[Judge, ...]
    kind: str
    low: float | None
    high: float | None
    share: float
    parent_pid: int


def share_of(judge: Judge, share: float) -> Judge:
    """The judge as one worker runs it: its share of the concurrency (at least 1)."""
    import dataclasses

    return dataclasses.replace(judge, concurrency=max(1, int(judge.concurrency * share)))


class _Outbox:
    """Outcomes batched into few messages: one pickled message per call would cost the
    parent more than the call."""

    def __init__(self, results: Any, worker: int) -> None:
        self.results = results
        self.worker = worker
        self.waiting: list[tuple[int, CallOutcome]] = []
        self.since = time.monotonic()

    def add(self, index: int, outcome: CallOutcome) -> None:
        self.waiting.append((index, outcome))
        if len(self.waiting) >= RESULT_BATCH or time.monotonic() - self.since >= RESULT_EVERY_S:
            self.send()

    def send(self) -> None:
        if self.waiting:
            self.results.put(("results", self.worker, self.waiting))
            self.waiting = []
        self.since = time.monotonic()


def _tasks(tasks: Any, stop: Any) -> Iterator[list[Task]]:
    """Chunks of tasks from the parent, until its end marker (None) or a stop."""
    while not stop.is_set():
        try:
            chunk = tasks.get(timeout=PARENT_CHECK_S)
        except queue.Empty:
            continue
        if chunk is None:
            return
        yield chunk


async def _serve(setup: WorkerSetup, tasks: Any, results: Any, stop: Any) -> None:
    from dashboard.judging.llm import JudgeClient, litellm_module

    litellm_module()
    judges = {j.name: share_of(j, setup.share) for j in setup.judges}
    clients: dict[str, JudgeClient | PanelError] = {}
    for name, judge in judges.items():
        try:
            clients[name] = JudgeClient(judge, kind=setup.kind, low=setup.low, high=setup.high)
        except PanelError as error:  # e.g. its key variable is not set: fail only this judge
            clients[name] = error
    limiters = {
        name: RateLimiter.for_judge(judge, share=setup.share) for name, judge in judges.items()
    }
    loop = asyncio.get_running_loop()
    queues: dict[str, asyncio.Queue[Task | None]] = {name: asyncio.Queue() for name in judges}
    outbox = _Outbox(results, setup.worker)
    results.put(("ready", setup.worker))

    def deal(chunk: list[Task]) -> None:
        for task in chunk:
            queues[task.judge].put_nowait(task)

    def read() -> None:  # a thread: the parent's queue blocks
        for chunk in _tasks(tasks, stop):
            loop.call_soon_threadsafe(deal, chunk)  # one wake-up of the loop a chunk
        for name, judge in judges.items():
            for _ in range(judge.concurrency):
                loop.call_soon_threadsafe(queues[name].put_nowait, None)

    async def call(name: str) -> None:
        client, limiter, pending = clients[name], limiters[name], queues[name]
        while (task := await pending.get()) is not None:
            if stop.is_set():  # a cancel or a fault: no new call starts
                continue
            if isinstance(client, PanelError):
                outcome = CallOutcome(None, str(client), 0, None)
            else:
                async with slot(limiter, tokens_of_call(judges[name], task.messages)):
                    outcome = await call_with_retries(
                        client, task.messages, case=task.case, epoch=task.epoch
                    )
            outbox.add(task.index, outcome)

    async def flush_outbox() -> None:
        while True:
            await asyncio.sleep(RESULT_EVERY_S)
            outbox.send()

    reader = threading.Thread(target=read, name="judge-tasks", daemon=True)
    reader.start()
    flusher = asyncio.create_task(flush_outbox())
    callers = [call(n) for n, j in judges.items() for _ in range(j.concurrency)]
    with contextlib.ExitStack() as scrubbed:
        for client in clients.values():
            if not isinstance(client, PanelError):
                scrubbed.enter_context(client.scrubbed_logs())
        await asyncio.gather(*callers)
    flusher.cancel()
    outbox.send()


def _watch_parent(parent_pid: int) -> None:
    """A worker whose parent died (a killed run) stops at once: no result could be kept."""
    while True:
        time.sleep(PARENT_CHECK_S)
        if os.getppid() != parent_pid:
            os._exit(3)


def serve(setup: WorkerSetup, tasks: Any, results: Any, stop: Any) -> None:
    """The worker's entry point (the target of its `Process`)."""
    threading.Thread(
        target=_watch_parent, args=(setup.parent_pid,), name="parent-watch", daemon=True
    ).start()
    try:
        asyncio.run(_serve(setup, tasks, results, stop))
    except BaseException as error:  # reported to the parent, which fails the run
        results.put(("error", setup.worker, f"{type(error).__name__}: {error}"))
        raise
    results.put(("done", setup.worker))
