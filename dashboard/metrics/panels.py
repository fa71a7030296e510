"""Named panels: the judges (and the rubric version) whose ratings make "the panel's" numbers.

A panel is a panel file of data/panels/ (its judges' names), the comma-separated judge names
the Run judges page runs as model strings, or `ALL_JUDGES`, every judge. Its ratings count
at the rubric versions in use, found per dataset (`panels_sql.versions_in_use`): every
version its judges rated the rubric under there, but one a newer version replaced by rating a
response it rated. Versions used side by side on responses of their own (FastChat's four
single-answer prompts) all count. Only the
panel's judges make the panel score, the effective score, the calibration's panel row and
the judge-corrected estimates; any other judge still shows in a column of its own and never
changes those numbers.

The default panel, when none is asked for (`--panel`, a page's panel choice), is the panel
file whose judges gave the most current ratings of the rubric on the selection (ties by
name), and `ALL_JUDGES` when no panel file's judge rated it. Its choice is marked
`panel_is_default`, as the default rubric is.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from pathlib import Path

from dashboard.judging.panel import PanelError, panel_from_toml
from dashboard.metrics import panels_sql as sql
from dashboard.metrics.choices import UnknownChoice, with_default_rubric
from dashboard.metrics.selection import Selection
from dashboard.settings import panels_dir
from dashboard.store import Store

ALL_JUDGES = "all-judges"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PanelChoice:
    """A panel the numbers can be computed for: its name, its judges (None: every judge) and
    the current ratings of the selection's rubric its judges gave on the selection."""

    name: str
    judges: tuple[str, ...] | None
    n_ratings: int = 0

    @property
    def label(self) -> str:
        who = "every judge" if self.judges is None else ", ".join(self.judges)
        return f"{self.name} ({who}; {self.n_ratings:,} ratings)"


def panel_files() -> dict[str, tuple[str, ...]]:
    """The judges' names of every panel file that loads, by the file's name."""
    found = {}
    for path in sorted(Path(panels_dir()).glob("*.toml")):
        try:
            panel = panel_from_toml(path.read_text(encoding="utf-8"), path=path)
        except (OSError, PanelError) as error:
            log.warning("panel file %s left out: %s", path, error)
            continue
        found[path.stem] = tuple(j.name for j in panel.judges)
    return found


def panel_choices(store: Store, selection: Selection) -> list[PanelChoice]:
    """The panel files with ratings on the selection, most ratings first (the first one is
    the default), then those without, then `ALL_JUDGES`."""
    selection = with_default_rubric(store, selection)
    counts: dict[str, int] = {}
    if selection.rubric is not None:
        with store.connection() as con:
            counts = {c.rater: c.n_ratings for c in sql.judge_counts(con, selection)}
    files = [
        PanelChoice(name, judges, sum(counts.get(j, 0) for j in judges))
        for name, judges in panel_files().items()
    ]
    files.sort(key=lambda c: (-c.n_ratings, c.name))
    return [*files, PanelChoice(ALL_JUDGES, None, sum(counts.values()))]


def resolve_panel(spec: str) -> tuple[str, tuple[str, ...] | None]:
    """(name, judges) of a panel asked for by name: `ALL_JUDGES`, a panel file's name, or
    comma-separated judge names. An empty name raises UnknownChoice naming the panels."""
    text = spec.strip()
    if text == ALL_JUDGES:
        return ALL_JUDGES, None
    files = panel_files()
    if text in files:
        return text, files[text]
    judges = tuple(dict.fromkeys(j.strip() for j in text.split(",") if j.strip()))
    if not judges:
        known = ", ".join([*files, ALL_JUDGES])
        raise UnknownChoice(f"no panel named {spec!r} (panels: {known}; or JUDGE,JUDGE…)")
    return ",".join(judges), judges


def require_panel(store: Store, spec: str | None) -> None:
    """Raise UnknownChoice, naming the panels and the judges, unless `spec` (None: the
    default, always fine) is `ALL_JUDGES`, a panel file's name, or judge names of which at
    least one rated something."""
    if spec is None or spec.strip() == ALL_JUDGES or spec.strip() in panel_files():
        return
    _, judges = resolve_panel(spec)
    with store.connection() as con:
        known = sql.judge_names(con)
    if not set(judges or ()) & set(known):
        panels = ", ".join([*panel_files(), ALL_JUDGES])
        raise UnknownChoice(
            f"no panel named {spec!r} and no judge of that name rated anything (panels: "
            f"{panels}; judges: {', '.join(known) or 'none'})"
        )


def with_panel(store: Store, selection: Selection) -> Selection:
    """The selection with its rubric (`choices.with_default_rubric`) and its panel filled in:
    the panel's judges and rubric version, or the default panel when it names none."""
    selection = with_default_rubric(store, selection)
    if selection.panel is None:
        choice = panel_choices(store, selection)[0]
        if choice.n_ratings == 0:
            choice = PanelChoice(ALL_JUDGES, None)
        selection = dataclasses.replace(
            selection, panel=choice.name, panel_judges=choice.judges, panel_is_default=True
        )
    elif selection.panel_judges is None and selection.panel != ALL_JUDGES:
        name, judges = resolve_panel(selection.panel)
        selection = dataclasses.replace(selection, panel=name, panel_judges=judges)
    if (
        selection.panel_version is None
        and selection.panel_versions is None
        and selection.rubric is not None
    ):
        with store.connection() as con:
            in_use = sql.versions_in_use(con, selection)
        versions = tuple(sorted({v for found in in_use.values() for v in found}))
        selection = dataclasses.replace(
            selection,
            panel_version=versions[0] if len(versions) == 1 else None,
            panel_versions=versions or None,
            panel_versions_by_dataset=tuple((d, tuple(v)) for d, v in sorted(in_use.items())),
        )
    return selection


def versions_text(selection: Selection) -> str:
    """The rubric versions a panel's numbers use: "v1", or per dataset when there are
    several: "mt_bench: single-math-v1, single-v1, ..."."""
    by_dataset = [(d, v) for d, v in selection.panel_versions_by_dataset if v]
    versions = selection.panel_versions or (
        (selection.panel_version,) if selection.panel_version else ()
    )
    if len(versions) == 1:
        return f"v{versions[0]}"
    if len(by_dataset) == 1:
        return "versions " + ", ".join(by_dataset[0][1])
    return "; ".join(f"{d}: versions {', '.join(v)}" for d, v in by_dataset) or "every version"


def panel_text(selection: Selection) -> str:
    """The panel as pages and the report name it: "offline (baseline; likert-rag v1)"."""
    who = "every judge" if selection.panel_judges is None else ", ".join(selection.panel_judges)
    version = (
        f"; {selection.rubric} {versions_text(selection)}"
        if selection.panel_versions or selection.panel_version
        else ""
    )
    default = ", the default" if selection.panel_is_default else ""
    return f"{selection.panel or ALL_JUDGES} ({who}{version}{default})"
