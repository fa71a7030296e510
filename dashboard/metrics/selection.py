"""What a metric is computed over: one dataset (or all), a rubric, some systems (or all), and
one slice of the items (or all).

The rubric rule: a rubric asked for (`--rubric R`, a page's rubric choice) selects R's
ratings and R's pairwise verdicts. With none asked for, ratings are the default rubric's
(the one with the most ratings, filled in by `choices.with_default_rubric`, which marks it
`rubric_is_default`) and verdicts are every rubric's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# The item columns a slice may split on; every other field name is a key of the items'
# metadata (JSON). An item column wins over a metadata key of the same name.
ITEM_COLUMNS = ("dataset", "task_type")
# `judgeboard metrics --by FIELD` names every metric of a slice with its prefix
# (by.category=coding.systems.x.effective); the items without the field are the slice NO_VALUE.
SLICE_PREFIX = "by."
NO_VALUE = "(none)"


@dataclass(frozen=True)
class Slice:
    """The items whose `field` has `value`: `field` is an item column (`ITEM_COLUMNS`) or a
    key of the items' metadata, `value` its text (a number reads as its JSON text, "1");
    value None is the slice of the items without the field (or with a JSON null)."""

    field: str
    value: str | None

    @property
    def text(self) -> str:
        """The value as tables and names write it: NO_VALUE for the items without it."""
        return NO_VALUE if self.value is None else self.value

    @property
    def prefix(self) -> str:
        """The prefix of the slice's metric names: "by.category=coding."."""
        return f"{SLICE_PREFIX}{self.field}={self.text}."


def unsliced_names(name: str) -> list[str]:
    """What a slice's metric name (by.FIELD=VALUE.NAME) may name once its prefix is gone:
    the value may hold dots, so every split after the "=" (the shortest value first)."""
    start = name.find("=")
    if not name.startswith(SLICE_PREFIX) or start < 0:
        return []
    return [name[i + 1 :] for i, c in enumerate(name) if c == "." and i > start]


def panel_versions_param(versions: tuple[str, ...] | None, version: str | None) -> list[str] | None:
    """`$panel_versions`: the rubric versions the panel's ratings count at (None: every)."""
    if versions is not None:
        return list(versions)
    return [version] if version is not None else None


@dataclass(frozen=True)
class Selection:
    """What a metric is computed over. None means every dataset, every system, the default
    rubric (see the module's docstring), every item, or the default panel (`panels.py`)."""

    dataset: str | None = None
    rubric: str | None = None
    systems: tuple[str, ...] | None = None
    slice: Slice | None = None
    rubric_is_default: bool = False
    # The panel: its name, its judges (None: every judge) and the rubric versions its
    # ratings count at (None: every version); filled in by `panels.with_panel`, which finds
    # the versions in use per dataset (`panel_versions_by_dataset`, (dataset, versions)
    # pairs). `panel_version` is the one version when one is in use (as before several
    # could be); a caller may set it alone.
    panel: str | None = None
    panel_judges: tuple[str, ...] | None = None
    panel_version: str | None = None
    panel_is_default: bool = False
    panel_versions: tuple[str, ...] | None = None
    panel_versions_by_dataset: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def selects_every_response(self) -> bool:
        """No dataset, system or slice is chosen: a read need not join the responses to
        find the selected ones."""
        return self.dataset is None and self.systems is None and self.slice is None

    @property
    def preference_rubric(self) -> str | None:
        """The rubric whose pairwise verdicts count: the one asked for, or None (every
        rubric's) when the rubric is the default."""
        return None if self.rubric_is_default else self.rubric

    def params(self, *names: str) -> dict[str, Any]:
        values = {
            "dataset": self.dataset,
            "rubric": self.rubric,
            "systems": list(self.systems) if self.systems is not None else None,
            "slice_field": self.slice.field if self.slice else None,
            "slice_value": self.slice.value if self.slice else None,
            "preference_rubric": self.preference_rubric,
            "panel_judges": list(self.panel_judges) if self.panel_judges is not None else None,
            "panel_versions": panel_versions_param(self.panel_versions, self.panel_version),
        }
        return {name: values[name] for name in names}
