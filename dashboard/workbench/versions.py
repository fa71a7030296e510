"""Rubric versions in the database (docs/judge-qa.md, "Versions"): an edit of a rubric (its
prompt template, system message, criteria and scale descriptions, few-shot examples picked
from dev labels) is saved as a new version row with its parent, author, time and prompt
hash, never by editing files on the server. A version exports as TOML in the shape of
data/rubrics/*.toml (plus `parent` and `examples`, the rating ids shown), and its diff to its
parent is a unified diff of the two exports. The rubric files keep working: a file's own
version is the root every workbench version descends from.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dashboard.auth.roles import User, require_admin
from dashboard.ids import utc_now
from dashboard.judging.rubrics import (
    FewShotExample,
    Rubric,
    RubricError,
    load_rubric,
    rubric_from_toml,
)
from dashboard.store import Store, transaction
from dashboard.workbench import versions_sql as sql

EDITABLE = ("template", "system", "description", "labels")
MAX_EXAMPLES = 20


@dataclass(frozen=True)
class RubricVersion:
    """One version of a rubric: the file's own (`parent` None, `author` None) or a saved one."""

    rubric: Rubric
    parent: str | None
    prompt_hash: str
    author: str | None = None
    note: str | None = None
    from_file: bool = False

    @property
    def version(self) -> str:
        return self.rubric.version


def prompt_hash(rubric: Rubric) -> str:
    """sha256 of what the judge is asked: system, template, scale and the examples shown."""
    content = json.dumps(
        [
            rubric.system,
            rubric.template,
            rubric.scale_low,
            rubric.scale_high,
            [(e.rating_id, e.value) for e in rubric.examples],
        ]
    )
    return hashlib.sha256(content.encode()).hexdigest()[:16]


def _string(text: str) -> str:
    if "'''" not in text and "\r" not in text:
        return "'''\n" + text.strip("\n") + "\n'''"
    return json.dumps(text)


def to_toml(rubric: Rubric, *, parent: str | None = None) -> str:
    """The rubric as a rubric file (`rubric_from_toml` reads it back)."""
    lines = [f"name = {json.dumps(rubric.name)}", f"version = {json.dumps(rubric.version)}"]
    if parent is not None:
        lines.append(f"parent = {json.dumps(parent)}")
    lines.append(f"kind = {json.dumps(rubric.kind)}")
    if rubric.scale_low is not None and rubric.scale_high is not None:
        lines.append(f"scale = [{rubric.scale_low:g}, {rubric.scale_high:g}]")
    if rubric.task_types:
        lines.append(f"task_types = {json.dumps(list(rubric.task_types))}")
    if rubric.description:
        lines.append(f"description = {json.dumps(rubric.description)}")
    if rubric.source:
        lines.append(f"source = {json.dumps(rubric.source)}")
    lines.append(f"examples = {json.dumps([e.rating_id for e in rubric.examples])}")
    if rubric.system:
        lines.append(f"\nsystem = {_string(rubric.system)}")
    lines.append(f"\ntemplate = {_string(rubric.template)}")
    if rubric.labels:
        lines.append("\n[labels]")
        lines += [f"{json.dumps(k)} = {json.dumps(v)}" for k, v in rubric.labels.items()]
    return "\n".join(lines) + "\n"


def _saved(store: Store, row: sql.VersionRow) -> RubricVersion:
    rubric = rubric_from_toml(row.toml)
    with store.connection() as con:
        found = {e.rating_id: e for e in sql.labels_by_id(con, row.example_ids)}
    examples = tuple(found[i] for i in row.example_ids if i in found)
    rubric = dataclasses.replace(rubric, version=row.rubric_version, examples=examples)
    return RubricVersion(rubric, row.parent_version, row.prompt_hash, row.author, row.note)


def list_versions(store: Store, rubric_name: str) -> list[RubricVersion]:
    """The file's version first, then every saved version in the order they were made."""
    root = load_rubric(rubric_name)
    with store.connection() as con:
        rows = sql.version_rows(con, rubric=root.name)
    file_version = RubricVersion(root, None, prompt_hash(root), from_file=True)
    return [file_version, *(_saved(store, row) for row in rows)]


def get_version(store: Store, rubric_name: str, version: str) -> RubricVersion:
    found = {v.version: v for v in list_versions(store, rubric_name)}
    if version not in found:
        raise RubricError(
            f"rubric {rubric_name!r} has no version {version!r}; versions: {', '.join(found)}"
        )
    return found[version]


def _next_name(versions: Sequence[RubricVersion]) -> str:
    root = versions[0].version
    return f"{root}-wb{len(versions)}"


def save_version(
    store: Store,
    rubric_name: str,
    *,
    parent: str,
    changes: Mapping[str, object],
    example_ids: Sequence[str] = (),
    allowed_examples: Sequence[str] | None = None,
    author: str | None = None,
    actor: User | None = None,
    note: str | None = None,
) -> RubricVersion:
    """Save an edit of `parent` as a new version. `changes` sets fields of EDITABLE;
    `example_ids` are people's rating ids shown as examples, each among `allowed_examples`
    (the dev labels) when given. Raises RubricError naming what to fix."""
    require_admin(actor, "save a rubric version")
    versions = list_versions(store, rubric_name)
    base = get_version(store, rubric_name, parent).rubric
    unknown = set(changes) - set(EDITABLE)
    if unknown:
        raise RubricError(f"cannot edit {', '.join(sorted(unknown))}; editable: {EDITABLE}")
    if len(example_ids) > MAX_EXAMPLES:
        raise RubricError(f"at most {MAX_EXAMPLES} examples, got {len(example_ids)}")
    if allowed_examples is not None and set(example_ids) - set(allowed_examples):
        raise RubricError("few-shot examples come from the dev split only")
    edited = dataclasses.replace(base, **changes, version=_next_name(versions))  # type: ignore[arg-type]  # keys checked against EDITABLE above
    text = to_toml(dataclasses.replace(edited, examples=()), parent=parent)
    checked = rubric_from_toml(text)  # the saved text must read back as a rubric
    with store.connection() as con:
        found = {e.rating_id: e for e in sql.labels_by_id(con, example_ids)}
    missing = [i for i in example_ids if i not in found]
    if missing:
        raise RubricError(f"no scored rating with id {', '.join(missing)}")
    checked = dataclasses.replace(checked, examples=tuple(found[i] for i in example_ids))
    row = sql.VersionRow(
        checked.name,
        checked.version,
        parent,
        to_toml(checked, parent=parent),
        list(example_ids),
        prompt_hash(checked),
        author,
        note,
        utc_now(),
    )
    with store.write_lock, store.connection() as con, transaction(con):
        sql.add_version(con, row)
        sql.add_examples(con, row, checked.examples)
    return RubricVersion(checked, parent, row.prompt_hash, author, note)


def changes_from_toml(text: str) -> tuple[dict[str, object], list[str], str | None]:
    """(changes, example ids, parent) of an edited rubric file (as `to_toml` writes it)."""
    rubric = rubric_from_toml(text)
    data = tomllib.loads(text)
    examples = data.get("examples", [])
    if not (isinstance(examples, list) and all(isinstance(e, str) for e in examples)):
        raise RubricError("`examples` must be a list of rating ids")
    changes = {key: getattr(rubric, key) for key in EDITABLE}
    return changes, list(examples), data.get("parent") or data.get("version")


def diff(store: Store, rubric_name: str, version: str) -> str:
    """The unified diff of a version's TOML against its parent's (empty for a file version)."""
    child = get_version(store, rubric_name, version)
    if child.parent is None:
        return ""
    parent = get_version(store, rubric_name, child.parent)
    return diff_text(parent, child)


def diff_text(parent: RubricVersion, child: RubricVersion) -> str:
    before = to_toml(parent.rubric, parent=parent.parent).splitlines(keepends=True)
    after = to_toml(child.rubric, parent=child.parent).splitlines(keepends=True)
    return "".join(
        difflib.unified_diff(before, after, f"{parent.version}.toml", f"{child.version}.toml")
    )


def dev_labels(store: Store, rubric: str, response_ids: Sequence[str]) -> list[FewShotExample]:
    with store.connection() as con:
        return sql.labels_of(con, rubric=rubric, response_ids=response_ids)
