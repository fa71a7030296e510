"""Calibration: how far each judge, and the panel, agrees with people."""

import math

import streamlit as st

from dashboard import ui
from dashboard.metrics import calibration, judge_qa, panels, registry, slices, tables
from dashboard.metrics.selection import Selection
from dashboard.ui import (
    calibration_cells,
    calibration_sections as sections,
    links,
    pickers,
    rubric_versions,
    tables_fit,
)
from dashboard.ui.links import Link

HEATMAPS_PER_ROW = sections.HEATMAPS_PER_ROW
AGREEMENT = registry.JUDGE_AGREEMENT_METRICS
PREFERENCE = registry.PREFERENCE_AGREEMENT_METRICS

LINKS = (
    Link(f"{pickers.METRIC_RUBRIC_KEY}_calibration", "rubric"),
    Link("jb_calibration_by", "by"),
)

st.title("Calibration")
links.restore(LINKS)
REFERENCE_TEXT = {
    calibration.ALL_LABELS: "every person's label",
    calibration.ADJUDICATED: "adjudicated labels where there are",
}
dataset = ui.filters().dataset
if not ui.dataset_names():
    st.info("The database is empty. Import a file on the **Data** page.")
    st.stop()

left, middle, right = st.columns(3)
with left:
    rubric = pickers.metric_rubric_selector(dataset, page="calibration")
with middle:
    panel = pickers.panel_selector(dataset, rubric, page="calibration")
with right:
    field = pickers.group_by_selector(dataset, key="jb_calibration_by")
links.publish(LINKS)
reference = st.radio(
    "People's reference",
    calibration.HUMAN_REFERENCES,
    format_func=REFERENCE_TEXT.get,
    horizontal=True,
    key="jb_calibration_reference",
    help="Adjudicated: where a reviewer adjudicated an answer (the Review page), judges are "
    "compared with the adjudicated label instead of each person's; people's raw labels are "
    "kept, and agreement among people reads them.",
)
selection = Selection(dataset, rubric, panel=panel)
with st.spinner("Computing the agreement…"):
    result = ui.cached(
        calibration.calibration, selection, human_reference=reference or calibration.ALL_LABELS
    )
st.caption(
    f"Panel: **{ui.md_escape(panels.panel_text(result.selection))}**. People's reference: "
    f"{REFERENCE_TEXT[result.human_reference]} ({result.n_adjudicated} adjudicated answers)."
)

st.subheader("Ratings against people")
if not result.judges and not result.n_human_labels:
    st.info(
        "No response here is rated by both a judge and a person. Label answers on the "
        "**Annotate** page (and run judges on the **Run judges** page) to calibrate."
    )
else:
    first, second = st.columns(2)
    first.metric(
        "Human labels",
        f"{result.n_human_labels:,}",
        help="Scored human ratings on responses of this selection.",
    )
    alpha = result.alpha_all_raters
    second.metric(
        "Krippendorff's alpha, all raters (ordinal)", "—" if math.isnan(alpha) else f"{alpha:.3f}"
    )
    st.caption(
        "Each cell: estimate [95% bootstrap interval]. A pair is one judge rating and "
        "one human rating of the same response; the panel is the mean of its judges, "
        "rounded to the scale for agreement and kappa. Bias is in scale points."
    )
    if result.judges:
        tables_fit.fitted_table(
            tables.judge_agreement_rows(result), AGREEMENT, estimate_px=tables_fit.WIDE_ESTIMATE_PX
        )
        examples = ui.cached(judge_qa.calibration_examples, result.selection, actor=ui.actor())
        rubric_versions.few_shot_examples(examples, result.selection)
        sections.confusion_heatmaps(result)
        calibration_cells.drilldown_section(result, selection)
        sections.against_people_mean(result)
        sections.calibrated_section(selection)
    else:
        st.info(
            "No judge has rated the responses people labelled; run the judges on the "
            "**Run judges** page."
        )
    sections.people_section(result)

st.subheader("Pairwise verdicts against people")
headline: str | None = None
if not result.preferences and not result.n_human_preferences:
    st.info(
        "No pairwise verdict here yet. Vote on the **Pairwise** page, or compare two systems "
        "on the **Run judges** page."
    )
else:
    st.metric("Human verdicts", f"{result.n_human_preferences:,}")
    st.caption(
        "Against the people's majority (a pair without one has no label), under every "
        "published convention (docs/metrics.md gives each one's source). Consistency, flip "
        "rate and position bias need no label: they use every pair judged in both orders. "
        "A pair with a verdict that did not parse is unscored under every convention, and "
        "counted as such."
    )
    if result.preferences:
        conventions = {m.key: m for m in tables.PREFERENCE_HEADLINES}
        headline = st.selectbox(
            "Headline convention",
            list(conventions),
            format_func=lambda key: conventions[key].label,
            key="jb_pairwise_headline",
        )
        st.caption(f"{conventions[headline].label}: {conventions[headline].description}.")
        headlines = tables.headline_texts(result, headline)
        columns = st.columns(min(len(headlines), HEATMAPS_PER_ROW + 1))
        for index, (name, value, detail) in enumerate(headlines):
            columns[index % len(columns)].metric(ui.md_escape(name), value, help=detail)
        tables_fit.fitted_tables(
            tables.preference_rows(result, headline=headline),
            PREFERENCE,
            estimate_px=tables_fit.WIDE_ESTIMATE_PX,
        )
    if not result.n_human_preferences:
        st.info(
            "No pair has a human verdict yet, so only the conventions that need no label "
            "have numbers. Vote on the **Pairwise** page."
        )
    if result.human_preferences:
        st.markdown("**People with one another** (pairs both judged)")
        pickers.table(tables.rater_pair_rows(result.human_preferences, statistic="kappa"))

if field is not None:
    shown = ui.md_escape(field)
    st.subheader(f"By {shown}")
    with st.spinner(f"Computing the agreement per {shown}…"):
        found = ui.cached(slices.calibration_by, selection, field)
    st.caption(
        f"The same numbers on the items of each value of {shown} (the items without it "
        "together, as (none))."
    )
    judged = tables.sliced_rows(
        [(s.slice.value, tables.judge_agreement_rows(s.calibration)) for s in found], field=field
    )
    verdicts = tables.sliced_rows(
        [(s.slice.value, tables.preference_rows(s.calibration, headline=headline)) for s in found],
        field=field,
    )
    if judged:
        st.markdown("**Ratings against people**")
        tables_fit.fitted_table(judged, AGREEMENT, estimate_px=tables_fit.WIDE_ESTIMATE_PX)
    if verdicts:
        st.markdown("**Pairwise verdicts against people**")
        tables_fit.fitted_tables(
            verdicts, PREFERENCE, lead=2, estimate_px=tables_fit.WIDE_ESTIMATE_PX
        )
    if not judged and not verdicts:
        st.info(f"No value of {shown} has items that both a judge and a person rated.")
