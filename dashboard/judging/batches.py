"""`judge --batch`: a judge's calls through its provider's batch API, via LiteLLM's files and
batches calls (OpenAI's batch file format: one JSON request a line, `custom_id` = the call's
cache key).

Each batch's id is recorded in `judge_batches` as soon as the provider accepts it, before any
wait: a run killed while the provider works resumes by polling that batch (the next run whose
plan needs its keys), never by submitting those calls again. Before the create call, the batch
is recorded as an intent (`judge_batch_intents`) whose id goes to the provider in the batch's
metadata (`judgeboard_intent`) and in the input file's name: a run killed after the provider
created the batch and before its id was recorded leaves an open intent, and the next run lists
the provider's batches, finds the one carrying that intent and polls it; only when the provider
has none is the batch created (again). Providers whose batches LiteLLM cannot list
(`BATCH_LOOKUP_PROVIDERS`) cannot be asked: their open intents are submitted again, with a
note saying so. A finished batch's lines are
recorded through `runner._Run.record`, as online calls are: the same parser (an unparsed
output stays unscored), the same cache, the same journal. Each line costs the batch price
(`llm.batch_price`). A line the provider failed is recorded as a failed call with its error;
a request an expired or cancelled batch never ran is recorded as a failed call too ("not run
before the batch expired"), and the next run, which caches only successful calls, submits it
again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import tempfile
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from dashboard.ids import new_id
from dashboard.judging import batches_sql, calls_sql, sources
from dashboard.judging.batch_lines import completion_of, outcome_of, request_line
from dashboard.judging.batch_support import (
    BATCH_LOOKUP_PROVIDERS,
    BATCH_WINDOW,
    BATCH_WINDOW_TEXT,
    provider_of,
)
from dashboard.judging.calls import CallOutcome
from dashboard.judging.llm import (
    CallError,
    batch_price,
    classify,
    litellm_module,
)
from dashboard.judging.panel import Judge, api_key_for
from dashboard.judging.plan import CallSpec, RunPlan
from dashboard.store import Store, transaction
from dashboard.store.connection import Connection

log = logging.getLogger(__name__)

__all__ = ["completion_of", "outcome_of", "request_line", "run_batches", "JudgeBatches"]

Note = Callable[[str], None]
BATCH_MAX_REQUESTS = 50_000  # OpenAI's limit of requests per batch
POLL_EVERY_S = 30.0
TERMINAL = frozenset({"completed", "expired", "cancelled", "failed"})
INTENT_KEY = "judgeboard_intent"  # the batch's metadata key that carries its intent id
LIST_PAGE = 100
# How much earlier than its intent a provider's clock may date a batch (the lookup stops at
# batches older than that: they cannot be the intent's).
CLOCK_SKEW = timedelta(hours=1)


class Recorder(sources.Recorder, Protocol):
    """What a batch needs of its judge run (`runner._Run`) beyond what an online call needs
    (`sources.Recorder`: a fault, a cancel, `record`): where results go and the progress."""

    store: Store
    plan: RunPlan
    run_id: str
    done: int

    def progress(self) -> None: ...


def chunks(
    specs: Sequence[CallSpec], size: int = BATCH_MAX_REQUESTS
) -> Iterable[Sequence[CallSpec]]:
    for start in range(0, len(specs), size):
        yield specs[start : start + size]


class JudgeBatches:
    """One judge's calls of a run through its batch API: resume, submit, poll, record."""

    def __init__(
        self, run: Recorder, judge: Judge, specs: Sequence[CallSpec], *, poll_s: float, note: Note
    ) -> None:
        self.run, self.judge, self.poll_s, self.note = run, judge, poll_s, note
        self.by_key = {spec.cache_key: spec for spec in specs}
        self.price = batch_price(judge)
        self.seen: dict[str, int] = {}  # the provider's count of done lines, per batch
        self.kwargs: dict[str, Any] = {"custom_llm_provider": provider_of(judge)}
        if judge.api_base:
            self.kwargs["api_base"] = judge.api_base
        key = api_key_for(judge)
        if key is not None:
            self.kwargs["api_key"] = key

    async def run_all(self) -> None:
        pending, intents = await asyncio.to_thread(self._pending)
        resumed = [p for p in pending if any(k in self.by_key for k in p.cache_keys)]
        covered = {key for p in resumed for key in p.cache_keys}
        polls = []
        for p in resumed:
            self.note(f"{self.judge.name}: resuming batch {p.batch_id} ({p.n_requests} requests)")
            polls.append(self.poll(p.batch_id, p.cache_keys))
        for intent in intents:
            if not any(k in self.by_key and k not in covered for k in intent.cache_keys):
                continue
            try:
                batch_id = await self.find(intent)
            except CallError as error:  # asked again by the next run; none is created now
                mine = [k for k in intent.cache_keys if k in self.by_key and k not in covered]
                covered.update(mine)
                for key in mine:
                    failed = f"looking up batch intent {intent.intent_id} failed: {error}"
                    self.run.record(
                        self.judge, self.by_key[key], CallOutcome(None, failed, 0, None)
                    )
                continue
            if batch_id is None:
                continue  # the provider has no such batch: its calls are submitted below
            covered.update(intent.cache_keys)
            self.note(
                f"{self.judge.name}: resuming batch {batch_id} ({len(intent.cache_keys)} "
                f"requests), found at the provider by its intent {intent.intent_id}"
            )
            polls.append(self.poll(batch_id, intent.cache_keys))
        todo = [spec for key, spec in self.by_key.items() if key not in covered]
        for chunk in chunks(todo):
            if self.run.cancelled or self.run.fault is not None:
                break
            try:
                batch_id = await self.submit(chunk)
            except CallError as error:  # e.g. a wrong key: this chunk's calls fail, recorded
                for spec in chunk:
                    self.run.record(self.judge, spec, CallOutcome(None, str(error), 1, None))
                continue
            polls.append(self.poll(batch_id, tuple(s.cache_key for s in chunk)))
        await asyncio.gather(*polls)

    def _pending(self) -> tuple[list[batches_sql.PendingBatch], list[batches_sql.OpenIntent]]:
        with self.run.store.connection() as con:
            return (
                batches_sql.pending_batches(con, [self.judge.name]),
                batches_sql.open_intents(con, [self.judge.name]),
            )

    async def find(self, intent: batches_sql.OpenIntent) -> str | None:
        """The batch the provider created for this intent, recorded now as submitted; None
        (the intent recorded absent) when the provider has none. Raises CallError when the
        provider could not be asked (the intent stays open)."""
        provider = provider_of(self.judge)
        if provider not in BATCH_LOOKUP_PROVIDERS:
            self.note(
                f"{self.judge.name}: a run stopped while creating batch intent "
                f"{intent.intent_id}; LiteLLM cannot list {provider}'s batches to find it, so "
                f"its {len(intent.cache_keys)} requests are submitted again (look for a batch "
                f"with metadata {INTENT_KEY}={intent.intent_id} in the provider's console)"
            )
            found = None
        else:
            try:
                found = await self._look_up(intent)
            except Exception as error:  # noqa: BLE001 (every provider error is reported alike)
                raise classify(error, env_names=self.judge.key_env_names) from None
        batch_id = None if found is None else str(found.id)
        input_file_id = None if found is None else getattr(found, "input_file_id", None)
        await asyncio.to_thread(self._record_found, intent, batch_id, str(input_file_id or ""))
        return batch_id

    async def _look_up(self, intent: batches_sql.OpenIntent) -> Any:
        """The provider's batch whose metadata carries the intent's id, newest first, down to
        the batches created before the intent (less the clock skew)."""
        since = intent.created_utc.replace(tzinfo=UTC) - CLOCK_SKEW
        after = None
        while True:
            page = await litellm_module().alist_batches(after=after, limit=LIST_PAGE, **self.kwargs)
            batches = list(page.data or ())
            for batch in batches:
                if (batch.metadata or {}).get(INTENT_KEY) == intent.intent_id:
                    return batch
            older = [b for b in batches if datetime.fromtimestamp(b.created_at, UTC) < since]
            if not batches or older or not getattr(page, "has_more", False):
                return None
            after = batches[-1].id

    def _record_found(
        self, intent: batches_sql.OpenIntent, batch_id: str | None, input_file_id: str
    ) -> None:
        store = self.run.store
        with store.write_lock, store.connection() as con, transaction(con):
            if batch_id is not None:
                self._add_submitted(con, batch_id, input_file_id, intent.cache_keys)
            batches_sql.close_intent(
                con,
                intent_id=intent.intent_id,
                judge=self.judge.name,
                model=self.judge.model,
                run_id=self.run.run_id,
                batch_id=batch_id,
            )

    async def submit(self, specs: Sequence[CallSpec]) -> str:
        """Record the intent, upload the input file, create the batch with the intent in its
        metadata, and record its id before anything else."""
        litellm = litellm_module()
        keys = [spec.cache_key for spec in specs]
        intent_id = new_id()
        await asyncio.to_thread(self._record_intent, intent_id, keys)
        with tempfile.TemporaryFile() as file:  # the input never sits whole in memory
            for spec in specs:
                file.write(request_line(self.judge, spec).encode() + b"\n")
            file.seek(0)
            try:
                uploaded = await litellm.acreate_file(
                    file=(f"judgeboard-{intent_id}.jsonl", file), purpose="batch", **self.kwargs
                )
            except Exception as error:  # noqa: BLE001 (every provider error is reported alike)
                raise classify(error, env_names=self.judge.key_env_names) from None
        try:
            batch = await litellm.acreate_batch(
                completion_window=BATCH_WINDOW,
                endpoint="/v1/chat/completions",
                input_file_id=uploaded.id,
                metadata={INTENT_KEY: intent_id},
                **self.kwargs,
            )
        except Exception as error:  # noqa: BLE001
            raise classify(error, env_names=self.judge.key_env_names) from None
        try:
            await asyncio.to_thread(self._record_submitted, intent_id, batch.id, uploaded.id, keys)
        except Exception:
            # Unrecorded, a later run could not find it and would pay for it again.
            await litellm.acancel_batch(batch_id=batch.id, **self.kwargs)
            raise
        self.note(
            f"{self.judge.name}: submitted batch {batch.id} ({len(specs)} requests); results "
            f"within {BATCH_WINDOW_TEXT}; a stopped run resumes by polling it"
        )
        return str(batch.id)

    def _record_intent(self, intent_id: str, keys: Sequence[str]) -> None:
        store = self.run.store
        with store.write_lock, store.connection() as con:
            batches_sql.add_intent(
                con,
                intent_id=intent_id,
                judge=self.judge.name,
                model=self.judge.model,
                run_id=self.run.run_id,
                cache_keys=keys,
            )

    def _record_submitted(
        self, intent_id: str, batch_id: str, file_id: str, keys: Sequence[str]
    ) -> None:
        store = self.run.store
        with store.write_lock, store.connection() as con, transaction(con):
            self._add_submitted(con, batch_id, file_id, keys)
            batches_sql.close_intent(
                con,
                intent_id=intent_id,
                judge=self.judge.name,
                model=self.judge.model,
                run_id=self.run.run_id,
                batch_id=batch_id,
            )

    def _add_submitted(
        self, con: Connection, batch_id: str, file_id: str, keys: Sequence[str]
    ) -> None:
        batches_sql.add_submitted(
            con,
            batch_id=batch_id,
            judge=self.judge.name,
            model=self.judge.model,
            run_id=self.run.run_id,
            input_file_id=file_id,
            cache_keys=keys,
        )

    async def poll(self, batch_id: str, keys: Sequence[str]) -> None:
        """Until the batch ends (its results recorded) or the run stops (the batch stays
        recorded as pending, for the next run)."""
        litellm = litellm_module()
        status = None
        while not self.run.cancelled and self.run.fault is None:
            try:
                batch = await litellm.aretrieve_batch(batch_id=batch_id, **self.kwargs)
            except Exception as error:  # noqa: BLE001 (a poll that fails is tried again)
                log.info("polling batch %s failed: %s", batch_id, classify(error))
                await asyncio.sleep(self.poll_s)
                continue
            self._progress(batch_id, batch)
            if batch.status != status:
                status = batch.status
                self.note(f"{self.judge.name}: batch {batch_id} {status}")
            if status in TERMINAL:
                await self.record(batch_id, batch, keys)
                return
            await asyncio.sleep(self.poll_s)

    def _progress(self, batch_id: str, batch: Any) -> None:
        counts = batch.request_counts
        done = (getattr(counts, "completed", 0) or 0) + (getattr(counts, "failed", 0) or 0)
        self.run.done += done - self.seen.get(batch_id, 0)
        self.seen[batch_id] = done
        self.run.progress()

    async def _lines(self, file_id: str | None) -> list[dict[str, Any]]:
        if not file_id:
            return []
        content = await litellm_module().afile_content(file_id=file_id, **self.kwargs)
        return [json.loads(line) for line in content.content.splitlines() if line.strip()]

    async def record(self, batch_id: str, batch: Any, keys: Sequence[str]) -> None:
        """Every line of the batch as a call of the run; its requests that never ran, failed."""
        lines = [
            *await self._lines(batch.output_file_id),
            *await self._lines(getattr(batch, "error_file_id", None)),
        ]
        self.run.done -= self.seen.pop(batch_id, 0)  # record() counts each line from here
        answered = set()
        for line in lines:
            spec = self.by_key.get(str(line.get("custom_id")))
            if spec is not None and spec.cache_key not in answered:
                answered.add(spec.cache_key)
                self.run.record(self.judge, spec, outcome_of(line, self.price))
        never = f"not run: the batch {batch_id} ended {batch.status}"
        if batch.status == "failed" and batch.errors is not None:
            never += f" ({'; '.join(str(e.message) for e in batch.errors.data or ())})"
        for key in keys:
            if key in self.by_key and key not in answered:
                self.run.record(self.judge, self.by_key[key], CallOutcome(None, never, 0, None))
        await asyncio.to_thread(self._finish, batch_id, str(batch.status), keys)

    def _finish(self, batch_id: str, status: str, keys: Sequence[str]) -> None:
        """The batch is finished once each of its keys was in this run or is cached; one
        whose other keys a later plan may need stays pending for it."""
        others = [key for key in keys if key not in self.by_key]
        with self.run.store.connection() as con:
            if others and len(calls_sql.find_ok_calls(con, others)) < len(set(others)):
                return
            batches_sql.add_finished(
                con,
                batch_id=batch_id,
                judge=self.judge.name,
                model=self.judge.model,
                run_id=self.run.run_id,
                status=status,
            )


async def run_batches(run: Recorder, *, poll_s: float | None, note: Note) -> None:
    """Every judge's calls of the run through its batch API, judges side by side."""
    specs: dict[str, list[CallSpec]] = {}
    for spec in run.plan.calls:
        specs.setdefault(spec.judge, []).append(spec)
    judges = [j for j in run.plan.panel.judges if specs.get(j.name)]
    await asyncio.gather(
        *(
            JudgeBatches(
                run,
                judge,
                specs[judge.name],
                poll_s=POLL_EVERY_S if poll_s is None else poll_s,
                note=note,
            ).run_all()
            for judge in judges
        )
    )
