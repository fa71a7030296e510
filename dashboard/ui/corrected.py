"""The judge-corrected estimates, the labels they need and the paired comparisons on a page.

`labels_needed(dataset, rubric, ...)` is the call for any page that wants the per-system
count of random labels still needed (a labelling queue's random order, for one)."""

from __future__ import annotations

import streamlit as st

from dashboard import ui
from dashboard.metrics import corrected, panels
from dashboard.metrics.selection import Selection
from dashboard.ui import pickers, tables_fit


def labels_needed(
    dataset: str | None,
    rubric: str | None = None,
    *,
    panel: str | None = None,
    target_half_width: float = corrected.TARGET_HALF_WIDTH,
) -> tuple[corrected.LabelsNeeded, ...]:
    """Per system of the dataset: valid labels, half-width now, random labels still needed."""
    return ui.cached(
        corrected.labels_needed,
        Selection(dataset, rubric, panel=panel),
        target_half_width=target_half_width,
    )


def labels_needed_line(dataset: str | None, rubric: str) -> str:
    """Beside a random-sample queue: per system, the random labels still needed for the
    corrected score's target half-width (read again at most every minute)."""
    found = ui.soon(
        corrected.labels_needed,
        Selection(dataset, rubric),
        target_half_width=corrected.TARGET_HALF_WIDTH,
        wait_s=0,
        every_s=60,
    )
    if found is None:
        return "Random labels still needed: being worked out; shown with a later answer."
    if not found:
        return "Labels needed: no system has panel ratings on this rubric yet."
    parts = [
        f"{ui.md_escape(n.system)} {'unknown' if n.labels_needed is None else n.labels_needed}"
        f" (has {n.n_valid_labels})"
        for n in found
    ]
    unknown = (
        " Unknown: fewer than two random labels of the system yet, or none of its answers "
        "scored by the panel, so its spread cannot be estimated; label a few at random first."
        if any(n.labels_needed is None for n in found)
        else ""
    )
    return (
        f"Random labels still needed for a corrected score within ±{corrected.TARGET_HALF_WIDTH:g}"
        f" (default panel): {'; '.join(parts)}. Updated every minute.{unknown}"
    )


def _both(
    selection: Selection,
    *,
    target_half_width: float = corrected.TARGET_HALF_WIDTH,
    wait_s: float = 1.0,
) -> tuple[corrected.Corrected, corrected.Comparisons] | None:
    """Both, read in the background: None while they are still being read (a million
    responses take a few seconds; the rest of the page does not wait for them)."""
    return ui.soon(
        corrected.corrected_and_compared,
        selection,
        target_half_width=target_half_width,
        wait_s=wait_s,
    )


def show_corrected(selection: Selection, *, key: str) -> float:
    """The section: panel named, target half-width input, the side-by-side tables, notes;
    returns the target chosen."""
    st.subheader("Judge-corrected estimates")
    target = st.number_input(
        "Target half-width of the corrected interval",
        min_value=0.005,
        max_value=0.5,
        value=corrected.TARGET_HALF_WIDTH,
        step=0.005,
        format="%.3f",
        key=f"{key}_target",
    )
    both = _both(selection, target_half_width=float(target))
    if both is None:
        ui.poll_until_ready(
            lambda: _both(selection, target_half_width=float(target), wait_s=0) is not None,
            "Computing the judge-corrected estimates and the paired comparisons…",
        )
        return float(target)
    found = both[0]
    st.caption(
        f"Panel: **{ui.md_escape(panels.panel_text(found.selection))}**. Each score three "
        "ways: the panel alone (judge-only), the valid human labels alone (human-only: "
        "random labels weighted by their inverse inclusion probability, and census labels; "
        "targeted and unknown labels never count), and judge-corrected by PPI++. Normal 95% "
        "intervals; a response passes at a normalized score of 0.5 or more. *Labels "
        "needed*: more random labels that bring the corrected interval to ± the target "
        "(a dash: fewer than two random labels yet, so it cannot be said). "
        "*Pass rate Rogan–Gladen*: the panel's pass rate p corrected by its true positive and "
        "true negative rates against the valid labels, (p + TNR − 1) / (TPR + TNR − 1) "
        "clipped to [0, 1], with a bootstrap interval. The effective score above is "
        "descriptive, not an estimate."
    )
    for note in found.notes:
        st.info(ui.md_escape(note))
    # The scores and the pass rates as two tables one under the other: one table of both is
    # wider than a 1400-px window's page (1,171 px measured in Chromium).
    if rows := corrected.score_rows(found):
        tables_fit.fitted_tables(rows)
    if rows := corrected.pass_rate_rows(found):
        tables_fit.fitted_tables(rows)
    if rows := corrected.win_rate_rows(found):
        st.caption("Head-to-head win rates of system A over system B (a tie counts half).")
        tables_fit.fitted_tables(rows, lead=2)
    return float(target)


def show_comparisons(selection: Selection, *, target_half_width: float) -> None:
    """Paired comparisons of every two systems, with Holm's verdict for more than two."""
    both = _both(selection, target_half_width=target_half_width, wait_s=0)
    if both is None:  # show_corrected says it is on its way
        return
    found = both[1]
    if not found.differences:
        return
    st.subheader("Paired comparisons")
    holm = (
        f" With more than two systems, Holm's correction runs over the pairs of each kind; "
        f"a difference survives at p (Holm) ≤ {corrected.ALPHA:g}."
        if found.holm
        else ""
    )
    st.caption(
        f"Panel: **{ui.md_escape(panels.panel_text(found.selection))}**. System b's mean "
        "minus system a's on the items both answered, for the panel, people (valid labels) "
        "and corrected; paired bootstrap 95% interval over items (the conversation for "
        f"conversational QA) and a bootstrap p-value.{holm}"
    )
    pickers.table(corrected.compare_rows(found))
