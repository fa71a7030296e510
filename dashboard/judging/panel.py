"""Judge panels: which models judge, where they are served and how hard to push them.

A panel comes from a TOML file (see `data/panels/`) or from a comma-separated list of LiteLLM
model strings, and CLI flags override any field for every judge. A judge is either one model
(`model`, optional `api_base`) or a LiteLLM Router model list that spreads it over several
deployments with fallbacks.

API keys come only from the environment: a judge names the variable (`api_key_env`, or
`api_key = "os.environ/NAME"` inside a Router model list) or relies on LiteLLM's provider
defaults (OPENAI_API_KEY, ANTHROPIC_API_KEY, MISTRAL_API_KEY…). A judge (or deployment) with
an `api_base` gets only the key it names: without one it is sent no key at all, never the
provider's default (`api_key_for`, `deployment_params`). A key written into a panel file is
refused, and no key is ever stored, logged or shown.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from dashboard.settings import panel_dirs

BASELINE_MODEL = "judgeboard/baseline"
ENV_REFERENCE = "os.environ/"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TUNABLE = (
    "temperature",
    "seed",
    "max_tokens",
    "timeout_s",
    "concurrency",
    "max_attempts",
    "retry_base_s",
    "retry_max_s",
    "input_cost_per_token",
    "output_cost_per_token",
    "api_base",
    "api_key_env",
    "rpm",
    "tpm",
)


class PanelError(ValueError):
    """A panel that cannot be used; the message says what to change."""


@dataclass(frozen=True)
class Judge:
    """One judge of a panel. Prices are USD per token; None means "ask LiteLLM's price map"."""

    name: str
    model: str
    api_base: str | None = None
    api_key_env: str | None = None
    temperature: float = 0.0
    # Sent as the request's `seed` (the epoch added, so each of `--epochs N` asks differs
    # reproducibly); None sends none.
    seed: int | None = None
    max_tokens: int = 512
    timeout_s: float = 60.0
    concurrency: int = 8
    max_attempts: int = 4
    retry_base_s: float = 0.5
    retry_max_s: float = 30.0
    input_cost_per_token: float | None = None
    output_cost_per_token: float | None = None
    model_list: tuple[Mapping[str, Any], ...] = ()
    fallbacks: tuple[str, ...] = ()
    # The judge's model family ("openai", "mistral"...): self-preference compares its
    # ratings of systems of the same family (`Panel.system_families`) with other judges'.
    family: str | None = None
    # The provider's limits for this judge: requests and tokens per minute (None: no limit).
    # The runner stays under them across all its worker processes (`limits.py`).
    rpm: float | None = None
    tpm: float | None = None

    @property
    def is_baseline(self) -> bool:
        return self.model == BASELINE_MODEL

    @property
    def uses_router(self) -> bool:
        return bool(self.model_list)

    @property
    def key_env_names(self) -> tuple[str, ...]:
        """The environment variables that hold this judge's keys: `api_key_env` and the
        `os.environ/NAME` references of its model list (LiteLLM's provider defaults aside)."""
        names = [self.api_key_env] if self.api_key_env else []
        for deployment in self.model_list:
            key = str(deployment.get("litellm_params", {}).get("api_key") or "")
            if key.startswith(ENV_REFERENCE):
                names.append(key[len(ENV_REFERENCE) :])
        return tuple(dict.fromkeys(names))

    def cache_identity(self) -> str:
        """What, beside the prompt, decides the output: the model(s), endpoint and sampling.

        A Router judge is identified by the models of its deployments, not by their endpoints,
        so that adding a replica of the same model keeps the cache."""
        if self.uses_router:
            models = sorted(
                {
                    str(d["litellm_params"]["model"])
                    for d in self.model_list
                    if d.get("model_name") == self.model
                }
            )
            identity: list[Any] = ["router", models, self.temperature, self.max_tokens]
        else:
            identity = [self.model, self.api_base, self.temperature, self.max_tokens]
        if self.seed is not None:  # only then: the keys of calls made without one stay as they were
            identity.append({"seed": self.seed})
        return json.dumps(identity)


@dataclass(frozen=True)
class Panel:
    name: str
    judges: tuple[Judge, ...]
    source: str | None = None
    # system name -> model family, from the file's [system_families] table.
    system_families: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def judge_families(self) -> dict[str, str]:
        """judge name -> model family, for the judges that name one."""
        return {j.name: j.family for j in self.judges if j.family}


def _check_judge(judge: Judge, where: str) -> Judge:
    if judge.concurrency < 1 or judge.max_attempts < 1 or judge.max_tokens < 1:
        raise PanelError(f"{where}: concurrency, max_attempts and max_tokens must be >= 1")
    if judge.timeout_s <= 0:
        raise PanelError(f"{where}: timeout_s must be > 0")
    for limit in ("rpm", "tpm"):
        value = getattr(judge, limit)
        if value is not None and (isinstance(value, bool) or not value > 0):
            raise PanelError(
                f"{where}: {limit} must be a number > 0 (per minute), e.g. {limit} = 500"
            )
    if judge.api_key_env is not None and not _ENV_NAME.fullmatch(judge.api_key_env):
        raise PanelError(
            f"{where}: api_key_env must name an environment variable, "
            'e.g. api_key_env = "OPENAI_API_KEY"'
        )
    for deployment in judge.model_list:
        params = deployment.get("litellm_params")
        if (
            not deployment.get("model_name")
            or not isinstance(params, Mapping)
            or not params.get("model")
        ):
            raise PanelError(
                f"{where}: each model_list entry needs model_name and "
                "litellm_params.model (LiteLLM Router format)"
            )
        key = params.get("api_key")
        if key is not None and not str(key).startswith(ENV_REFERENCE):
            raise PanelError(
                f'{where}: model_list api_key must be "os.environ/NAME"; '
                "keys are read from the environment, never from a file"
            )
    if judge.uses_router and not any(d["model_name"] == judge.model for d in judge.model_list):
        raise PanelError(f"{where}: model {judge.model!r} names no model_name of its model_list")
    return judge


def _judge_from_table(table: Mapping[str, Any], defaults: Mapping[str, Any], where: str) -> Judge:
    if "api_key" in table or "api_key" in defaults:
        raise PanelError(
            f"{where}: api_key is not accepted in a panel file; set the key in an "
            "environment variable and name it with api_key_env"
        )
    fields = {f.name for f in dataclasses.fields(Judge)}
    unknown = sorted((set(table) | set(defaults)) - fields)
    if unknown:
        raise PanelError(
            f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(fields))}"
        )
    values = {**defaults, **table}
    if "model" not in values:
        raise PanelError(f"{where}: every judge needs a model (a LiteLLM model string)")
    values.setdefault("name", values["model"])
    values["model_list"] = tuple(values.get("model_list") or ())
    values["fallbacks"] = tuple(values.get("fallbacks") or ())
    if values["model"] == BASELINE_MODEL:  # free: the heuristic runs in this process
        values.setdefault("input_cost_per_token", 0.0)
        values.setdefault("output_cost_per_token", 0.0)
    try:
        return _check_judge(Judge(**values), where)
    except TypeError as error:
        raise PanelError(f"{where}: {error}") from None


def panel_from_toml(text: str, *, path: Path | None = None) -> Panel:
    where = str(path) if path else "panel"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PanelError(f"{where}: not valid TOML: {error}") from None
    tables = data.get("judges") or []
    if not tables:
        raise PanelError(f"{where}: no [[judges]]; add at least one with a model")
    defaults = data.get("defaults") or {}
    judges = tuple(
        _judge_from_table(t, defaults, f"{where}, judge {i + 1}") for i, t in enumerate(tables)
    )
    names = [j.name for j in judges]
    if len(set(names)) != len(names):
        raise PanelError(f"{where}: judge names must be unique, got {names}")
    families = data.get("system_families") or {}
    if not isinstance(families, Mapping) or not all(
        isinstance(v, str) and v for v in families.values()
    ):
        raise PanelError(
            f'{where}: [system_families] maps a system to its family, e.g. "my-gpt-rag" = "openai"'
        )
    name = str(data.get("name") or (path.stem if path else "panel"))
    return Panel(name, judges, where, dict(families))


def panel_from_models(models: Sequence[str]) -> Panel:
    """A panel of plain LiteLLM model strings with default settings."""
    judges = tuple(_judge_from_table({"model": m.strip()}, {}, m) for m in models if m.strip())
    if not judges:
        raise PanelError("no judge given; pass --panel FILE.toml or --panel MODEL[,MODEL…]")
    return Panel(",".join(j.name for j in judges), judges, None)


def with_overrides(panel: Panel, overrides: Mapping[str, Any]) -> Panel:
    """Every judge with the given fields replaced (CLI flags); None values are ignored."""
    given = {k: v for k, v in overrides.items() if v is not None}
    unknown = sorted(set(given) - set(_TUNABLE))
    if unknown:
        raise PanelError(f"cannot override {', '.join(unknown)}")
    if not given:
        return panel
    judges = tuple(_check_judge(dataclasses.replace(j, **given), j.name) for j in panel.judges)
    return dataclasses.replace(panel, judges=judges)


def load_panel(
    spec: str | os.PathLike[str], *, overrides: Mapping[str, Any] | None = None
) -> Panel:
    """A panel from a TOML path, a panel name in data/panels/, or "model1,model2".

    `judgeboard/baseline` is the offline heuristic judge; `overrides` are CLI flags."""
    text = str(spec)
    path = Path(text)
    if path.suffix == ".toml" or path.is_file():
        if not path.is_file():
            raise PanelError(f"no panel file {path}")
        panel = panel_from_toml(path.read_text(encoding="utf-8"), path=path)
    elif named := [d / f"{text}.toml" for d in panel_dirs() if (d / f"{text}.toml").is_file()]:
        panel = panel_from_toml(named[0].read_text(encoding="utf-8"), path=named[0])
    else:
        panel = panel_from_models(text.split(","))
    return with_overrides(panel, overrides or {})


# The key sent to an api_base that names no key variable. It is no key: LiteLLM's OpenAI
# client refuses an empty one and, given None, falls back to the provider's variable
# (OPENAI_API_KEY), which would hand the server's key to whoever runs that endpoint.
NO_KEY = "no-key"


def api_key_for(judge: Judge) -> str | None:
    """The key the judge's requests carry (the key rule):
    - the value of its `api_key_env` when it names one (PanelError if that is not set);
    - `NO_KEY`, a placeholder that is no key, when it has an `api_base` and names none: a
      self-hosted endpoint never receives a provider key from the environment;
    - None otherwise: LiteLLM's provider default (OPENAI_API_KEY for openai/…)."""
    if judge.api_key_env is None:
        return NO_KEY if judge.api_base else None
    key = os.environ.get(judge.api_key_env)
    if not key:
        raise PanelError(
            f"judge {judge.name}: set the environment variable {judge.api_key_env} (its API key)"
        )
    return key


def deployment_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """A Router deployment's `litellm_params` under the key rule: one with an `api_base` and
    no `api_key = "os.environ/NAME"` gets `NO_KEY`, never the provider's variable. The
    `os.environ/NAME` references stay references: the Router resolves them itself."""
    out = dict(params)
    if out.get("api_base") and not out.get("api_key"):
        out["api_key"] = NO_KEY
    return out


def key_routes(judge: Judge) -> tuple[tuple[str | None, str], ...]:
    """Which key goes where, by variable name (never a value): (NAME, endpoint) for a named
    variable, (None, endpoint) for an api_base sent no key, and (NAME, "the provider") for a
    named key without api_base. Empty when the judge relies on LiteLLM's provider default."""
    deployments = [d.get("litellm_params", {}) for d in judge.model_list] or [
        {"api_base": judge.api_base, "api_key_env": judge.api_key_env}
    ]
    routes: list[tuple[str | None, str]] = []
    for params in deployments:
        key = str(params.get("api_key") or "")
        name = params.get("api_key_env") or (
            key[len(ENV_REFERENCE) :] if key.startswith(ENV_REFERENCE) else None
        )
        where = _endpoint_only(str(params.get("api_base") or "")) or "the provider"
        if name or params.get("api_base"):
            routes.append((name, where))
    return tuple(dict.fromkeys(routes))


def _endpoint_only(url: str) -> str:
    """An api_base without any user:password part, query or fragment."""
    if not url:
        return ""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc.rsplit("@", 1)[-1], parts.path, "", ""))
