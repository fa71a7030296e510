"""The Overview's and the Calibration's numbers as display rows (one dict per table row).

Pure functions over the records of `dashboard.metrics` and `dashboard.calibration`; the page
passes the formatter of an estimate (`ui.fmt_estimate`), so every cell reads
"value [low, high]" the same way. A column with no data in the selection is left out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from dashboard.metrics.calibration import Calibration, RaterPair
from dashboard.metrics.estimates import Estimate
from dashboard.metrics.overview import Overview, SystemRow

Format = Callable[[Estimate | None], str]
Row = dict[str, Any]

# The Overview's columns after the judges: (header, the estimate of a system's row).
SCORE_COLUMNS: tuple[tuple[str, Callable[[SystemRow], Estimate | None]], ...] = (
    ("panel", lambda r: r.panel),
    ("human", lambda r: r.human),
    ("effective", lambda r: r.effective),
    ("win rate", lambda r: r.win_rate),
    ("EM", lambda r: r.em),
    ("F1", lambda r: r.f1),
    ("MCQA accuracy", lambda r: r.mcqa_accuracy),
    ("MCQA IoU", lambda r: r.mcqa_iou),
    ("hallucination F1", lambda r: r.hallucination_f1),
)
JUDGE_PREFIX = "judge: "


def _has_data(estimate: Estimate | None) -> bool:
    return estimate is not None and estimate.value is not None and not math.isnan(estimate.value)


def overview_rows(overview: Overview, fmt: Format) -> list[Row]:
    """One row per system: responses, each judge, the panel (and what it skipped), people,
    the effective score, win rate and the reference-based metrics."""
    judges = sorted({name for row in overview.systems for name in row.judges})
    present = {
        header
        for header, get in SCORE_COLUMNS
        if any(_has_data(get(row)) for row in overview.systems)
    }
    rows = []
    for row in overview.systems:
        cells: Row = {"system": row.system, "responses": row.n_responses}
        cells.update({f"{JUDGE_PREFIX}{j}": fmt(row.judges.get(j)) for j in judges})
        for header, get in SCORE_COLUMNS:
            if header not in present:
                continue
            cells[header] = fmt(get(row))
            if header == "panel":
                cells["panel skipped"] = row.panel_skipped
            elif header == "human":
                cells["human labels"] = row.human.n if row.human else 0
        rows.append(cells)
    return rows


def standings_rows(overview: Overview) -> list[Row]:
    """Bradley–Terry standings, best first, with their intervals and the battles behind them."""
    return [
        {
            "system": s.system,
            "rating": "—" if math.isnan(s.rating) else f"{s.rating:.0f}",
            "95% CI": "—" if math.isnan(s.low) else f"[{s.low:.0f}, {s.high:.0f}]",
            "battles": s.n_battles,
        }
        for s in overview.pairwise.bradley_terry
    ]


def judge_agreement_rows(calibration: Calibration, fmt: Format) -> list[Row]:
    """Each judge and the panel against people: agreement, kappa, alpha, Spearman, bias."""
    return [
        {
            "judge": j.judge,
            "pairs": j.n_pairs,
            "responses": j.n_responses,
            "exact": fmt(j.exact),
            "within ±1": fmt(j.within_one),
            "kappa (quadratic)": fmt(j.kappa_quadratic),
            "alpha (ordinal)": fmt(j.alpha_ordinal),
            "Spearman": fmt(j.spearman),
            "bias (judge − person)": fmt(j.bias),
        }
        for j in calibration.judges
    ]


def preference_rows(calibration: Calibration, fmt: Format) -> list[Row]:
    """Each judge's pairwise verdicts against the people's majority."""
    return [
        {
            "judge": p.judge,
            "pairs": p.n_pairs,
            "unscored": p.n_unscored,
            "agreement (with ties)": fmt(p.with_ties),
            "agreement (without ties)": fmt(p.without_ties),
            "pairs without ties": p.without_ties.n,
            "flip rate": "—" if math.isnan(p.flip_rate) else f"{p.flip_rate:.3f}",
            "pairs in both orders": p.n_swapped,
        }
        for p in calibration.preferences
    ]


def rater_pair_rows(pairs: Sequence[RaterPair], *, statistic: str) -> list[Row]:
    """Agreement between two people on what both labelled."""
    return [
        {
            "person A": p.rater_a,
            "person B": p.rater_b,
            "shared": p.n_units,
            "exact agreement": f"{p.exact:.3f}",
            statistic: "—" if math.isnan(p.kappa) else f"{p.kappa:.3f}",
        }
        for p in pairs
    ]
