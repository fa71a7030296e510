"""Gates on the numbers of `judgeboard metrics`: `--fail-under NAME=VALUE` fails when the metric
is below VALUE, `--fail-over NAME=VALUE` when it is above.

NAME is a metric name of the metrics JSON, or a shell-style pattern (`*`, `?`, `[...]`) that
every matching metric must pass. It may end in `.low`, `.high` or `.n` to gate on that part of
the metric instead of its value: `--fail-under systems.rag-v2.corrected.low=0.6` holds only
when the lower end of the 95% interval is at least 0.6. A metric without a value (too little
data for it) fails every gate on it; a name that matches no metric is an error, which lists
the closest names, so that a typo can never pass a gate by matching nothing.
"""

from __future__ import annotations

import difflib
import fnmatch
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

UNDER, OVER = "under", "over"
PARTS = ("value", "low", "high", "n")
_WILDCARDS = "*?["


class GateError(ValueError):
    """A gate that cannot be checked (bad syntax, or a name that matches no metric)."""


@dataclass(frozen=True)
class Gate:
    """Fail when `part` of the metrics `pattern` names is under (or over) `bound`."""

    pattern: str
    bound: float
    direction: str = UNDER
    part: str = "value"

    @property
    def flag(self) -> str:
        return f"--fail-{self.direction}"


def parse_gate(text: str, *, direction: str = UNDER) -> Gate:
    """`NAME=NUMBER` as a gate; the part suffix is resolved against the metrics later."""
    name, sep, value = text.rpartition("=")
    try:
        bound = float(value)
    except ValueError:
        bound = math.nan
    if not sep or not name.strip() or math.isnan(bound):
        raise GateError(
            f"--fail-{direction} {text!r}: expected NAME=NUMBER, e.g. systems.my-rag.effective=0.7"
        )
    return Gate(name.strip(), bound, direction)


def _matches(pattern: str, names: Sequence[str]) -> list[str]:
    if any(c in pattern for c in _WILDCARDS):
        return [n for n in names if fnmatch.fnmatchcase(n, pattern)]
    return [pattern] if pattern in names else []


def resolve(gate: Gate, names: Sequence[str]) -> tuple[str, list[str]]:
    """(the part gated, the metric names the gate applies to). A name that is itself a
    metric gates its value; one that ends in a part (`.low`) gates that part of the metric
    it ends; a name matching nothing raises GateError with the closest names."""
    found = _matches(gate.pattern, names)
    if found:
        return "value", found
    stem, _, part = gate.pattern.rpartition(".")
    if part in PARTS and stem and (found := _matches(stem, names)):
        return part, found
    close = difflib.get_close_matches(gate.pattern, names, n=5, cutoff=0.5)
    hint = f"; close names: {', '.join(close)}" if close else ""
    raise GateError(
        f"{gate.flag}: no metric named {gate.pattern!r}{hint} "
        "(all names: judgeboard metrics --json)"
    )


def failures(metrics: Mapping[str, Mapping[str, Any]], gates: Sequence[Gate]) -> list[str]:
    """One message per metric that fails its gate. Every gate is resolved first, so an
    unknown name raises GateError before any verdict."""
    names = sorted(metrics)
    resolved = [(gate, *resolve(gate, names)) for gate in gates]
    messages = []
    for gate, part, matched in resolved:
        for name in matched:
            shown = name if part == "value" else f"{name}.{part}"
            value = metrics[name].get(part)
            wanted = ">=" if gate.direction == UNDER else "<="
            if value is None:
                messages.append(
                    f"{shown} has no value (too little data), needs {wanted} {gate.bound:g}"
                )
            elif gate.direction == UNDER and value < gate.bound:
                messages.append(f"{shown} = {value:.4g} is under the threshold {gate.bound:g}")
            elif gate.direction == OVER and value > gate.bound:
                messages.append(f"{shown} = {value:.4g} is over the threshold {gate.bound:g}")
    return messages
