"""The parent side of a judge run over several worker processes (`judge --workers N`).

The plan's calls are partitioned deterministically: for each judge, its i-th call goes to
worker i mod N, so no call is made by two workers. On a PostgreSQL store the calls are those
this process claims in the run it shares with other processes (`sources.ClaimedCalls`),
claimed while the workers have little left and handed to each worker in turn. Workers
receive their calls in chunks and send back outcomes; the parent records each one exactly as
a one-process run does (`runner._Run.record`: the journal, the merge into DuckDB, progress,
the summary). The parent is the only process that opens the store: one writer, behind the
gate.

Workers are spawned, never forked (see `worker.py`). A process whose `__main__` is a script
(a Streamlit page, a console script) would make each spawned child run that script again as
its main module; `spawn_safely` points `__main__` at `dashboard.judging.worker`, whose import
has no side effects, while the workers start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import queue
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from dashboard.judging.calls import CallOutcome
from dashboard.judging.panel import Judge
from dashboard.judging.plan import CachedCall, CallSpec, RunPlan
from dashboard.judging.sources import ClaimedCalls
from dashboard.judging.worker import Task, WorkerSetup, serve
from dashboard.store import StoreError


class Recorder(Protocol):
    """What the pool needs of a run (`runner._Run`): its plan, whether to stop, and where
    each outcome goes."""

    plan: RunPlan
    fault: StoreError | None
    shared: ClaimedCalls | None  # on a PostgreSQL store: the calls this process claims

    @property
    def cancelled(self) -> bool: ...

    def record(self, judge: Judge, spec: CallSpec, outcome: CallOutcome) -> None: ...

    def write_cached(self, cached: Sequence[CachedCall]) -> None: ...


log = logging.getLogger(__name__)

CHUNK = 256  # calls per message to a worker
WAIT_S = 0.2
RECEIVE_MAX = 16  # messages taken from the result queue at a time
_main_lock = threading.Lock()


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def partition(calls: Sequence[CallSpec], workers: int) -> list[list[int]]:
    """Indexes of the calls each worker makes: every judge's i-th call to worker i mod N."""
    shares: list[list[int]] = [[] for _ in range(workers)]
    seen: dict[str, int] = {}
    for index, spec in enumerate(calls):
        nth = seen.get(spec.judge, 0)
        seen[spec.judge] = nth + 1
        shares[nth % workers].append(index)
    return shares


@contextlib.contextmanager
def spawn_safely() -> Iterator[Any]:
    """A `spawn` context, with `__main__` pointed at the worker module while processes start."""
    import dashboard.judging.worker as harmless

    with _main_lock:
        main = sys.modules.get("__main__")
        sys.modules["__main__"] = harmless
        try:
            yield multiprocessing.get_context("spawn")
        finally:
            if main is not None:
                sys.modules["__main__"] = main


class WorkerPool:
    """N spawned workers making the plan's calls; outcomes go to `run.record`."""

    def __init__(
        self, run: Recorder, workers: int, *, chunks: Iterator[RunPlan] | None = None
    ) -> None:
        self.run = run
        self.n = workers
        self.calls = run.plan.calls
        self.chunks = chunks  # a streamed plan's chunks (`stream.PlanChunks`), read as fed
        self.shares = partition(self.calls, workers)
        self.processes: list[Any] = []
        # The calls handed to workers and not yet reported, by index: all of the plan, those
        # claimed on a PostgreSQL store, or about two chunks of a streamed plan.
        self.live: dict[int, CallSpec] = {}
        self.feed_error: StoreError | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.index = {spec.cache_key: i for i, spec in enumerate(self.calls)}
        self.stopping = threading.Event()

    def _start(self) -> tuple[Any, list[Any], Any]:
        plan = self.run.plan
        rubric = plan.rubric
        with spawn_safely() as context:
            results = context.Queue()
            stop = context.Event()
            inboxes = []
            for worker in range(self.n):
                setup = WorkerSetup(
                    worker,
                    plan.panel.judges,
                    rubric.kind,
                    rubric.scale_low,
                    rubric.scale_high,
                    1.0 / self.n,
                    os.getpid(),
                )
                inbox = context.Queue()
                process = context.Process(
                    target=serve,
                    args=(setup, inbox, results, stop),
                    name=f"judgeboard-judge-{worker}",
                    daemon=True,
                )
                process.start()
                self.processes.append(process)
                inboxes.append(inbox)
        return results, inboxes, stop

    def _task(self, index: int, spec: CallSpec | None = None) -> Task:
        spec = self.calls[index] if spec is None else spec
        self.live[index] = spec
        return Task(index, spec.judge, spec.messages, spec.case, spec.epoch)

    def _feed(self, inboxes: Sequence[Any]) -> None:
        """Each worker's calls in chunks (a thread: a queue's feeder pickles in the
        background, and the first chunks let workers start while the rest are sent)."""
        if self.run.shared is not None:
            self._feed_claimed(self.run.shared, inboxes)
            return
        if self.chunks is not None:
            self._feed_chunks(self.chunks, inboxes)
            return
        self.live.update(enumerate(self.calls))  # all sent, for `_lost`, before any is put
        for worker, share in enumerate(self.shares):
            for start in range(0, len(share), CHUNK):
                inboxes[worker].put([self._task(i) for i in share[start : start + CHUNK]])
            inboxes[worker].put(None)

    def _feed_claimed(self, shared: ClaimedCalls, inboxes: Sequence[Any]) -> None:
        """Calls claimed a few at a time, while the workers have little left to do, each
        claim to the next worker in turn; then every worker's end marker."""
        open_judges = [j.name for j in self.run.plan.panel.judges]
        ahead = sum(shared.limit(name) for name in open_judges)
        turn = 0
        try:
            while open_judges and not self.stopping.is_set():
                if len(self.live) >= ahead:
                    time.sleep(WAIT_S / 4)
                    continue
                claimed_any = False
                for name in list(open_judges):
                    found = shared.take(name, shared.limit(name))
                    if found is None:
                        open_judges.remove(name)
                    elif found:
                        claimed_any = True
                        inboxes[turn % self.n].put(
                            [self._task(self.index[s.cache_key]) for s in found]
                        )
                        turn += 1
                if open_judges and not claimed_any:
                    self.stopping.wait(shared.poll_s)
        except StoreError as error:  # the calls sent are made; the others are not claimed
            log.warning("claiming calls stopped: %s", error)
        finally:
            for inbox in inboxes:
                inbox.put(None)

    def _feed_chunks(self, chunks: Iterator[RunPlan], inboxes: Sequence[Any]) -> None:
        """A streamed plan's chunks, read one at a time while fewer than a chunk's calls wait
        for their outcome; every judge's i-th call to worker i mod N; a chunk's cache hits
        written on the loop's thread (the journal is not thread-safe)."""
        if self.loop is None:
            raise RuntimeError("the pool feeds chunks only while its event loop runs")
        dealt: dict[str, int] = {}
        index = 0
        try:
            for chunk in chunks:
                self.loop.call_soon_threadsafe(self.run.write_cached, chunk.cached)
                tasks: list[list[Task]] = [[] for _ in range(self.n)]
                for spec in chunk.calls:
                    nth = dealt[spec.judge] = dealt.get(spec.judge, -1) + 1
                    tasks[nth % self.n].append(self._task(index, spec))
                    index += 1
                del chunk
                for worker, share in enumerate(tasks):
                    for start in range(0, len(share), CHUNK):
                        inboxes[worker].put(share[start : start + CHUNK])
                del tasks
                while len(self.live) >= self.run.plan.chunk and not self.stopping.is_set():
                    time.sleep(WAIT_S / 4)
                if self.stopping.is_set():
                    break
        except StoreError as error:  # the calls sent are made; the run then fails
            self.feed_error = error
            self.stopping.set()
        finally:
            for inbox in inboxes:
                inbox.put(None)

    def _receive(self, results: Any) -> list[Any]:
        """The messages waiting (up to `RECEIVE_MAX`), after waiting up to `WAIT_S` for the
        first: one trip to a thread for several messages, not one each."""
        messages: list[Any] = []
        try:
            messages.append(results.get(timeout=WAIT_S))
            while len(messages) < RECEIVE_MAX:
                messages.append(results.get_nowait())
        except queue.Empty:
            pass
        return messages

    def _record(self, batch: Sequence[tuple[int, CallOutcome]]) -> None:
        judges = {j.name: j for j in self.run.plan.panel.judges}
        for index, outcome in batch:
            spec = self.live.pop(index, None)
            if spec is None:  # reported already
                continue
            self.run.record(judges[spec.judge], spec, outcome)

    async def run_calls(self) -> float:
        """Start the workers, feed them, record every outcome; returns when all have ended,
        with the `time.perf_counter()` at which every worker was ready to call."""
        self.loop = asyncio.get_running_loop()
        results, inboxes, stop = await asyncio.to_thread(self._start)
        feeder = threading.Thread(target=self._feed, args=(inboxes,), daemon=True)
        feeder.start()
        ready: set[int] = set()
        ready_at = time.perf_counter()
        finished: set[int] = set()
        errors: list[str] = []
        try:
            while len(finished) < self.n:
                if (self.run.cancelled or self.run.fault is not None) and not stop.is_set():
                    stop.set()
                    self.stopping.set()
                messages = await asyncio.to_thread(self._receive, results)
                if not messages:
                    finished |= {
                        w
                        for w, p in enumerate(self.processes)
                        if p.exitcode is not None and w not in finished
                    }
                    continue
                for message in messages:
                    kind, worker = message[0], message[1]
                    if kind == "results":
                        self._record(message[2])
                    elif kind == "ready":
                        ready.add(worker)
                        if len(ready) == self.n:
                            ready_at = time.perf_counter()
                    elif kind == "error":
                        errors.append(message[2])
                        finished.add(worker)
                    elif kind == "done":
                        finished.add(worker)
        finally:
            stop.set()
            self.stopping.set()
            self._record(await asyncio.to_thread(self._end, results))
        self._lost(errors)
        if self.feed_error is not None:
            raise self.feed_error
        return ready_at

    def _end(self, results: Any) -> list[tuple[int, CallOutcome]]:
        """Wait for the workers; the outcomes they sent last (recorded on the loop's thread:
        the journal is not thread-safe)."""
        last: list[tuple[int, CallOutcome]] = []
        with contextlib.suppress(queue.Empty, OSError, EOFError):
            while any(p.is_alive() for p in self.processes):  # a full pipe blocks its writer
                message = results.get(timeout=WAIT_S)
                if message[0] == "results":
                    last.extend(message[2])
        for process in self.processes:
            process.join(timeout=30)
            if process.exitcode is None:
                process.terminate()
                process.join(timeout=5)
        with contextlib.suppress(queue.Empty, OSError, EOFError):
            while True:
                message = results.get(timeout=0.05)
                if message[0] == "results":
                    last.extend(message[2])
        return last

    def _lost(self, errors: Sequence[str]) -> None:
        """Calls a dead worker never reported fail (the next run makes them), unless the
        run was cancelled or stopped by a fault (then they were never started)."""
        if self.run.cancelled or self.run.fault is not None:
            return
        reason = "a worker process ended before making this call"
        if errors:
            reason = f"{reason}: {errors[0]}"
        judges = {j.name: j for j in self.run.plan.panel.judges}
        for index in sorted(self.live):
            spec = self.live.pop(index)
            self.run.record(judges[spec.judge], spec, CallOutcome(None, reason, 0, None))
