"""`judge --batch`: a judge's calls through its provider's batch API, via LiteLLM's files and
batches calls (OpenAI's batch file format: one JSON request a line, `custom_id` = the call's
cache key).

Each batch's id is recorded in `judge_batches` as soon as the provider accepts it, before any
wait: a run killed while the provider works resumes by polling that batch (the next run whose
plan needs its keys), never by submitting those calls again. A finished batch's lines are
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
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from dashboard.judging import batches_sql, calls_sql, sources
from dashboard.judging.batch_support import BATCH_WINDOW, BATCH_WINDOW_TEXT, provider_of
from dashboard.judging.calls import CallOutcome
from dashboard.judging.llm import (
    BatchPrice,
    CallError,
    Completion,
    batch_price,
    classify,
    litellm_module,
)
from dashboard.judging.panel import Judge, api_key_for
from dashboard.judging.plan import CallSpec, RunPlan
from dashboard.store import Store

log = logging.getLogger(__name__)

Note = Callable[[str], None]
BATCH_MAX_REQUESTS = 50_000  # OpenAI's limit of requests per batch
POLL_EVERY_S = 30.0
TERMINAL = frozenset({"completed", "expired", "cancelled", "failed"})


class Recorder(sources.Recorder, Protocol):
    """What a batch needs of its judge run (`runner._Run`) beyond what an online call needs
    (`sources.Recorder`: a fault, a cancel, `record`): where results go and the progress."""

    store: Store
    plan: RunPlan
    run_id: str
    done: int

    def progress(self) -> None: ...


def _model_name(judge: Judge) -> str:
    return judge.model.split("/", 1)[1] if "/" in judge.model else judge.model


def request_line(judge: Judge, spec: CallSpec) -> str:
    """One request of the batch input file (OpenAI's batch format)."""
    body: dict[str, Any] = {
        "model": _model_name(judge),
        "messages": list(spec.messages),
        "temperature": judge.temperature,
        "max_tokens": judge.max_tokens,
    }
    if judge.seed is not None:
        body["seed"] = judge.seed + spec.epoch
    line = {"custom_id": spec.cache_key, "method": "POST", "url": "/v1/chat/completions"}
    return json.dumps({**line, "body": body}, ensure_ascii=False)


def completion_of(body: Mapping[str, Any], price: BatchPrice | None) -> Completion:
    """A batch result line's chat completion (OpenAI's JSON), costed at the batch price;
    raises CallError when it has no message, as a malformed online completion does."""
    try:
        text = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as error:
        raise CallError(f"malformed completion: {error!r}", retryable=True) from None
    usage = body.get("usage") or {}
    prompt_tokens, completion_tokens = usage.get("prompt_tokens"), usage.get("completion_tokens")
    cost = None
    if price is not None and prompt_tokens is not None and completion_tokens is not None:
        cost = prompt_tokens * price.input_cost_per_token + (
            completion_tokens * price.output_cost_per_token
        )
    version = body.get("model")
    return Completion(
        text if isinstance(text, str) else "",
        prompt_tokens,
        completion_tokens,
        cost,
        str(version) if version else None,
    )


def outcome_of(line: Mapping[str, Any], price: BatchPrice | None) -> CallOutcome:
    """A result line as a call's outcome: its completion, or its error."""
    response = line.get("response") or {}
    status = response.get("status_code")
    body = response.get("body") or {}
    error = line.get("error")
    if not error and status == 200:
        try:
            return CallOutcome(completion_of(body, price), None, 1, None)
        except CallError as failed:
            return CallOutcome(None, str(failed), 1, None)
    if not error:
        error = body.get("error") if isinstance(body, Mapping) else None
    if isinstance(error, Mapping):
        error = f"{error.get('code') or error.get('type') or ''}: {error.get('message', '')}"
    return CallOutcome(None, f"batch line failed (HTTP {status}): {error}", 1, None)


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
        pending = await asyncio.to_thread(self._pending)
        resumed = [p for p in pending if any(k in self.by_key for k in p.cache_keys)]
        covered = {key for p in resumed for key in p.cache_keys}
        polls = []
        for p in resumed:
            self.note(f"{self.judge.name}: resuming batch {p.batch_id} ({p.n_requests} requests)")
            polls.append(self.poll(p.batch_id, p.cache_keys))
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

    def _pending(self) -> list[batches_sql.PendingBatch]:
        with self.run.store.connection() as con:
            return batches_sql.pending_batches(con, [self.judge.name])

    async def submit(self, specs: Sequence[CallSpec]) -> str:
        """Upload the input file, create the batch, and record its id before anything else."""
        litellm = litellm_module()
        with tempfile.TemporaryFile() as file:  # the input never sits whole in memory
            for spec in specs:
                file.write(request_line(self.judge, spec).encode() + b"\n")
            file.seek(0)
            try:
                uploaded = await litellm.acreate_file(
                    file=("judgeboard-batch.jsonl", file), purpose="batch", **self.kwargs
                )
            except Exception as error:  # noqa: BLE001 (every provider error is reported alike)
                raise classify(error, env_names=self.judge.key_env_names) from None
        try:
            batch = await litellm.acreate_batch(
                completion_window=BATCH_WINDOW,
                endpoint="/v1/chat/completions",
                input_file_id=uploaded.id,
                **self.kwargs,
            )
        except Exception as error:  # noqa: BLE001
            raise classify(error, env_names=self.judge.key_env_names) from None
        keys = [spec.cache_key for spec in specs]
        try:
            await asyncio.to_thread(self._record_submitted, batch.id, uploaded.id, keys)
        except Exception:
            # Unrecorded, a later run could not find it and would pay for it again.
            await litellm.acancel_batch(batch_id=batch.id, **self.kwargs)
            raise
        self.note(
            f"{self.judge.name}: submitted batch {batch.id} ({len(specs)} requests); results "
            f"within {BATCH_WINDOW_TEXT}; a stopped run resumes by polling it"
        )
        return str(batch.id)

    def _record_submitted(self, batch_id: str, file_id: str, keys: Sequence[str]) -> None:
        with self.run.store.connection() as con:
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
