"""Rubrics as data: TOML files with a name, a version, a scale and a prompt template.

The shipped rubrics live in `data/rubrics/`, installed as package data (`settings.rubrics_dir`);
a user adds one by naming a directory in `$JUDGEBOARD_RUBRICS` (os.pathsep-separated) or by
passing a path.

Templates use a small mustache-like syntax, so that JSON examples inside a prompt need no
escaping: `{{name}}` inserts a variable, `{{#name}}…{{/name}}` keeps its body only when the
variable is non-empty (a section tag alone on its line takes its newline with it), and
`{{^name}}…{{/name}}` keeps its body only when the variable is empty. Values are inserted in
one pass, so text inside an answer is never read as a template.
"""

from __future__ import annotations

import logging
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dashboard.settings import rubrics_dir

RUBRIC_KINDS: tuple[str, ...] = ("rating", "pairwise")
VARIABLES: tuple[str, ...] = (
    "question",
    "answer",
    "answer_a",
    "answer_b",
    "reference_answer",
    "reference_context",
    "retrieved_context",
    "history",
    "scale_low",
    "scale_high",
)
RUBRICS_ENV = "JUDGEBOARD_RUBRICS"

_SECTION = re.compile(r"{{([#^])\s*([a-z_]+)\s*}}\n?(.*?){{/\s*\2\s*}}\n?", re.DOTALL)
_VARIABLE = re.compile(r"{{\s*([a-z_]+)\s*}}")
_ANY_TAG = re.compile(r"{{\s*([#^/]?)\s*([^}]*?)\s*}}")

Messages = tuple[Mapping[str, str], ...]
log = logging.getLogger(__name__)


class RubricError(ValueError):
    """A rubric file that cannot be used; the message names the file and the fix."""


@dataclass(frozen=True)
class FewShotExample:
    """A person's rating of an answer, shown in a few-shot rubric's prompt (`few_shot.py`)."""

    response_id: str
    rating_id: str
    rater: str
    question: str
    answer: str
    value: float


EXAMPLES_INTRO = "Examples of answers people rated on the same scale:"


@dataclass(frozen=True)
class Rubric:
    """One judging instruction. `scale_low`/`scale_high` are None for pairwise rubrics."""

    name: str
    version: str
    kind: str
    template: str
    system: str | None = None
    scale_low: float | None = None
    scale_high: float | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    task_types: tuple[str, ...] = ()
    description: str = ""
    source: str | None = None
    path: Path | None = None
    examples: tuple[FewShotExample, ...] = ()  # few-shot: people's ratings before the prompt

    @property
    def is_pairwise(self) -> bool:
        return self.kind == "pairwise"

    def _values(self, variables: Mapping[str, str]) -> dict[str, str]:
        values = {**dict.fromkeys(VARIABLES, ""), **variables}
        if self.scale_low is not None and self.scale_high is not None:
            values["scale_low"] = f"{self.scale_low:g}"
            values["scale_high"] = f"{self.scale_high:g}"
        return values

    def render(self, variables: Mapping[str, str]) -> Messages:
        """The chat messages for one target: an optional system message and the user prompt."""
        values = self._values(variables)
        messages: list[Mapping[str, str]] = []
        if self.system:
            messages.append(
                {"role": "system", "content": render_template(self.system, values).strip()}
            )
        prompt = render_template(self.template, values).strip()
        messages.append({"role": "user", "content": self._examples_text() + prompt})
        return tuple(messages)

    def _examples_text(self) -> str:
        """The few-shot block before the prompt (empty without examples)."""
        if not self.examples:
            return ""
        shown = [
            f"Example {n}\nQuestion: {e.question}\nAnswer: {e.answer}\nRating: {e.value:g}"
            for n, e in enumerate(self.examples, start=1)
        ]
        return "\n\n".join([EXAMPLES_INTRO, *shown]) + "\n\n---\n\n"

    def shown(self, variables: Mapping[str, str]) -> frozenset[str]:
        """The variables whose (non-empty) values `render(variables)` puts into the prompt."""
        values = self._values(variables)
        expanded = "".join(_expand_sections(t, values) for t in (self.system or "", self.template))
        return frozenset(name for name in _VARIABLE.findall(expanded) if values.get(name))


def _expand_sections(template: str, values: Mapping[str, str]) -> str:
    """The template with its sections kept or dropped; variable tags are left in place."""

    def section(match: re.Match[str]) -> str:
        kind, name, body = match.groups()
        present = bool(values.get(name, "").strip())
        return body if present == (kind == "#") else ""

    expanded, previous = template, None
    while expanded != previous:  # one pass per level of nesting
        previous, expanded = expanded, _SECTION.sub(section, expanded)
    return expanded


def render_template(template: str, values: Mapping[str, str]) -> str:
    return _VARIABLE.sub(lambda m: values.get(m.group(1), ""), _expand_sections(template, values))


def _check_template(text: str, where: str) -> None:
    """Every tag names a known variable and every section is closed."""
    open_sections: list[str] = []
    for match in _ANY_TAG.finditer(text):
        kind, name = match.groups()
        if name not in VARIABLES:
            raise RubricError(
                f"{where}: unknown template variable {{{{{name}}}}}; "
                f"use one of {', '.join(VARIABLES)}"
            )
        if kind and kind in "#^":
            open_sections.append(name)
        elif kind == "/" and (not open_sections or open_sections.pop() != name):
            raise RubricError(f"{where}: {{{{/{name}}}}} closes a section that is not open")
    if open_sections:
        raise RubricError(f"{where}: section {{{{#{open_sections[-1]}}}}} is never closed")


def _scale(data: Mapping[str, Any], where: str) -> tuple[float | None, float | None]:
    scale = data.get("scale")
    if data.get("kind", "rating") == "pairwise":
        return None, None
    if not (
        isinstance(scale, list)
        and len(scale) == 2
        and all(isinstance(v, (int, float)) and math.isfinite(v) for v in scale)
        and scale[0] < scale[1]
    ):
        raise RubricError(
            f"{where}: `scale` must be [low, high], two finite numbers with low < high, e.g. [1, 5]"
        )
    return float(scale[0]), float(scale[1])


def _check_types(data: Mapping[str, Any], where: str) -> None:
    """Types that the code below relies on, so that a wrong one is a RubricError."""
    for key in ("template", "system", "description"):
        if key in data and not isinstance(data[key], str):
            raise RubricError(f"{where}: `{key}` must be a string")
    if not isinstance(data.get("labels", {}), dict):
        raise RubricError(f'{where}: `labels` must be a table, e.g. [labels] then "1" = "…"')
    task_types = data.get("task_types", [])
    if not (isinstance(task_types, list) and all(isinstance(t, str) for t in task_types)):
        raise RubricError(f"{where}: `task_types` must be a list of strings")


def rubric_from_toml(text: str, *, path: Path | None = None) -> Rubric:
    where = str(path) if path else "rubric"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RubricError(f"{where}: not valid TOML: {error}") from None
    missing = [key for key in ("name", "version", "template") if not data.get(key)]
    if missing:
        raise RubricError(f"{where}: missing {', '.join(missing)}")
    _check_types(data, where)
    kind = data.get("kind", "rating")
    if kind not in RUBRIC_KINDS:
        raise RubricError(f"{where}: kind must be one of {RUBRIC_KINDS}, got {kind!r}")
    for key in ("template", "system"):
        if data.get(key):
            _check_template(data[key], f"{where} ({key})")
    needed = ("answer_a", "answer_b") if kind == "pairwise" else ("answer",)
    for name in needed:
        if not re.search(r"{{\s*" + name + r"\s*}}", data["template"]):
            raise RubricError(f"{where}: a {kind} template must contain {{{{{name}}}}}")
    low, high = _scale(data, where)
    return Rubric(
        name=str(data["name"]),
        version=str(data["version"]),
        kind=kind,
        template=data["template"],
        system=data.get("system") or None,
        scale_low=low,
        scale_high=high,
        labels={str(k): str(v) for k, v in (data.get("labels") or {}).items()},
        task_types=tuple(data.get("task_types") or ()),
        description=str(data.get("description", "")).strip(),
        source=data.get("source"),
        path=path,
    )


def rubric_dirs() -> list[Path]:
    """Where rubric names are looked up: $JUDGEBOARD_RUBRICS first, then the shipped files."""
    extra = [Path(p) for p in os.environ.get(RUBRICS_ENV, "").split(os.pathsep) if p]
    return [*extra, rubrics_dir()]


# Rubric files as parsed, by path and text: every run of a dashboard page lists the rubrics,
# and parsing the TOML again each time was about 2 % of a save's CPU on the Annotate page.
# Reading a file is cheap; an edited one has a new text and is parsed again. A file that cannot
# be used is not kept: its error is raised again on every read.
_PARSED: dict[tuple[Path, str], Rubric] = {}
_PARSED_MAX = 256


def _read(path: Path) -> Rubric:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RubricError(f"{path}: cannot be read: {error}") from None
    if (kept := _PARSED.get((path, text))) is not None:
        return kept
    rubric = rubric_from_toml(text, path=path)
    if len(_PARSED) >= _PARSED_MAX:
        _PARSED.clear()
    _PARSED[(path, text)] = rubric
    return rubric


def _scan() -> list[tuple[Path, Rubric | RubricError]]:
    """Every rubric file of the rubric directories in lookup order, read or with its error."""
    found: list[tuple[Path, Rubric | RubricError]] = []
    for directory in rubric_dirs():
        for path in sorted(directory.glob("*.toml")) if directory.is_dir() else []:
            try:
                found.append((path, _read(path)))
            except RubricError as error:
                found.append((path, error))
    return found


def list_rubrics() -> list[Rubric]:
    """Every usable rubric that a name can reach; an earlier directory shadows a later one.

    A file that cannot be used (say, a user's rubric in $JUDGEBOARD_RUBRICS with a TOML typo)
    is skipped with a warning in the log; `rubric_problems()` says which and why."""
    found: dict[str, Rubric] = {}
    for _, entry in _scan():
        if isinstance(entry, RubricError):
            log.warning("rubric skipped: %s", entry)
        else:
            found.setdefault(entry.name, entry)
    return sorted(found.values(), key=lambda r: r.name)


def rubric_problems() -> list[tuple[Path, str]]:
    """(file, what is wrong with it) for every rubric file of the rubric directories that
    `list_rubrics` skips; the message names the file and the fix."""
    return [(path, str(entry)) for path, entry in _scan() if isinstance(entry, RubricError)]


def _named(name: str) -> Rubric:
    """The first rubric called `name` in lookup order. A file of that stem that comes first
    but cannot be used is the rubric the user meant: its error is raised, naming the file."""
    known: dict[str, Rubric] = {}
    problems: list[RubricError] = []
    for path, entry in _scan():
        if isinstance(entry, RubricError):
            if path.stem == name and name not in known:
                raise RubricError(str(entry)) from None
            problems.append(entry)
        else:
            known.setdefault(entry.name, entry)
    if name in known:
        return known[name]
    message = (
        f"no rubric named {name!r}; known: {', '.join(sorted(known)) or 'none'} "
        "(or pass the path of a .toml file)"
    )
    if problems:
        message += "; skipped, unusable: " + "; ".join(str(p) for p in problems)
    raise RubricError(message)


def load_rubric(name_or_path: str | os.PathLike[str]) -> Rubric:
    """A rubric by name (as listed by `list_rubrics`) or by the path of its TOML file."""
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.is_file():
        if not path.is_file():
            raise RubricError(f"no rubric file {path}")
        return _read(path)
    return _named(str(name_or_path))
