"""A self-hosted judge defined on the Run judges page, written as a panel file.

The file is the same TOML a person would write (see data/panels/example-multi.toml) and is
read back through `panel_from_toml` before it is written, so a file the page saves is one the
loader accepts. It lands in the user's panel folder (`settings.user_panels_dir`): written to a
temporary file and renamed, so no half-written panel is ever listed.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from dashboard.auth.roles import User, require_admin
from dashboard.judging.panel import Panel, PanelError, panel_from_toml
from dashboard.settings import panel_dirs, user_panels_dir

PANEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
TOKENS_PER_PRICE_UNIT = 1000  # the form's prices are USD per 1,000 tokens


@dataclass(frozen=True)
class SelfHostedJudge:
    """What the form asks for. Prices are USD per 1,000 tokens (None: ask LiteLLM's map)."""

    panel: str
    model: str
    api_base: str
    name: str = ""
    concurrency: int = 4
    max_tokens: int = 512
    usd_per_1k_in: float | None = 0.0
    usd_per_1k_out: float | None = 0.0
    api_key_env: str = ""
    family: str = ""


def _toml_string(value: str) -> str:
    # A JSON string is a valid TOML basic string (json.dumps never writes "\/").
    return json.dumps(value, ensure_ascii=False)


def _price(value: float | None, where: str) -> float | None:
    if value is None:
        return None
    if value < 0:
        raise PanelError(f"{where}: a price cannot be negative")
    return value / TOKENS_PER_PRICE_UNIT


def panel_text(judge: SelfHostedJudge) -> str:
    """The panel file's text for the judge; raises PanelError naming the field to fix."""
    if not PANEL_NAME.fullmatch(judge.panel):
        raise PanelError(
            f"panel name {judge.panel!r}: use letters, digits, '-', '_' or '.', "
            "starting with a letter or digit (at most 64)"
        )
    if not judge.model.strip():
        raise PanelError("model: give a LiteLLM model string, e.g. hosted_vllm/llama-3.1-8b")
    if not judge.api_base.strip().startswith(("http://", "https://")):
        raise PanelError("api_base: give the server's URL, e.g. http://127.0.0.1:8000/v1")
    where = f"panel {judge.panel}"
    lines = [
        "# A self-hosted judge, saved from the Run judges page.",
        f"name = {_toml_string(judge.panel)}",
        "",
        "[[judges]]",
        f"name = {_toml_string(judge.name.strip() or judge.model.strip())}",
        f"model = {_toml_string(judge.model.strip())}",
        f"api_base = {_toml_string(judge.api_base.strip())}",
        f"concurrency = {int(judge.concurrency)}",
        f"max_tokens = {int(judge.max_tokens)}",
    ]
    for field, value in (
        ("input_cost_per_token", _price(judge.usd_per_1k_in, where)),
        ("output_cost_per_token", _price(judge.usd_per_1k_out, where)),
    ):
        if value is not None:
            lines.append(f"{field} = {value!r}")
    if judge.api_key_env.strip():
        lines.append(f"api_key_env = {_toml_string(judge.api_key_env.strip())}")
    if judge.family.strip():
        lines.append(f"family = {_toml_string(judge.family.strip())}")
    return "\n".join(lines) + "\n"


def save_panel(
    judge: SelfHostedJudge, *, overwrite: bool = False, actor: User | None = None
) -> tuple[Path, Panel]:
    """Write the judge's panel file and return its path and the panel as the loader reads
    it. A name already used by any panel is refused unless `overwrite` (and a shipped panel
    is never overwritten: the user's file of that name would hide it). An admin's action: a
    panel names where judge calls go and which key they carry."""
    require_admin(actor, "add a judge to the panels")
    text = panel_text(judge)
    folder = user_panels_dir()
    path = folder / f"{judge.panel}.toml"
    panel = panel_from_toml(text, path=path)  # the loader's checks, before anything is written
    taken = [d / path.name for d in panel_dirs() if (d / path.name).is_file()]
    if taken and not (overwrite and taken[0] == path):
        raise PanelError(
            f"a panel named {judge.panel!r} exists already ({taken[0]}); choose another name"
        )
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{judge.panel}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise PanelError(f"cannot write {path}: {error.strerror or error}") from None
    return path, panel
