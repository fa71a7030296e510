"""The Run judges page's glue: which panel, what the plan and the summary look like, and
what of a judge's configuration may be shown.

No API key is ever shown: a judge is described by its model strings and endpoints, and a key
by the name of its environment variable and whether that variable is set. Error texts pass
through `redact`, which removes every key (`dashboard.judging.scrub_secrets`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from dashboard.judging import (
    Judge,
    Panel,
    PanelError,
    PlanError,
    Rubric,
    RunPlan,
    RunSummary,
    load_panel,
    plan_run,
    scrub_secrets,
    targets_sql,
)
from dashboard.judging.errors import error_line
from dashboard.judging.few_shot import few_shot_rubric
from dashboard.judging.panel import key_routes, panel_from_models, with_overrides
from dashboard.judging.summary import consistency_line
from dashboard.settings import panel_dirs
from dashboard.store import Store

Row = dict[str, Any]
# LiteLLM's default key variable of the providers people use most, by model prefix.
PROVIDER_KEYS = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "groq": "GROQ_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "cohere": "COHERE_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
}
NO_KEY_PROVIDERS = frozenset({"ollama", "ollama_chat", "hosted_vllm", "judgeboard"})
# Planning renders every prompt in memory (about 9 KB and 90 µs per target measured on this
# machine); the dashboard process serves every session, so it plans at most this many.
PLAN_LIMIT = 50_000
# Where a request's panel comes from: a file of data/panels/ by name, or typed model strings.
PANEL_FILE, MODEL_STRINGS = "file", "models"


@dataclass(frozen=True)
class RunRequest:
    """What the page's widgets ask for; a stored plan is reused only for the same request.

    `panel` is the name of a panel file of data/panels/ (`source` PANEL_FILE), or
    comma-separated LiteLLM model strings (`source` MODEL_STRINGS), never a path."""

    panel: str
    rubric: str
    dataset: str | None = None
    systems: tuple[str, ...] | None = None
    pairwise: tuple[str, str] | None = None
    source: str = MODEL_STRINGS
    labelled_only: bool = False  # only the responses people rated
    few_shot: int = 0  # people's labels shown as examples (`few_shot.py`); 0: none
    few_shot_seed: int = 0
    epochs: int = 1  # asks per answer (`judge --epochs N`); the rating is the `reduce` of them
    reduce: str = "mean"
    temperature: float | None = None  # None: each judge's own (the panel's, default 0)
    seed: int | None = None  # the request's seed (+ the epoch); None: the panel's


@dataclass(frozen=True)
class PlanSize:
    """How many responses (or pairs) a request would judge, and whether the page plans it:
    planning renders every prompt in memory, so the dashboard plans at most PLAN_LIMIT."""

    n_targets: int
    pairwise: bool = False

    @property
    def can_plan(self) -> bool:
        return 0 < self.n_targets <= PLAN_LIMIT

    @property
    def problem(self) -> str | None:
        """Why the request is not planned (None when it is)."""
        unit = "pairs" if self.pairwise else "responses"
        if self.n_targets == 0:
            return (
                f"Nothing matches this selection: no {unit} to judge. Pick another "
                "dataset in the sidebar, other systems, or a rubric for this dataset's "
                "task types."
            )
        if self.n_targets > PLAN_LIMIT:
            return (
                f"This selection has {self.n_targets:,} {unit} to judge; the dashboard "
                f"plans at most {PLAN_LIMIT:,} at a time. Narrow it with the dataset or "
                "the systems, or run `judgeboard judge` in a shell."
            )
        return None


def panel_files() -> list[Path]:
    """The panels (the user's folder, then data/panels/), by name; a user's file hides a
    shipped one of the same name."""
    found: dict[str, Path] = {}
    for folder in panel_dirs():
        for path in sorted(folder.glob("*.toml")):
            found.setdefault(path.stem, path)
    return sorted(found.values(), key=lambda path: path.stem)


def panel_names() -> list[str]:
    return [path.stem for path in panel_files()]


def build_panel(spec: str, *, source: str) -> Panel | None:
    """The panel of a file of data/panels/ chosen by name (`source` PANEL_FILE), or of typed
    model strings (None when none is typed). A typed text is never read as a path, so a
    dashboard user cannot make the server read any other file."""
    if source == PANEL_FILE:
        files = {path.stem: path for path in panel_files()}
        if spec not in files:
            folders = ", ".join(str(folder) for folder in panel_dirs())
            raise PanelError(f"no panel named {spec!r} in {folders}")
        return load_panel(files[spec])
    if not spec.strip():
        return None
    return panel_from_models(spec.split(","))


def count_targets(
    store: Store, request: RunRequest, *, task_types: tuple[str, ...] = ()
) -> PlanSize:
    """How many responses (or pairs) the request would judge, without planning it;
    `task_types` are the rating rubric's (empty: every task type)."""
    if request.labelled_only and request.pairwise is None:
        return PlanSize(len(_labelled(store, request)))
    with store.connection() as con:
        if request.pairwise is not None:
            return PlanSize(
                targets_sql.count_pair_targets(
                    con,
                    dataset=request.dataset,
                    system_a=request.pairwise[0],
                    system_b=request.pairwise[1],
                ),
                pairwise=True,
            )
        return PlanSize(
            targets_sql.count_rating_targets(
                con, dataset=request.dataset, systems=request.systems, task_types=task_types
            )
        )


def make_plan(store: Store, request: RunRequest, rubric: Rubric) -> RunPlan:
    """The plan of the request; raises PanelError, RubricError or PlanError with a message
    that says what to change."""
    panel = build_panel(request.panel, source=request.source)
    if panel is None:
        raise PanelError("no judge given: type one or more LiteLLM model strings")
    panel = with_overrides(panel, {"temperature": request.temperature, "seed": request.seed})
    if request.few_shot:
        rubric = few_shot_rubric(
            store,
            rubric,
            n=request.few_shot,
            seed=request.few_shot_seed,
            dataset=request.dataset,
            systems=request.systems,
        )
    return plan_run(
        store,
        panel,
        rubric,
        dataset=request.dataset,
        systems=request.systems,
        pairwise=request.pairwise,
        response_ids=_labelled(store, request, rubric) if request.labelled_only else None,
        epochs=request.epochs,
        reduce=request.reduce,
    )


def _labelled(store: Store, request: RunRequest, rubric: Rubric | None = None) -> tuple[str, ...]:
    with store.connection() as con:
        if rubric is not None and rubric.is_pairwise:
            raise PlanError("Only the responses people rated: choose a rating rubric")
        return tuple(
            targets_sql.labelled_response_ids(con, dataset=request.dataset, systems=request.systems)
        )


def key_status(judge: Judge) -> str:
    """Which variable holds the judge's key and whether it is set; never the key itself."""
    if judge.is_baseline:
        return "no key needed"
    if routes := key_routes(judge):  # the key rule: an api_base gets only the key it names
        shown = [
            (f"{n} {'set' if os.environ.get(n) else 'NOT set'}" if n else "no key sent", where)
            for n, where in routes
        ]
        if len(shown) == 1:  # the row's api_base column says where
            return shown[0][0]
        return ", ".join(f"{status} → {where}" for status, where in shown)
    names = list(judge.key_env_names)
    if not names:
        provider = judge.model.split("/", 1)[0]
        if provider in NO_KEY_PROVIDERS:
            return "no key needed"
        if provider not in PROVIDER_KEYS:
            return "LiteLLM's default for the provider"
        names = [PROVIDER_KEYS[provider]]
    return ", ".join(
        f"{n} {'set' if os.environ.get(n) else 'NOT set'}" for n in dict.fromkeys(names)
    )


def _endpoint(url: str | None) -> str:
    """An api_base without any user:password part, query (`?key=...`) or fragment: only
    where the judge is served."""
    if not url:
        return ""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def judge_rows(panel: Panel) -> list[Row]:
    rows = []
    for judge in panel.judges:
        deployments = [d.get("litellm_params", {}) for d in judge.model_list]
        models = [str(p.get("model")) for p in deployments] or [judge.model]
        bases = [_endpoint(p.get("api_base")) for p in deployments] or [_endpoint(judge.api_base)]
        rows.append(
            {
                "judge": judge.name,
                "model": ", ".join(dict.fromkeys(models)),
                "api_base": ", ".join(b for b in dict.fromkeys(bases) if b) or "default",
                "key": key_status(judge),
                "concurrency": judge.concurrency,
            }
        )
    return rows


def _usd(value: float | None, *, at_most: bool = False) -> str:
    if value is None:
        return "unknown"
    return f"{'≤ ' if at_most and value else ''}${value:.4f}"


def plan_rows(plan: RunPlan) -> list[Row]:
    rows = [
        {
            "judge": j.judge,
            "model": j.model,
            "calls": j.calls_total,
            "cached": j.calls_cached,
            "to call": j.calls_needed,
            "estimated cost": _usd(j.estimated_cost_usd, at_most=True),
        }
        for j in plan.judges
    ]
    rows.append(
        {
            "judge": "total",
            "model": "",
            "calls": sum(j.calls_total for j in plan.judges),
            "cached": plan.calls_cached,
            "to call": plan.calls_needed,
            "estimated cost": _usd(plan.estimated_cost_usd, at_most=True),
        }
    )
    return rows


def plan_outcome(plan: RunPlan) -> str:
    """ "empty" (nothing matches the selection), "cached" (every call is made and every
    result stored) or "work" (calls to make, or cached answers to store)."""
    if plan.n_targets == 0:
        return "empty"
    if plan.calls_needed > 0 or any(c.missing for c in plan.cached):
        return "work"
    return "cached"


def has_work(plan: RunPlan) -> bool:
    """Calls to make, or cached answers whose results are not stored for every target."""
    return plan_outcome(plan) == "work"


def summary_rows(summary: RunSummary) -> list[Row]:
    rows = []
    for j in summary.judges:
        cost = _usd(j.cost_usd)
        if j.cost_unknown_calls and j.cost_usd is not None:
            cost += f" + {j.cost_unknown_calls} unpriced"
        row = {
            "judge": j.judge,
            "model": j.model,
            "planned": j.calls_planned,
            "calls made": j.calls_made,
            "cache hits": j.cache_hits,
            "failed": j.failures,
            "unparsed": j.parse_failures,
            "retries": j.retries,
            "tokens in": j.prompt_tokens,
            "tokens out": j.completion_tokens,
            "cost": cost,
        }
        if j.flip_rate is not None:
            row["flip rate"] = f"{j.flip_rate:.3f} ({j.n_pairs} pairs)"
        if j.self_consistency is not None:
            row["self-consistency"] = consistency_line(j.self_consistency)
        rows.append(row)
    return rows


def redact(text: str, panel: Panel | None = None) -> str:
    """The text without any key: the value of every key variable of the environment
    (LiteLLM's provider defaults and the like) and of the panel's judges, and anything
    shaped like a key (`dashboard.judging.scrub_secrets`)."""
    names = [name for judge in (panel.judges if panel else ()) for name in judge.key_env_names]
    return scrub_secrets(text, env_names=names)


@dataclass(frozen=True)
class JudgeFailure:
    judge: str
    failures: int
    last_error: str  # one readable line, redacted


def failures(summary: RunSummary, panel: Panel | None = None) -> list[JudgeFailure]:
    """Each judge that had failed calls, with its last error as one readable line
    (redacted)."""
    return [
        JudgeFailure(j.judge, j.failures, redact(error_line(j.last_error), panel))
        for j in summary.judges
        if j.failures
    ]
