"""The judge-corrected estimates and the paired comparisons as display rows (one dict per
table row), for the pages: pure functions over the records of `systems.py`, `compare.py`."""

from __future__ import annotations

import math
from typing import Any

from dashboard.metrics import registry
from dashboard.metrics.corrected.compare import Comparisons
from dashboard.metrics.corrected.systems import Corrected, Triple
from dashboard.metrics.tables import EMPTY, estimate_text

Row = dict[str, Any]


def _three(prefix: str, triple: Triple) -> Row:
    return {
        f"{prefix}judge-only": estimate_text(triple.judge_only),
        f"{prefix}human-only": estimate_text(triple.human_only),
        f"{prefix}corrected": estimate_text(triple.corrected),
    }


def corrected_rows(found: Corrected) -> list[Row]:
    """One row per system: score and pass rate three ways, valid labels, labels needed."""
    return [
        {
            "system": s.system,
            **_three("", s.score),
            **_three("pass rate ", s.pass_rate),
            "pass rate Rogan–Gladen": estimate_text(s.pass_rate_rogan_gladen),
            "valid labels": s.n_valid_labels,
            # Text, so that a column of counts may hold the dash of "cannot be said".
            f"labels needed (±{found.target_half_width:g})": (
                EMPTY if s.labels_needed is None else f"{s.labels_needed:,}"
            ),
        }
        for s in found.systems
    ]


PASS_RATE = "pass rate "


def score_rows(found: Corrected) -> list[Row]:
    """`corrected_rows` without the pass rates: the score three ways and the labels (one
    table of two that together fit a 1400-px window)."""
    return [
        {k: v for k, v in row.items() if not k.startswith(PASS_RATE)}
        for row in corrected_rows(found)
    ]


def pass_rate_rows(found: Corrected) -> list[Row]:
    """`corrected_rows`' pass rates, each row led by its system."""
    return [
        {k: v for k, v in row.items() if k == "system" or k.startswith(PASS_RATE)}
        for row in corrected_rows(found)
    ]


def win_rate_rows(found: Corrected) -> list[Row]:
    """One row per pair of systems: system A's win rate over B three ways."""
    return [
        {"system A": h.system_a, "system B": h.system_b, **_three("win rate ", h.win_rate)}
        for h in found.head_to_head
    ]


def _p_text(p: float) -> str:
    return EMPTY if math.isnan(p) else f"{p:.3g}"


def compare_rows(found: Comparisons) -> list[Row]:
    """One row per pair and kind: the difference b − a, its p-value and Holm's verdict."""
    return [
        {
            "system a": d.system_a,
            "system b": d.system_b,
            "kind": d.kind,
            "b − a": estimate_text(d.estimate, registry.SIGNED),
            "shared items": d.estimate.n,
            "p": _p_text(d.p_value),
            **(
                {"p (Holm)": _p_text(d.p_holm), "survives Holm": "yes" if d.survives else "no"}
                if found.holm
                else {}
            ),
        }
        for d in found.differences
    ]
