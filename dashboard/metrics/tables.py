"""The Overview's and the Calibration's numbers as display rows (one dict per table row).

Pure functions over the records of `overview/` and `calibration/`. The columns and their
headers come from the declarations in `registry.py`, and every estimate reads "value [low,
high]" the same way (`estimate_text`). A column with no data in the selection is left out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from dashboard.metrics import registry
from dashboard.metrics.calibration import Calibration, RaterPair
from dashboard.metrics.estimates import Estimate
from dashboard.metrics.overview import Overview, Standings, SystemRow
from dashboard.metrics.registry import COUNT, ELO, SIGNED, Metric
from dashboard.metrics.selection import NO_VALUE

Row = dict[str, Any]
EMPTY = "—"


def number_text(value: float | None, style: str = registry.SCORE, *, digits: int = 2) -> str:
    """A number as the tables write it: a score with `digits` decimals, an Elo rating and a
    count whole, a difference with its sign; an em dash for none."""
    if value is None or math.isnan(value):
        return EMPTY
    if style in (ELO, COUNT):
        return f"{value:.0f}"
    return f"{value:+.{digits}f}" if style == SIGNED else f"{value:.{digits}f}"


def estimate_text(
    estimate: Estimate | None, style: str = registry.SCORE, *, digits: int = 2
) -> str:
    """'0.72 [0.65, 0.79]'; the value alone when it has no interval; an em dash for none."""
    if estimate is None:
        return EMPTY
    value = number_text(estimate.value, style, digits=digits)
    if value == EMPTY or math.isnan(estimate.low):
        return value
    low, high = (number_text(v, style, digits=digits) for v in (estimate.low, estimate.high))
    return f"{value} [{low}, {high}]"


def _has_data(estimate: Estimate | None) -> bool:
    return estimate is not None and not math.isnan(estimate.value)


def _system_value(row: SystemRow, metric: Metric) -> Estimate | int | None:
    key = registry.row_key(metric)
    if metric.style == COUNT:
        return row.counts.get(key)
    return row.score(key)


def overview_rows(overview: Overview, *, digits: int = 2) -> list[Row]:
    """One row per system, a column per system metric of the registry's summary that some
    system has (each judge's and each reference scorer's mean in a column of its own), in the
    registry's order."""
    judges = sorted({name for row in overview.systems for name in row.judges})
    scorers = sorted({name for row in overview.systems for name in row.references})
    columns: list[Metric] = [
        m
        for m in registry.SYSTEM_METRICS
        if m.summary
        and (
            "<judge>" in m.name
            or "<scorer>" in m.name
            or any(
                (v := _system_value(row, m)) is not None
                and (not isinstance(v, Estimate) or _has_data(v))
                for row in overview.systems
            )
        )
    ]
    rows = []
    for row in overview.systems:
        cells: Row = {"system": row.system}
        for metric in columns:
            if "<judge>" in metric.name:
                for judge in judges:
                    label = registry.fill(metric.label, judge=judge)
                    cells[label] = estimate_text(row.judges.get(judge), digits=digits)
                continue
            if "<scorer>" in metric.name:
                for scorer in scorers:
                    label = registry.fill(metric.label, scorer=scorer)
                    cells[label] = estimate_text(row.references.get(scorer), digits=digits)
                continue
            value = _system_value(row, metric)
            if metric.style == COUNT:
                cells[metric.label] = value
                continue
            estimate = value if isinstance(value, Estimate) else None
            cells[metric.label] = estimate_text(estimate, metric.style, digits=digits)
            if metric.n_label:
                cells[metric.n_label] = estimate.n if estimate else 0
        rows.append(cells)
    return rows


def slice_text(value: str | None) -> str:
    """A slice's value as the tables write it: `selection.NO_VALUE` for the items without."""
    return NO_VALUE if value is None else value


def sliced_rows(slices: Sequence[tuple[str | None, Sequence[Row]]], *, field: str) -> list[Row]:
    """Rows of several slices in one table: each row led by its slice's value under the
    field's name."""
    return [{field: slice_text(value), **row} for value, rows in slices for row in rows]


def standings_rows(standings: Standings, *, digits: int = 2) -> list[Row]:
    """One group's standings, best Bradley–Terry rating first: the rating and the win rate,
    each with its interval, and the battles behind them."""
    return [
        {
            "system": s.system,
            "Bradley–Terry": estimate_text(
                Estimate(s.rating, s.low, s.high, s.n_battles), registry.ELO
            ),
            "win rate": estimate_text(standings.win_rates.get(s.system), digits=digits),
            "battles": s.n_battles,
        }
        for s in standings.bradley_terry
    ]


def judge_level_rows(calibration: Calibration, *, digits: int = 3) -> list[Row]:
    """Each judge and the panel against the mean of people: a column per statistic of the
    registry (item level, system level, and as a pass/fail judge), with its n."""
    rows = []
    for levels in calibration.levels:
        cells: Row = {"judge": levels.judge}
        for m in registry.JUDGE_LEVEL_METRICS:
            value: Estimate = getattr(levels, m.key)
            cells[m.label] = estimate_text(value, m.style, digits=digits)
        cells["items"] = levels.item_pearson.n
        cells["systems"] = levels.system_pearson.n
        rows.append(cells)
    return rows


def people_alpha_texts(calibration: Calibration) -> list[tuple[str, str, str]]:
    """(label, value, "95% interval [low, high], n = N responses") of people's own alpha,
    ordinal and interval; none when fewer than two people rated a response in common."""
    found = calibration.people_alpha
    if found is None:
        return []
    texts = []
    for m in registry.PEOPLE_ALPHA_METRICS:
        e: Estimate = getattr(found, m.key)
        interval = estimate_text(e, digits=3).partition(" ")[2] or EMPTY
        texts.append(
            (m.label, number_text(e.value, digits=3), f"95% interval {interval}, n = {e.n}")
        )
    return texts


def judge_agreement_rows(calibration: Calibration, *, digits: int = 3) -> list[Row]:
    """Each judge and the panel against people: a column per statistic of the registry."""
    return [
        {
            "judge": j.judge,
            "pairs": j.n_pairs,
            "responses": j.n_responses,
            **{
                m.label: estimate_text(getattr(j, m.key), m.style, digits=digits)
                for m in registry.JUDGE_AGREEMENT_METRICS
            },
        }
        for j in calibration.judges
    ]


# The pairwise conventions a page can put first (every one but the counts).
PREFERENCE_HEADLINES: tuple[Metric, ...] = tuple(
    m for m in registry.PREFERENCE_AGREEMENT_METRICS if m.style != COUNT
)


def _headline_first(headline: str | None) -> list[Metric]:
    metrics = list(registry.PREFERENCE_AGREEMENT_METRICS)
    first = [m for m in metrics if m.key == headline]
    if headline is not None and not first:
        raise ValueError(f"no pairwise convention is called {headline!r}")
    return first + [m for m in metrics if m.key != headline]


def preference_rows(
    calibration: Calibration, *, headline: str | None = None, digits: int = 3
) -> list[Row]:
    """Each judge (and the panel) under every pairwise convention of the registry, the
    `headline` one (a metric key) first; a convention's n follows it where it declares one."""
    rows = []
    for p in calibration.preferences:
        cells: Row = {"judge": p.judge}
        for metric in _headline_first(headline):
            value = getattr(p, metric.key)
            if metric.style == COUNT:
                cells[metric.label] = value
                continue
            cells[metric.label] = estimate_text(value, metric.style, digits=digits)
            if metric.n_label:
                cells[metric.n_label] = value.n
        rows.append(cells)
    return rows


def headline_texts(calibration: Calibration, headline: str) -> list[tuple[str, str, str]]:
    """(judge, value, "95% interval [low, high], n = N") of one pairwise convention per judge."""
    (metric,) = _headline_first(headline)[:1]
    found = []
    for p in calibration.preferences:
        e: Estimate = getattr(p, metric.key)
        interval = estimate_text(e, digits=3).partition(" ")[2] or EMPTY
        found.append(
            (p.judge, number_text(e.value, digits=3), f"95% interval {interval}, n = {e.n}")
        )
    return found


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
