"""A big plan, streamed: targets read, rendered and cache-checked a chunk at a time.

`plan_streamed` returns a `RunPlan` whose counts and cost bound come from one pass over the
chunks that keeps only counters and a 64-bit hash of each prompt seen; its `calls` and `cached`
stay empty and its `chunk` says how many targets a chunk holds. The runner then reads the chunks
again (`PlanChunks`), each a small plan made by `plan_rendered`, and makes its calls while the
next is read, so that at most about two chunks of rendered prompts are alive at a time, whatever
the plan's size. What grows with the plan is the sorted array of prompt hashes (8 bytes a
distinct prompt: 8 MB for a million). A page of targets is chosen among the responses' keys
before their texts are read (`targets_sql.select_rating_targets`), so reading one does not
grow with the plan either.

Targets with one prompt share one call, as in a whole plan: within a chunk `plan_rendered`
groups them; a prompt met again in a later chunk (two items with the same question, references
and answer) is put aside and planned at the end of the run, after a merge, when the call made
for it is found in the store's cache.

Streamed: the online runs of rating rubrics (one worker or `--workers N`), with one epoch, on a
file store. Pairwise rubrics, `--epochs`, `--labelled-only`, `--batch`, PostgreSQL's shared runs,
probes and the dashboard's Run judges page plan whole (`plan_run`).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

import numpy as np

from dashboard.judging import targets_sql
from dashboard.judging.calls import CallOutcome
from dashboard.judging.limits import tokens_of_call
from dashboard.judging.panel import Judge, Panel
from dashboard.judging.plan import (
    Built,
    CachedCall,
    CallSpec,
    JudgePlan,
    Rendered,
    RunPlan,
    make_selection,
    plan_rendered,
    plan_run,
    prompt_hash,
    render_targets,
)
from dashboard.judging.rubrics import Rubric
from dashboard.judging.sources import ClaimedCalls, PlannedCalls, run_judge
from dashboard.judging.targets import rating_target
from dashboard.store import Store, StoreError

CHUNK = 5000  # targets read, rendered and checked against the cache at a time
WAIT_S = 0.05
DEFERRED_WAIT_S = 2.0  # the merge before the targets put aside are planned


def can_stream(
    store: Store,
    rubric: Rubric,
    *,
    epochs: int = 1,
    batch: bool = False,
    response_ids: Sequence[str] | None = None,
) -> bool:
    """Whether a run with these settings may plan a chunk at a time (see the module's text)."""
    return not (store.on_server or rubric.is_pairwise or epochs != 1 or batch) and (
        response_ids is None
    )


def _pages(store: Store, plan: RunPlan) -> Iterator[list[Built]]:
    """The selection's targets, `plan.chunk` at a time, in `select_rating_targets`' order."""
    sel, after = plan.selection, None
    while True:
        with store.connection() as con:  # one short read a chunk: merges run in between
            rows = targets_sql.select_rating_targets(
                con,
                dataset=sel.dataset,
                systems=sel.systems,
                task_types=plan.rubric.task_types,
                after=after,
                limit=plan.chunk,
            )
        if not rows:
            return
        after = targets_sql.rating_key(rows[-1])
        yield [(*rating_target(row), row) for row in rows]
        if len(rows) < plan.chunk:
            return


class PlanChunks:
    """The chunks of a streamed plan, each a `RunPlan` of its new prompts' calls and cache
    hits; `deferred` gathers the targets whose prompt an earlier chunk had."""

    def __init__(self, store: Store, plan: RunPlan) -> None:
        self.store, self.plan = store, plan
        self.deferred: list[Rendered] = []
        # The 64-bit hashes of the prompts of earlier chunks, sorted (a collision only defers
        # a target): 8 bytes each, where a set of Python ints takes about 70.
        self.seen = np.empty(0, dtype=np.uint64)
        self.with_cases = any(judge.is_baseline for judge in plan.panel.judges)

    def __iter__(self) -> Iterator[RunPlan]:
        for built in _pages(self.store, self.plan):
            rendered = render_targets(self.plan.rubric, built, with_cases=self.with_cases)
            digests = np.array([int(prompt_hash(found[1]), 16) for found in rendered], np.uint64)
            earlier = _members(self.seen, digests)
            self.deferred.extend(found for found, old in zip(rendered, earlier) if old)
            fresh = [found for found, old in zip(rendered, earlier) if not old]
            # Two sorted runs: a stable sort merges them in linear time.
            merged = np.concatenate([self.seen, np.unique(digests[~earlier])])
            self.seen = np.sort(merged, kind="stable")
            del built, rendered  # only the chunk's plan stays alive
            yield self.chunk_plan(fresh)

    def chunk_plan(self, rendered: Sequence[Rendered]) -> RunPlan:
        p = self.plan
        return plan_rendered(self.store, p.panel, p.rubric, p.selection, rendered)


def _members(sorted_values: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Which of `values` are in `sorted_values` (sorted ascending), as booleans."""
    if not len(sorted_values):
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_values, values), len(sorted_values) - 1)
    return np.asarray(sorted_values[at] == values)


def _sum(values: Sequence[float | None]) -> float | None:
    return None if any(v is None for v in values) else float(sum(v or 0.0 for v in values))


def _totals(plan: RunPlan, chunks: Sequence[RunPlan]) -> tuple[JudgePlan, ...]:
    """Each judge's counts and cost bounds over the chunks (a chunk prices only its calls)."""
    judges = []
    for i, judge in enumerate(plan.panel.judges):
        parts = [c.judges[i] for c in chunks]
        judges.append(
            JudgePlan(
                judge.name,
                judge.model,
                sum(p.calls_total for p in parts),
                sum(p.calls_cached for p in parts),
                sum(p.calls_needed for p in parts),
                _sum([p.estimated_cost_usd for p in parts]),
                _sum([p.estimated_batch_cost_usd for p in parts]) if parts else None,
                parts[0].batch_price if parts else None,
                tokens_needed=sum(p.tokens_needed or 0 for p in parts),
            )
        )
    return tuple(judges)


def _counted(chunk: RunPlan) -> RunPlan:
    """A chunk reduced to its counts (its prompts let go), with the tokens of its calls."""
    judges = tuple(
        dataclasses.replace(
            j,
            tokens_needed=sum(
                tokens_of_call(judge, s.messages) for s in chunk.calls if s.judge == judge.name
            ),
        )
        for judge, j in zip(chunk.panel.judges, chunk.judges, strict=True)
    )
    return dataclasses.replace(chunk, judges=judges, calls=(), cached=())


def plan_streamed(
    store: Store,
    panel: Panel,
    rubric: Rubric,
    *,
    dataset: str | None = None,
    systems: Sequence[str] | None = None,
    chunk: int = CHUNK,
) -> RunPlan:
    """The plan of a rating run, counted a chunk at a time; a selection of at most `chunk`
    targets is planned whole (`plan_run`), as is one `can_stream` refuses."""
    if not can_stream(store, rubric) or chunk < 1:
        return plan_run(store, panel, rubric, dataset=dataset, systems=systems)
    selection = make_selection(rubric, dataset=dataset, systems=systems)
    with store.connection() as con:
        n_targets = targets_sql.count_rating_targets(
            con, dataset=dataset, systems=selection.systems, task_types=rubric.task_types
        )
    if n_targets <= chunk:
        return plan_run(store, panel, rubric, dataset=dataset, systems=systems)
    plan = RunPlan(panel, rubric, selection, n_targets, (), (), (), chunk=chunk)
    chunks = PlanChunks(store, plan)
    counted = [_counted(c) for c in chunks]
    return dataclasses.replace(plan, judges=_totals(plan, counted))


class ChunkRun(Protocol):
    """What a streamed run needs of `runner._Run`."""

    plan: RunPlan
    store: Store
    rubric: Rubric
    total: int
    fault: StoreError | None
    shared: ClaimedCalls | None

    @property
    def cancelled(self) -> bool: ...

    def record(self, judge: Judge, spec: CallSpec, outcome: CallOutcome) -> None: ...

    def write_cached(self, cached: Sequence[CachedCall], *, hits: bool = True) -> None: ...

    async def flush(self, *, wait_s: float) -> None: ...


class StreamedCalls:
    """The calls of a streamed plan for one process's judges (`sources.Calls`): the next
    chunk is read when a judge has none left and fewer than a chunk's calls wait."""

    def __init__(self, run: ChunkRun, chunks: PlanChunks) -> None:
        self.run, self.chunks = run, iter(chunks)
        self.queues: dict[str, deque[CallSpec]] = {j.name: deque() for j in run.plan.panel.judges}
        self.lock = asyncio.Lock()
        self.over = False
        self.limit = max(run.plan.chunk, 1)

    async def next_call(self, judge: str, *, stopping: Callable[[], bool]) -> CallSpec | None:
        queue = self.queues[judge]
        while not stopping():
            if queue:
                return queue.popleft()
            if self.over:
                return None
            async with self.lock:  # one reader of the chunks; the others take from it
                if queue or self.over:
                    continue
                if sum(len(q) for q in self.queues.values()) >= self.limit:
                    await asyncio.sleep(WAIT_S)  # a slower judge holds a chunk's calls
                    continue
                chunk = await asyncio.to_thread(next, self.chunks, None)
                if chunk is None:
                    self.over = True
                    continue
                self.run.write_cached(chunk.cached)
                for spec in chunk.calls:
                    self.queues[spec.judge].append(spec)
        return None


async def run_chunks(run: ChunkRun, *, workers: int, started: float) -> float:
    """Make a streamed plan's calls (over `workers` processes when > 1), then those of the
    targets put aside; returns when the clock started (when every worker was ready)."""
    chunks = PlanChunks(run.store, run.plan)
    judges = run.plan.panel.judges
    if workers > 1:
        from dashboard.judging.pool import WorkerPool  # spawns processes: only when asked

        started = await WorkerPool(run, workers, chunks=iter(chunks)).run_calls()
    else:
        calls = StreamedCalls(run, chunks)
        await asyncio.gather(*(run_judge(run, j, calls, rubric=run.rubric) for j in judges))
    if chunks.deferred:
        await run.flush(
            wait_s=DEFERRED_WAIT_S
        )  # their prompts' calls into the store, found cached below
        rest = await asyncio.to_thread(chunks.chunk_plan, chunks.deferred)
        run.write_cached(rest.cached, hits=False)  # their calls are counted once already
        run.total += len(rest.calls)
        planned = PlannedCalls(rest)
        await asyncio.gather(*(run_judge(run, j, planned, rubric=run.rubric) for j in judges))
    return started
