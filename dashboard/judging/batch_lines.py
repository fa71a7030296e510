"""The lines of a batch (OpenAI's batch file format): a call's request line, and a result
line read back as the call's outcome, costed at the batch price (`batches` sends and polls)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from dashboard.judging.calls import CallOutcome
from dashboard.judging.llm import BatchPrice, CallError, Completion
from dashboard.judging.panel import Judge
from dashboard.judging.plan import CallSpec


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
