"""What a metric is computed over: one dataset (or all), a rubric, some systems (or all)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Selection:
    """What a metric is computed over. None means every dataset, or every system."""

    dataset: str | None = None
    rubric: str | None = None
    systems: tuple[str, ...] | None = None

    def params(self, *names: str) -> dict[str, Any]:
        values = {
            "dataset": self.dataset,
            "rubric": self.rubric,
            "systems": list(self.systems) if self.systems is not None else None,
        }
        return {name: values[name] for name in names}
