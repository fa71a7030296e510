"""One call to an optimizer model (any LiteLLM model string), through the judges' own path:
`JudgeClient` and `call_with_retries` (bounded retries, Retry-After, the keys rule: a model
with an api_base gets only the key it names), LiteLLM's logs scrubbed of keys, and a
`judge_calls` row with its tokens, cost and raw output. The judge is named
"optimizer:<model>" and the row names no response. A successful call with the same request
is never paid for again (the judges' cache key: model, endpoint and messages).
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dashboard.ids import utc_now
from dashboard.judging import calls_sql
from dashboard.judging.calls import call_with_retries
from dashboard.judging.llm import JudgeClient
from dashboard.judging.loop import BackgroundLoop
from dashboard.judging.panel import Judge, panel_from_models, with_overrides
from dashboard.judging.secrets import scrub_secrets
from dashboard.store import Store
from dashboard.types import JudgeCall

MAX_TOKENS = 4096
TIMEOUT_S = 180.0


@dataclass(frozen=True)
class OptimizerReply:
    """What the optimizer answered (`text` None when the call failed, with `error`)."""

    judge: str
    text: str | None
    error: str | None
    cached: bool
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None  # None: unknown (never reported as 0)


def optimizer_judge(
    model: str, *, api_base: str | None = None, api_key_env: str | None = None
) -> Judge:
    """The optimizer as a judge of its own (checked like a panel's: PanelError says why)."""
    panel = with_overrides(
        panel_from_models([model]),
        {
            "api_base": api_base,
            "api_key_env": api_key_env,
            "max_tokens": MAX_TOKENS,
            "timeout_s": TIMEOUT_S,
        },
    )
    judge = panel.judges[0]
    return dataclasses.replace(judge, name=f"optimizer:{judge.model}")


def _cache_key(judge: Judge, messages: Sequence[Mapping[str, str]]) -> str:
    content = json.dumps(["optimizer", judge.cache_identity(), list(messages)], sort_keys=True)
    return hashlib.sha256(content.encode()).hexdigest()


def ask_optimizer(
    store: Store,
    judge: Judge,
    messages: Sequence[Mapping[str, str]],
    *,
    rubric: str,
    rubric_version: str,
    loop: BackgroundLoop | None = None,
) -> OptimizerReply:
    """Ask once (with the judge's retries) and record the call; a cached answer costs 0."""
    key = _cache_key(judge, messages)
    with store.connection() as con:
        found = calls_sql.find_ok_calls(con, [key]).get(key)
    if found is not None:
        return OptimizerReply(judge.name, found.raw_output, None, True, None, None, 0.0)

    async def attempt() -> JudgeCall:
        client = JudgeClient(judge, kind="optimizer", low=None, high=None)
        with client.scrubbed_logs():
            outcome = await call_with_retries(client, messages)
        done = outcome.completion
        prompt_hash = hashlib.sha256(json.dumps(list(messages)).encode()).hexdigest()[:16]
        return JudgeCall(
            call_id=uuid.uuid4().hex,
            cache_key=key,
            run_id=f"optimizer-{uuid.uuid4().hex[:12]}",
            judge=judge.name,
            model=judge.model,
            rubric=rubric,
            rubric_version=rubric_version,
            prompt_hash=prompt_hash,
            target_kind="rating",
            status="ok" if done is not None else "failed",
            error=scrub_secrets(outcome.error, env_names=judge.key_env_names)
            if outcome.error
            else None,
            raw_output=done.text if done else None,
            attempts=outcome.attempts,
            latency_ms=outcome.latency_ms,
            prompt_tokens=done.prompt_tokens if done else None,
            completion_tokens=done.completion_tokens if done else None,
            cost_usd=done.cost_usd if done else None,
            created_utc=utc_now(),
            model_version=done.model_version if done else None,
        )

    call = loop.run(attempt()) if loop is not None else asyncio.run(attempt())
    store.add_judge_calls([call], spool_if_busy=False)
    return OptimizerReply(
        judge.name,
        call.raw_output,
        call.error,
        False,
        call.prompt_tokens,
        call.completion_tokens,
        call.cost_usd,
    )
