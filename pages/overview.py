"""Overview: per-system scores with 95% bootstrap intervals, rating histograms, standings."""

import streamlit as st

from dashboard import charts, ui
from dashboard.metrics import overview, panels, reference, registry, slices, tables
from dashboard.metrics.output import MetricsRequest
from dashboard.metrics.selection import Selection
from dashboard.ui import corrected, downloads, links, pickers, standings, tables_fit, tags
from dashboard.ui.links import Link

LINKS = (
    Link(f"{pickers.METRIC_RUBRIC_KEY}_overview", "rubric"),
    Link("jb_overview_systems", "system", links.LIST),
    Link("jb_overview_by", "by"),
    Link("jb_overview_pool", "pool", links.BOOL, default=False),
)

st.title("Overview")
links.restore(LINKS)
dataset = ui.filters().dataset
if not ui.dataset_names():
    st.info(
        "The database is empty. Import a file on the **Data** page (or `judgeboard import PATH`)."
    )
    st.stop()

first, second, third = st.columns(3)
with first:
    rubric = pickers.metric_rubric_selector(dataset, page="overview")
with second:
    systems = pickers.systems_selector(dataset, key="jb_overview_systems")
with third:
    field = pickers.group_by_selector(dataset, key="jb_overview_by")
panel_column, pool_column = st.columns([1, 2])
with panel_column:
    panel = pickers.panel_selector(dataset, rubric, page="overview", systems=systems)
with pool_column:
    pool = pickers.pool_checkbox(key="jb_overview_pool")
links.publish(LINKS)
if ui.may_administer("download the report (it holds every person's labels)"):
    downloads.report_download_button(
        MetricsRequest(dataset=dataset, rubric=rubric, panel=panel, pool_raters=pool, by=field)
    )
selection = Selection(dataset, rubric, systems, panel=panel)

with st.spinner("Computing the metrics…"):
    view = ui.cached(overview.overview, selection, pool_raters=pool)
if not view.histograms:
    st.info(
        "No ratings yet on this selection under this rubric. Run the judges on the **Run "
        "judges** page, or rate answers on the **Annotate** page; the reference-based "
        "metrics are below."
    )
st.subheader("Scores per system")
pooled = (
    "All datasets: each system is pooled across every dataset it answered in (one row per system). "
    if dataset is None
    else ""
)
st.caption(
    f"{pooled}Panel: **{ui.md_escape(panels.panel_text(view.selection))}**. "
    "Each cell: mean [95% bootstrap interval]. Judge, panel, human and effective "
    "scores are normalized to 0–1; the effective score (descriptive, not an estimate) is "
    "the human rating where there is one, the panel's otherwise. *Panel skipped* counts "
    "the panel's judge ratings that "
    "did not parse. Win rates (a tie counts half a win) and Bradley–Terry ratings are "
    "per rater kind, judges and people apart, unless pooled."
)
if view.unscored_references:
    st.warning(
        f"{view.unscored_references:,} answers are not scored against their references yet: "
        "run `judgeboard score`."
    )
if view.reference_rules:
    st.caption(ui.md_escape(reference.describe(view.reference_rules)))
found: tuple[slices.OverviewSlice, ...] = ()
if field is None:
    rows = tables.overview_rows(view, digits=2)
else:
    with st.spinner(f"Computing the metrics per {ui.md_escape(field)}…"):
        found = ui.cached(slices.overview_by, selection, field, pool_raters=pool)
    rows = tables.sliced_rows(
        [(s.slice.value, tables.overview_rows(s.overview, digits=2)) for s in found], field=field
    )
if rows:
    for group in tables_fit.split_columns(
        rows, lead=1 if field is None else 2, shared=("responses",)
    ):
        st.markdown(f"**{group.title}**")
        tables_fit.fitted_table(group.rows, registry.SYSTEM_METRICS)
else:
    st.info("No responses in this selection.")
for piece in found:
    for disagreement in piece.overview.pairwise.disagreements:
        value = tables.slice_text(piece.slice.value)
        st.warning(ui.md_escape(f"{field} = {value}: {disagreement.text}"))

if view.systems:
    target = corrected.show_corrected(selection, key="jb_overview_corrected")
    corrected.show_comparisons(selection, target_half_width=target)

tags.show_shares(dataset, systems)

if view.histograms:
    st.subheader("Rating histograms")
    st.plotly_chart(charts.rating_histograms(view.histograms, scale=view.scale), width="stretch")

if view.pairwise.groups:
    st.subheader("Pairwise standings")
    standings.show_standings(view.pairwise, key="jb_overview_raters")
