"""Running a plan: asyncio, bounded concurrency per judge, and a journal for every result.

Every finished call (ok, or failed after its retries) is appended at once to the run's
journal in the spool, with its rating or preference rows, so a run killed at any point loses
nothing it paid for: the next `store.connection()` applies the dead process's journal, and the
next plan finds those calls cached. Every `flush_every_s` the journal is closed (handed over as
a closed file) and merged into DuckDB with a short wait; when the database is busy (the
dashboard or another command holds it) the merge simply happens later. One judge's failures
never stop the others: each judge has its own pool of `concurrency` workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from dashboard.auth.roles import User, require_admin
from dashboard.ids import new_id, utc_now
from dashboard.judging.calls import CallOutcome
from dashboard.judging.epochs import EpochResults
from dashboard.judging.errors import error_line, stopping_fault
from dashboard.judging.panel import Judge
from dashboard.judging.plan import CachedCall, CallSpec, RunPlan
from dashboard.judging.records import call_row, parse_output, probe_row, result_row
from dashboard.judging.secrets import scrub_secrets
from dashboard.judging.sources import ClaimedCalls, PlannedCalls, run_judge, shared_calls
from dashboard.judging.summary import RunSummary, Tally, finish_run
from dashboard.judging.targets import Target
from dashboard.store import (
    DiskFull,
    JournalUnusable,
    ReadOnlyDatabase,
    Store,
    StoreBusy,
    StoreError,
)
from dashboard.store.errors import WriteConflict, fault_of, journal_reason
from dashboard.store.journal import Batch

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
Failure = Callable[[str, str], None]  # (judge, one readable line), as each call fails
FLUSH_EVERY_S = 1.5
FLUSH_WAIT_S = 0.2
# Disk kept aside per call in flight, so that results already paid for reach the journal
# when the disk fills up (a call's lines take a few KB).
RESERVE_BYTES_PER_CALL = 64 * 1024


class _Run:
    def __init__(
        self,
        store: Store,
        plan: RunPlan,
        *,
        on_progress: Progress | None,
        flush_every_s: float,
        on_failure: Failure | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        self.store, self.plan = store, plan
        self.rubric = plan.rubric
        self.run_id = new_id()
        in_flight = sum(judge.concurrency for judge in plan.panel.judges)
        self.journal = store.spool.journal(
            f"run-{self.run_id}", reserve_bytes=RESERVE_BYTES_PER_CALL * max(in_flight, 1)
        )
        # A fault of the disk or the file: no new call starts once it is set.
        self.fault: StoreError | None = None
        self.journaled_calls = self.lost_calls = 0  # paid calls kept in the journal, and not
        self.tallies = {j.name: Tally() for j in plan.panel.judges}
        self.on_progress, self.on_failure, self.cancel = on_progress, on_failure, cancel
        self.flush_every_s = flush_every_s
        self.done, self.total = 0, plan.calls_needed if plan.chunk else len(plan.calls)
        self.pending_writes = False
        self.flush_lock = asyncio.Lock()
        self.stopped = asyncio.Event()
        self.epochs = EpochResults(plan) if plan.epochs > 1 else None
        self.shared: ClaimedCalls | None = None  # the calls claimed on a PostgreSQL store

    @property
    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def failed(self, judge: str, error: str | None) -> None:
        if self.on_failure is not None:
            try:
                self.on_failure(judge, error_line(error))
            except Exception:
                log.exception("failure callback failed")

    def progress(self) -> None:
        if self.on_progress is not None:
            try:
                self.on_progress(self.done, self.total)
            except Exception:
                log.exception("progress callback failed")

    def _results(
        self,
        judge: str,
        targets: Sequence[Target],
        *,
        call_id: str,
        raw_output: str | None,
        write: Sequence[Target],
        epoch: int = 0,
    ) -> list[dict[str, Any]]:
        """Parse once per target; count parse failures and pairwise verdicts; build rows for
        the targets in `write` (with epochs, gather every target's rating instead)."""
        tally = self.tallies[judge]
        rows = []
        for target in targets:
            parsed = parse_output(self.rubric, raw_output, shown_first=target.shown_first)
            if not parsed.scored:
                tally.parse_failures += 1
            # A preference target is always shown in one order (`shown_first` "A" or "B").
            if target.kind == "preference" and target.shown_first is not None:
                tally.verdicts.setdefault(target.pair, {})[target.shown_first] = parsed.verdict
            if self.epochs is not None:
                self.epochs.add(judge, target, parsed, call_id=call_id, raw=raw_output, epoch=epoch)
            elif target in write:
                row = result_row(
                    target,
                    parsed,
                    rubric=self.rubric,
                    rater=judge,
                    call_id=call_id,
                    raw_output=raw_output,
                )
                if self.plan.probe is not None:
                    row = probe_row(self.plan.probe, row, item_id=target.item_id)
                rows.append(row)
        return rows

    def _append(self, call: dict[str, Any] | None, results: list[Any], table: str = "") -> None:
        # Calls first: a torn last line may lose a rating, which the next plan re-derives from
        # the stored call, but never a call.
        try:
            if call is not None:
                self.journal.append(Batch("judge_calls", (call,)))
                self.journaled_calls += 1
            if results and self.plan.probe is not None:  # kept apart from real results
                self.journal.append(Batch("probes", tuple(results)))
            elif results:
                table = table or ("preferences" if self.rubric.is_pairwise else "ratings")
                self.journal.append(Batch(table, tuple(results)))
        except OSError as error:
            self.lost_calls += 1 if call is not None else 0
            self.stop(fault_of(error, self.store.location) or self._journal_fault(error))
            log.info("cannot keep a result in the journal %s: %s", self.journal.path, error)
        if self.journal.disk_full:
            self.stop(DiskFull(self.store.location))

    def _journal_fault(self, error: OSError) -> StoreError:
        where = self.store.spool.directory
        return JournalUnusable(where, journal_reason(where, error), "the judge run stopped")

    def stop(self, fault: StoreError) -> None:
        """No new call starts; the calls in flight finish and are kept."""
        if self.fault is None:
            self.fault = fault
            log.info("the judge run stops: %s", fault)  # the caller reports it

    def preflight(self) -> None:
        """Before the first call is paid: the database takes results, earlier ones waiting in
        the journal are in it (else paid again), and the journal can keep every result."""
        if self.store.read_only:
            raise ReadOnlyDatabase(self.store.location)
        if self.store.spool.has_ready():  # busy: only a live writer's are left
            with contextlib.suppress(StoreBusy, WriteConflict):
                self.store.apply_pending(wait_s=FLUSH_WAIT_S * 10)
        try:
            self.journal.open()
        except OSError as error:
            consequence = "the judge run did not start (it keeps every paid call there)"
            fault = fault_of(error, self.store.location)
            if isinstance(fault, DiskFull):
                raise DiskFull(self.store.location, kept=f" ({consequence})") from error
            where = self.store.spool.directory
            raise JournalUnusable(where, journal_reason(where, error), consequence) from error

    def write_cached(self, cached: Sequence[CachedCall], *, hits: bool = True) -> None:
        for hit in cached:  # `hits` False: calls of this run's own prompts (`stream.py`)
            self.tallies[hit.judge].cache_hits += 1 if hits else 0
            rows = self._results(
                hit.judge,
                hit.targets,
                call_id=hit.call_id,
                raw_output=hit.raw_output,
                write=hit.missing,
                epoch=hit.epoch,
            )
            self._append(None, rows)

    def record(self, judge: Judge, spec: CallSpec, outcome: CallOutcome) -> None:
        tally = self.tallies[judge.name]
        tally.calls_made += 1
        tally.attempts += outcome.attempts
        tally.retries += max(outcome.attempts - 1, 0)
        call_id = new_id()
        done = outcome.completion
        # The one door through which error text reaches judge_calls, judge_runs and the
        # summary: whatever made it, no key passes.
        error = (
            scrub_secrets(outcome.error, env_names=judge.key_env_names)
            if outcome.error is not None
            else None
        )
        call = call_row(
            call_id=call_id,
            cache_key=spec.cache_key,
            run_id=self.run_id,
            judge=judge.name,
            model=judge.model,
            rubric=self.rubric,
            prompt_hash=spec.prompt_hash,
            targets=spec.targets,
            ok=outcome.ok,
            raw_output=done.text if done else None,
            error=error,
            attempts=outcome.attempts,
            latency_ms=outcome.latency_ms,
            prompt_tokens=done.prompt_tokens if done else None,
            completion_tokens=done.completion_tokens if done else None,
            cost_usd=done.cost_usd if done else None,
            model_version=done.model_version if done else None,
            epoch=spec.epoch,
        )
        results: list[dict[str, Any]] = []
        if done is None:
            tally.failures += 1
            tally.last_error = error
            tally.failed_keys.append(spec.cache_key)
            self.failed(judge.name, error)
        else:
            tally.prompt_tokens += done.prompt_tokens or 0
            tally.completion_tokens += done.completion_tokens or 0
            tally.add_cost(done.cost_usd)
            results = self._results(
                judge.name,
                spec.targets,
                call_id=call_id,
                raw_output=done.text,
                write=spec.targets,
                epoch=spec.epoch,
            )
        self._append(call, results)
        if self.shared is not None:
            self.shared.made(spec)
        self.done += 1
        self.progress()

    async def flush(self, *, wait_s: float) -> None:
        """Hand the journal over and merge what is closed into DuckDB, if it is free."""
        async with self.flush_lock:  # one merge at a time: two would insert the same rows
            marked = self.shared.mark() if self.shared is not None else 0
            if self.journal.close() is None and not self.store.spool.has_ready():
                return
            try:
                await asyncio.to_thread(self.store.apply_pending, wait_s=wait_s)
                self.pending_writes = False
                if self.shared is not None:  # stored: nobody makes these calls again
                    await asyncio.to_thread(self.shared.finish, self.shared.stored(marked))
            except (StoreBusy, WriteConflict):  # another write of the file, or of its rows
                self.pending_writes = True
                log.info("database busy; results stay in the spool until the next merge")
            except StoreError as error:  # a full disk: the results stay in the journal
                self.pending_writes = True
                self.stop(error)

    async def flush_periodically(self) -> None:
        while not self.stopped.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopped.wait(), timeout=self.flush_every_s)
            if not self.stopped.is_set():
                await self.flush(wait_s=FLUSH_WAIT_S)

    def write_epochs(self) -> None:
        """The reduced rating of every answer whose epochs all succeeded, and each epoch."""
        if self.epochs is not None:
            reduced, each = self.epochs.rows()
            self._append(None, reduced)
            self._append(None, each, table="epoch_ratings")
            for name, tally in self.tallies.items():
                tally.consistency = self.epochs.consistency(name)

    def summary(self, wall_s: float) -> RunSummary:
        judges = tuple(
            self.tallies[p.judge].summary(judge=p.judge, model=p.model, calls_planned=p.calls_total)
            for p in self.plan.judges
        )
        failed = tuple(key for tally in self.tallies.values() for key in tally.failed_keys)
        return RunSummary(
            self.run_id,
            self.rubric.name,
            self.rubric.version,
            judges,
            wall_s,
            self.pending_writes,
            cancelled=self.cancelled,
            failed_keys=failed,
        )


async def run_plan(
    store: Store,
    plan: RunPlan,
    *,
    on_progress: Progress | None = None,
    flush_every_s: float | None = None,
    final_wait_s: float | None = None,
    on_failure: Failure | None = None,
    cancel: threading.Event | None = None,
    actor: User | None = None,
    workers: int = 1,
    batch: bool = False,
    poll_every_s: float | None = None,
    on_note: Callable[[str], None] | None = None,
) -> RunSummary:
    """Make the plan's calls and store every result (`on_progress(done, total)`, then
    `on_failure(judge, line)` for a failed one); with `cancel` set, no call starts. Results merge
    every `flush_every_s`, the last waiting `final_wait_s`. `workers` > 1: spawned processes
    (`pool.py`); `batch`: batch APIs (`batches.py`, `on_note` hears each batch). A labeller
    (`actor`) is refused before any call: calls cost money."""
    require_admin(actor, "run judges")
    run = _Run(
        store,
        plan,
        on_progress=on_progress,
        flush_every_s=FLUSH_EVERY_S if flush_every_s is None else flush_every_s,
        on_failure=on_failure,
        cancel=cancel,
    )
    await asyncio.to_thread(run.preflight)
    run.shared = shared_calls(store, plan, batch=batch)
    if run.shared is not None:
        await asyncio.to_thread(run.shared.open)
    n_calls = run.total  # a streamed plan's calls are counted, not listed
    pooled = workers > 1 and n_calls > 1 and not batch
    if n_calls and not pooled:  # LiteLLM's 3-second import belongs before the clock
        from dashboard.judging.llm import litellm_module

        await asyncio.to_thread(litellm_module)
    started, started_utc = time.perf_counter(), utc_now()
    run.write_cached(plan.cached)
    run.progress()
    flusher = asyncio.create_task(run.flush_periodically())
    if run.shared is not None:
        renewer = asyncio.create_task(run.shared.keep_alive(run.stopped))
    try:
        if batch:
            from dashboard.judging.batches import run_batches

            await run_batches(run, poll_s=poll_every_s, note=on_note or log.info)
        elif plan.chunk:  # a chunk at a time (`stream.py`)
            from dashboard.judging.stream import run_chunks

            started = await run_chunks(run, workers=workers if pooled else 1, started=started)
        elif pooled:
            from dashboard.judging.pool import WorkerPool  # spawns processes: only when asked

            started = await WorkerPool(run, workers).run_calls()  # the clock starts when ready
        else:
            calls = run.shared or PlannedCalls(plan)
            judges = [j for j in plan.panel.judges if any(c.judge == j.name for c in plan.calls)]
            await asyncio.gather(*(run_judge(run, j, calls, rubric=run.rubric) for j in judges))
        run.write_epochs()
    finally:
        run.stopped.set()  # not cancel(): a merge in progress must finish before the last one
        await flusher
        await run.flush(wait_s=store.db.wait_s if final_wait_s is None else final_wait_s)
        if run.shared is not None:
            await renewer
            await asyncio.to_thread(run.shared.close)
    summary = run.summary(time.perf_counter() - started)
    fault = stopping_fault(run.fault, store, journaled=run.journaled_calls, lost=run.lost_calls)
    if fault is not None:
        raise fault
    await asyncio.to_thread(
        finish_run, store, plan, summary, started_utc=started_utc, wait_s=FLUSH_WAIT_S * 10
    )
    return summary
