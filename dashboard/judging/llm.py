"""The one module that imports LiteLLM, lazily: a judge's single attempt at a completion.

LiteLLM's import costs about 3 s and, without the two environment flags set here first,
fetches its price map over the network. Retries are NOT LiteLLM's: every call passes
`num_retries=0` and a `timeout`, and the runner (`calls.py`) retries with its own bounded
backoff, honouring Retry-After, so that it can count attempts. A judge with a Router model
list goes through one `litellm.Router` (fallbacks across deployments are the Router's).

The offline baseline judge (`judgeboard/baseline`) is registered here as a LiteLLM custom
provider, so that it takes the same path as a real model; what it compares travels in the
call's `metadata`.

Error text is scrubbed of keys (`secrets.scrub_secrets`) where it is made, and while a judge
runs, a `SecretFilter` on LiteLLM's loggers scrubs what LiteLLM logs (its Router logs a failed
call's exception, which may quote the key, at INFO).
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import logging
import os
import threading
import time
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from dashboard.judging import offline
from dashboard.judging.panel import Judge, api_key_for, deployment_params
from dashboard.judging.secrets import SecretFilter, scrub_secrets

PROVIDER = "judgeboard"
LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")
_import_lock = threading.Lock()
_RETRYABLE_STATUS = frozenset({408, 409, 429})
# USD per token that LiteLLM is told for a model priced at zero or not at all (`JudgeClient`);
# the cost kept is always `JudgeClient._cost`, from the real prices.
_PLACEHOLDER_PRICE = 1e-9


@dataclass(frozen=True)
class Completion:
    """One successful completion. `cost_usd` None = unknown (never reported as 0)."""

    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None
    model_version: str | None = None  # the model the provider says answered


class CallError(Exception):
    """One failed attempt. `retryable`: 429, 408/409, 5xx, timeouts and connection errors."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        status: int | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after_s = retry_after_s


def litellm_module() -> ModuleType:
    """LiteLLM, imported once per process with the offline flags and the baseline registered."""
    with _import_lock:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
        import litellm

        litellm.suppress_debug_info = True
        if not any(p.get("provider") == PROVIDER for p in litellm.custom_provider_map):
            litellm.custom_provider_map = [
                *litellm.custom_provider_map,
                {"provider": PROVIDER, "custom_handler": _baseline_handler(litellm)},
            ]
        return litellm


def _baseline_handler(litellm: ModuleType) -> Any:
    """The custom provider behind `judgeboard/baseline` (see `offline.py`)."""
    # LiteLLM is imported lazily (a module object here) and untyped: its base class is Any.
    custom_llm: Any = litellm.CustomLLM

    class BaselineJudge(custom_llm):
        def _reply(
            self,
            messages: Sequence[Mapping[str, Any]],
            litellm_params: Mapping[str, Any] | None,
            model_response: Any,
        ) -> Any:
            meta = ((litellm_params or {}).get("metadata") or {}).get(PROVIDER) or {}
            prompt = "\n".join(str(m.get("content") or "") for m in messages)
            case = offline.Case.from_metadata(meta["case"]) if meta.get("case") else None
            text = offline.reply(
                case, kind=meta.get("kind", "rating"), low=meta.get("low"), high=meta.get("high")
            )
            model_response.choices[0].message.content = text
            model_response.usage = litellm.Usage(
                prompt_tokens=len(prompt) // 4,
                completion_tokens=len(text) // 4,
                total_tokens=len(prompt) // 4 + len(text) // 4,
            )
            return model_response

        def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
            return self._reply(messages, kwargs.get("litellm_params"), kwargs["model_response"])

        async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
            return self._reply(messages, kwargs.get("litellm_params"), kwargs["model_response"])

    return BaselineJudge()


@contextlib.contextmanager
def scrubbed_litellm_logs(env_names: Iterable[str] = ()) -> Iterator[None]:
    """While the block runs, LiteLLM's log records are scrubbed of keys (those of the
    variables in `env_names` too). Each block has its own filter, so that concurrent runs
    (two dashboard sessions) add and remove theirs independently."""
    secret_filter = SecretFilter(env_names)
    loggers = [logging.getLogger(name) for name in LITELLM_LOGGERS]
    for logger in loggers:
        logger.addFilter(secret_filter)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(secret_filter)


def _retry_after(error: BaseException) -> float | None:
    """Seconds from a Retry-After (or retry-after-ms) header, or a Router cooldown."""
    cooldown = getattr(error, "cooldown_time", None)
    if isinstance(cooldown, (int, float)):
        return float(cooldown)
    headers = getattr(error, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(error, "response", None), "headers", None)
    if not headers:
        return None
    try:
        if headers.get("retry-after-ms"):
            return float(headers["retry-after-ms"]) / 1000
        value = headers.get("retry-after")
        if not value:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, AttributeError):
        return None


def classify(error: BaseException, *, env_names: Iterable[str] = ()) -> CallError:
    """A LiteLLM (or asyncio) exception as a CallError that says whether to retry; its
    message is scrubbed of keys (those of the variables in `env_names` too)."""
    if isinstance(error, CallError):
        return error
    status = getattr(error, "status_code", None)
    status = status if isinstance(status, int) else None
    name = type(error).__name__
    transient = isinstance(
        error, (asyncio.TimeoutError, TimeoutError, ConnectionError)
    ) or name in ("Timeout", "APIConnectionError", "APITimeoutError", "RouterRateLimitError")
    retryable = transient or status in _RETRYABLE_STATUS or (status is not None and status >= 500)
    message = scrub_secrets(f"{name}: {error}".strip(), env_names=env_names)[:1000]
    return CallError(message, retryable=retryable, status=status, retry_after_s=_retry_after(error))


def _router_model_list(judge: Judge) -> list[dict[str, Any]]:
    """The judge's model list with its `os.environ/NAME` keys kept as references (the Router
    resolves them itself, so no key value passes through this code) and no provider key for
    a deployment with an api_base that names none (`deployment_params`)."""
    return [
        {"model_name": d["model_name"], "litellm_params": deployment_params(d["litellm_params"])}
        for d in judge.model_list
    ]


class JudgeClient:
    """Makes single attempts for one judge; safe to share between coroutines of one loop."""

    def __init__(self, judge: Judge, *, kind: str, low: float | None, high: float | None) -> None:
        self.judge = judge
        self._litellm = litellm_module()
        # USD per (prompt, completion) token by model string, looked up once per model;
        # None: LiteLLM's map does not know the model (its cost is unknown, never 0).
        self._prices: dict[str, tuple[float, float] | None] = {}
        self._kwargs: dict[str, Any] = {
            "temperature": judge.temperature,
            "max_tokens": judge.max_tokens,
            "timeout": judge.timeout_s,
            "num_retries": 0,
        }
        self._baseline = {"kind": kind, "low": low, "high": high} if judge.is_baseline else None
        self._router = None
        if judge.uses_router:
            fallbacks = [{judge.model: list(judge.fallbacks)}] if judge.fallbacks else []
            with warnings.catch_warnings():  # pydantic's ReadOnly notice on LiteLLM's types
                warnings.filterwarnings("ignore", message=".*ReadOnly.*", category=UserWarning)
                self._router = self._litellm.Router(
                    model_list=_router_model_list(judge),
                    num_retries=0,
                    fallbacks=fallbacks,
                    timeout=judge.timeout_s,
                )
        else:
            if judge.api_base:
                self._kwargs["api_base"] = judge.api_base
            key = api_key_for(judge)
            if key is not None:
                self._kwargs["api_key"] = key
            # LiteLLM prices every response itself (about a quarter of its CPU a call), and
            # the cost figured here from the token counts is the one kept: given prices,
            # its own pricing takes a short path. A cost of zero (a model its map does not
            # know, or a free one) sends it on to look for why, twice a call (a fifth of its
            # CPU), so it then gets a placeholder price: its own figure is never read.
            prices = self._price_of(judge.model)
            if prices is None or not any(prices):
                prices = (_PLACEHOLDER_PRICE, _PLACEHOLDER_PRICE)
            self._kwargs["input_cost_per_token"], self._kwargs["output_cost_per_token"] = prices

    def scrubbed_logs(self) -> contextlib.AbstractContextManager[None]:
        """LiteLLM's logs scrubbed of this judge's keys while the block runs."""
        return scrubbed_litellm_logs(self.judge.key_env_names)

    async def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        case: offline.Case | None = None,
        epoch: int = 0,
    ) -> Completion:
        """One attempt; raises CallError. The asyncio guard backs up LiteLLM's own timeout.
        `case` is what the offline baseline compares; other models ignore it. A judge with a
        seed sends seed + epoch."""
        guard_s = self.judge.timeout_s * 1.5 + 1.0
        target = self._router if self._router is not None else self._litellm
        kwargs = self._kwargs
        if self.judge.seed is not None:
            kwargs = {**kwargs, "seed": self.judge.seed + epoch}
        if self._baseline is not None:
            meta = {**self._baseline, "case": case.as_metadata() if case else None}
            kwargs = {**kwargs, "metadata": {PROVIDER: meta}}
        try:
            async with asyncio.timeout(guard_s):  # unlike wait_for, no extra task per call
                response = await target.acompletion(
                    model=self.judge.model, messages=list(messages), **kwargs
                )
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 (every provider error becomes a CallError)
            raise classify(error, env_names=self.judge.key_env_names) from None
        return self._completion(response)

    def _completion(self, response: Any) -> Completion:
        try:
            text = response.choices[0].message.content
        except (AttributeError, IndexError) as error:
            raise CallError(f"malformed completion: {error}", retryable=True) from None
        usage = getattr(response, "usage", None)
        prompt_tokens = getattr(usage, "prompt_tokens", None)
        completion_tokens = getattr(usage, "completion_tokens", None)
        version = getattr(response, "model", None)
        return Completion(
            text if isinstance(text, str) else "",
            prompt_tokens,
            completion_tokens,
            self._cost(response, prompt_tokens, completion_tokens),
            str(version) if version else None,
        )

    def _price_of(self, model: str) -> tuple[float, float] | None:
        """USD per prompt and per completion token: the panel's, else LiteLLM's map (once
        per model); None when neither knows the model."""
        judge = self.judge
        if judge.input_cost_per_token is not None:
            return judge.input_cost_per_token, judge.output_cost_per_token or 0.0
        if model not in self._prices:
            try:
                prompt, _ = self._litellm.cost_per_token(
                    model=model, prompt_tokens=1, completion_tokens=0
                )
                _, completion = self._litellm.cost_per_token(
                    model=model, prompt_tokens=0, completion_tokens=1
                )
                self._prices[model] = (float(prompt), float(completion))
            except Exception:  # noqa: BLE001 (LiteLLM raises several types for unmapped models)
                self._prices[model] = None
        return self._prices[model]

    def _cost(
        self, response: Any, prompt_tokens: int | None, completion_tokens: int | None
    ) -> float | None:
        """From the token counts and the model's prices (tiered prices past a context
        length are not applied: judge prompts stay far below them)."""
        if prompt_tokens is None or completion_tokens is None:
            return None
        model = self.judge.model
        if self._router is not None:  # the deployment that answered
            hidden = getattr(response, "_hidden_params", None) or {}
            model = str(hidden.get("litellm_model_name") or hidden.get("model") or model)
        prices = self._price_of(model)
        if prices is None:
            return None
        return prompt_tokens * prices[0] + completion_tokens * prices[1]


def estimate_cost(judge: Judge, *, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for a call of these sizes from the panel's prices or LiteLLM's map; None if unknown."""
    if judge.input_cost_per_token is not None:
        return prompt_tokens * judge.input_cost_per_token + completion_tokens * (
            judge.output_cost_per_token or 0.0
        )
    litellm = litellm_module()
    models = (
        [
            str(d["litellm_params"]["model"])
            for d in judge.model_list
            if d["model_name"] == judge.model
        ]
        if judge.uses_router
        else [judge.model]
    )
    try:
        costs = [
            litellm.cost_per_token(
                model=m, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
            )
            for m in models
        ]
    except Exception:  # noqa: BLE001 (unmapped model)
        return None
    return max(sum(c) for c in costs) if costs else None


# Where no batch price is known, a batch costs this share of the online price (OpenAI's,
# Anthropic's and Google's batch discounts are all 50 %).
BATCH_SHARE_OF_ONLINE = 0.5


@dataclass(frozen=True)
class BatchPrice:
    """USD per prompt and completion token through the batch API, and where it comes from."""

    input_cost_per_token: float
    output_cost_per_token: float
    source: str  # "LiteLLM's batch price" or "half the online price"


def batch_price(judge: Judge) -> BatchPrice | None:
    """The judge's batch price: LiteLLM's map's batch price for the model, else half the
    online price (the panel's, else LiteLLM's); None when no price is known."""
    if judge.input_cost_per_token is not None:
        return BatchPrice(
            judge.input_cost_per_token * BATCH_SHARE_OF_ONLINE,
            (judge.output_cost_per_token or 0.0) * BATCH_SHARE_OF_ONLINE,
            "half the panel's online price",
        )
    litellm = litellm_module()
    info: Mapping[str, Any] | None = None
    try:
        info = litellm.get_model_info(judge.model)
    except Exception:  # noqa: BLE001 (LiteLLM raises several types for unmapped models)
        info = None
    if not info:
        return None
    batch_in, batch_out = (
        info.get("input_cost_per_token_batches"),
        info.get("output_cost_per_token_batches"),
    )
    if batch_in is not None and batch_out is not None:
        return BatchPrice(float(batch_in), float(batch_out), "LiteLLM's batch price")
    online_in, online_out = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    if online_in is None or online_out is None:
        return None
    return BatchPrice(
        float(online_in) * BATCH_SHARE_OF_ONLINE,
        float(online_out) * BATCH_SHARE_OF_ONLINE,
        "half the online price (LiteLLM has no batch price for it)",
    )
