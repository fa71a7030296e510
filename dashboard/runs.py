"""The Run judges page's glue: which panel, what the plan and the summary look like, and
what of a judge's configuration may be shown.

No API key is ever shown: a judge is described by its model strings and endpoints, and a key
by the name of its environment variable and whether that variable is set. Error texts pass
through `redact`, which removes the value of every key variable the panel could use.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from dashboard.judging import (
    Judge, Panel, RunPlan, RunSummary, list_rubrics, load_panel, load_rubric, plan_run,
)
from dashboard.judging.panel import ENV_REFERENCE, PANELS_DIR
from dashboard.store import Store, choices_sql

Row = dict[str, Any]
# LiteLLM's default key variable of the providers people use most, by model prefix.
PROVIDER_KEYS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY",
                 "mistral": "MISTRAL_API_KEY", "together_ai": "TOGETHERAI_API_KEY",
                 "groq": "GROQ_API_KEY", "gemini": "GEMINI_API_KEY",
                 "cohere": "COHERE_API_KEY", "deepseek": "DEEPSEEK_API_KEY"}
NO_KEY_PROVIDERS = frozenset({"ollama", "ollama_chat", "hosted_vllm", "judgeboard"})
_KEY_PATTERN = re.compile(r"\b(?:sk|pk|rk|key)-[A-Za-z0-9_\-]{8,}|(?<=Bearer )\S+")
REDACTED = "[redacted]"
# Planning renders every prompt in memory (about 9 KB and 90 µs per target measured on this
# machine); the dashboard process serves every session, so it plans at most this many.
PLAN_LIMIT = 50_000


@dataclass(frozen=True)
class RunRequest:
    """What the page's widgets ask for; a stored plan is reused only for the same request."""

    panel: str  # a panel file's path, or comma-separated LiteLLM model strings
    rubric: str
    dataset: str | None = None
    systems: tuple[str, ...] | None = None
    pairwise: tuple[str, str] | None = None


def panel_files() -> list[Path]:
    """The shipped panels (data/panels/*.toml), by name."""
    return sorted(PANELS_DIR.glob("*.toml"))


def rubric_names() -> list[str]:
    return [r.name for r in list_rubrics()]


def count_targets(store: Store, request: RunRequest) -> int:
    """How many responses (or pairs) the request would judge, without planning it."""
    rubric = load_rubric(request.rubric)
    with store.connection() as con:
        if request.pairwise is not None:
            return choices_sql.count_pair_targets(con, dataset=request.dataset,
                                                  system_a=request.pairwise[0],
                                                  system_b=request.pairwise[1])
        return choices_sql.count_rating_targets(con, dataset=request.dataset,
                                                systems=request.systems,
                                                task_types=rubric.task_types)


def make_plan(store: Store, request: RunRequest) -> RunPlan:
    """The plan of the request; raises PanelError, RubricError or PlanError with a message
    that says what to change."""
    return plan_run(store, load_panel(request.panel), load_rubric(request.rubric),
                    dataset=request.dataset, systems=request.systems, pairwise=request.pairwise)


def _env_names(judge: Judge) -> list[str]:
    names = [judge.api_key_env] if judge.api_key_env else []
    for deployment in judge.model_list:
        key = str(deployment.get("litellm_params", {}).get("api_key") or "")
        if key.startswith(ENV_REFERENCE):
            names.append(key[len(ENV_REFERENCE):])
    return names


def key_status(judge: Judge) -> str:
    """Which variable holds the judge's key and whether it is set; never the key itself."""
    if judge.is_baseline:
        return "no key needed"
    names = _env_names(judge)
    if not names:
        provider = judge.model.split("/", 1)[0]
        if provider in NO_KEY_PROVIDERS:
            return "no key needed"
        if provider not in PROVIDER_KEYS:
            return "LiteLLM's default for the provider"
        names = [PROVIDER_KEYS[provider]]
    return ", ".join(f"{n} {'set' if os.environ.get(n) else 'NOT set'}"
                     for n in dict.fromkeys(names))


def _endpoint(url: str | None) -> str:
    """An api_base without any user:password part."""
    if not url:
        return ""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def judge_rows(panel: Panel) -> list[Row]:
    rows = []
    for judge in panel.judges:
        deployments = [d.get("litellm_params", {}) for d in judge.model_list]
        models = [str(p.get("model")) for p in deployments] or [judge.model]
        bases = [_endpoint(p.get("api_base")) for p in deployments] or [_endpoint(judge.api_base)]
        rows.append({"judge": judge.name, "model": ", ".join(dict.fromkeys(models)),
                     "api_base": ", ".join(b for b in dict.fromkeys(bases) if b) or "default",
                     "key": key_status(judge), "concurrency": judge.concurrency})
    return rows


def _usd(value: float | None, *, at_most: bool = False) -> str:
    if value is None:
        return "unknown"
    return f"{'≤ ' if at_most and value else ''}${value:.4f}"


def plan_rows(plan: RunPlan) -> list[Row]:
    rows = [{"judge": j.judge, "model": j.model, "calls": j.calls_total,
             "cached": j.calls_cached, "to call": j.calls_needed,
             "estimated cost": _usd(j.estimated_cost_usd, at_most=True)} for j in plan.judges]
    rows.append({"judge": "total", "model": "", "calls": sum(j.calls_total for j in plan.judges),
                 "cached": plan.calls_cached, "to call": plan.calls_needed,
                 "estimated cost": _usd(plan.estimated_cost_usd, at_most=True)})
    return rows


def has_work(plan: RunPlan) -> bool:
    """Calls to make, or cached answers whose results are not stored for every target."""
    return plan.calls_needed > 0 or any(c.missing for c in plan.cached)


def summary_rows(summary: RunSummary) -> list[Row]:
    rows = []
    for j in summary.judges:
        cost = _usd(j.cost_usd)
        if j.cost_unknown_calls and j.cost_usd is not None:
            cost += f" + {j.cost_unknown_calls} unpriced"
        row = {"judge": j.judge, "model": j.model, "planned": j.calls_planned,
               "calls made": j.calls_made, "cache hits": j.cache_hits, "failed": j.failures,
               "unparsed": j.parse_failures, "retries": j.retries,
               "tokens in": j.prompt_tokens, "tokens out": j.completion_tokens, "cost": cost}
        if j.flip_rate is not None:
            row["flip rate"] = f"{j.flip_rate:.3f} ({j.n_pairs} pairs)"
        rows.append(row)
    return rows


def redact(text: str, panel: Panel | None = None) -> str:
    """The text without the value of any key variable the panel (or a provider) could use,
    nor anything shaped like a key."""
    names = set(PROVIDER_KEYS.values())
    for judge in panel.judges if panel else ():
        names.update(_env_names(judge))
    for name in names:
        value = os.environ.get(name)
        if value and len(value) >= 4:
            text = text.replace(value, REDACTED)
    return _KEY_PATTERN.sub(REDACTED, text)


def failures(summary: RunSummary, panel: Panel | None = None) -> list[tuple[str, str]]:
    """(what failed, the last error, redacted) for each judge that had failures."""
    return [(f"{j.judge}: {j.failures} call(s) failed; they are retried by the next run",
             redact(j.last_error or "no error text", panel))
            for j in summary.judges if j.failures]

