"""Sections of the Calibration page: each judge's confusion heatmap, people's alpha among
themselves, each judge against the mean of people (item and system level, TPR and TNR), and
each judge's ratings mapped onto people's scale (the "calibrated" column)."""

from __future__ import annotations

import math

import streamlit as st

from dashboard import charts, ui
from dashboard.metrics import registry, tables
from dashboard.metrics.calibration import Calibration, JudgeMap
from dashboard.metrics.selection import Selection
from dashboard.ui import pickers, tables_fit
from dashboard.workbench import split
from scoring.stats import CI

HEATMAPS_PER_ROW = 3


def confusion_heatmaps(result: Calibration) -> None:
    """Each judge's (and the panel's) confusion table against people, as heatmaps."""
    columns = st.columns(HEATMAPS_PER_ROW)
    for index, judge in enumerate(result.judges):
        with columns[index % HEATMAPS_PER_ROW]:
            st.plotly_chart(
                charts.confusion_heatmap(judge.confusion, judge=judge.judge), width="stretch"
            )


def people_section(result: Calibration) -> None:
    """Krippendorff's alpha among the people alone, ordinal and interval, when two people
    rated a response in common; then each two people on the responses both rated."""
    if alphas := tables.people_alpha_texts(result):
        st.markdown("**People among themselves** (no judge among the raters)")
        for column, (label, value, detail) in zip(st.columns(len(alphas)), alphas):
            column.metric(label, value, help=detail)
            column.caption(detail)
    if result.humans:
        st.markdown("**People with one another** (responses both rated)")
        pickers.table(tables.rater_pair_rows(result.humans, statistic="kappa (quadratic)"))


def against_people_mean(result: Calibration) -> None:
    """Each judge and the panel against the mean of people, at the item and system level,
    and as a pass/fail judge."""
    rows = tables.judge_level_rows(result)
    if not rows:
        return
    st.markdown("**Against the mean of people** (per response, and per system)")
    st.caption(
        "Each judge's rating of a response against the mean of its people's ratings, as the "
        "summarization and G-Eval literature reports it: over the responses (item level) and "
        "over the systems' means on those responses (system level, 3 systems or more), and "
        "as a pass/fail judge (a normalized score of 0.5 passes) its true positive and true "
        "negative rates. Estimate [95% bootstrap interval]."
    )
    tables_fit.fitted_tables(
        rows, registry.JUDGE_LEVEL_METRICS, estimate_px=tables_fit.WIDE_ESTIMATE_PX
    )


def _number(value: float | None) -> str:
    return "—" if value is None or math.isnan(value) else f"{value:.2f}"


def _interval(ci: CI) -> str:
    return "—" if math.isnan(ci.low) else f"[{ci.low:.2f}, {ci.high:.2f}]"


def _map_row(m: JudgeMap) -> dict[str, object]:
    steps = ", ".join(f"{x:g}→{y:.2f}" for x, y in zip(m.fitted.x, m.fitted.y, strict=True))
    return {
        "judge": m.judge,
        "fitted on": m.n_fit,
        "checked on": m.n_check,
        "error, raw": _number(m.mae_raw),
        "error, calibrated": _number(m.mae_calibrated),
        "interval, raw": _interval(m.mae_raw_ci),
        "interval, calibrated": _interval(m.mae_calibrated_ci),
        "map (judge → people)": steps,
    }


def calibrated_section(selection: Selection) -> None:
    """Each judge's ratings beside the same ratings mapped onto people's scale."""
    found = ui.cached(split.isotonic_on_split, selection)
    maps = found.maps
    if not maps:
        return
    st.markdown("**Calibrated to people** (an isotonic map from each judge's scale to people's)")
    halves = (
        "Fitted on the dev split of people's labels and checked on the test split (the Judge "
        "lab's split of this dataset)"
        if found.on_split
        else "Fitted on a seeded half of the labelled answers and checked on the other half "
        "(pick a dataset to use its dev/test split)"
    )
    st.caption(
        f"{halves}: the error is the mean absolute difference from people's mean rating on "
        "the checked answers, raw and calibrated, each with its 95% bootstrap interval over "
        "those answers (n: checked on). The calibrated column applies the map to every answer."
    )
    pickers.table([_map_row(m) for m in maps])
    pickers.table(
        [
            {
                "judge": r.judge,
                "response": r.response_id,
                "raw": r.raw,
                "calibrated": round(r.calibrated, 3),
                "people (mean)": r.people,
                "half": r.half,
            }
            for m in maps
            for r in m.ratings
        ]
    )
