"""Overview: per-system scores with 95% bootstrap intervals, rating histograms, standings."""

import streamlit as st

from dashboard import charts, ui
from dashboard.metrics import overview, reference_rules, tables
from dashboard.metrics.selection import Selection
from dashboard.ui import downloads, pickers

st.title("Overview")
dataset = ui.filters().dataset
if not ui.dataset_names():
    st.info(
        "The database is empty. Import a file on the **Data** page (or `judgeboard import PATH`)."
    )
    st.stop()
downloads.report_download_button(dataset)

left, right = st.columns(2)
with left:
    rubric = pickers.rubric_selector(dataset, page="overview")
with right:
    systems = pickers.systems_selector(dataset, key="jb_overview_systems")
if rubric is None:
    st.info(
        "No ratings yet on this selection. Run the judges on the **Run judges** page, or "
        "rate answers on the **Annotate** page; the reference-based metrics are below."
    )

with st.spinner("Computing the metrics…"):
    view = ui.cached(
        overview.overview, Selection(dataset, rubric.name if rubric else None, systems)
    )
st.subheader("Scores per system")
st.caption(
    "Each cell: mean [95% bootstrap interval]. Judge, panel, human and effective "
    "scores are normalized to 0–1; the effective score is the human rating where "
    "there is one, the panel's otherwise. *Panel skipped* counts judge ratings that "
    "did not parse. Win rate counts a tie as half a win."
)
if view.unscored_references:
    st.warning(
        f"{view.unscored_references:,} answers are not scored against their references yet: "
        "run `judgeboard score`."
    )
if view.reference_rules:
    st.caption(ui.md_escape(reference_rules.describe(view.reference_rules)))
rows = tables.overview_rows(view, digits=2)
if rows:
    pickers.table(rows)
else:
    st.info("No responses in this selection.")

if view.histograms:
    st.subheader("Rating histograms")
    st.plotly_chart(charts.rating_histograms(view.histograms, scale=view.scale), width="stretch")

if view.pairwise.bradley_terry:
    st.subheader("Pairwise standings")
    left, right = st.columns(2)
    with left:
        st.plotly_chart(charts.bradley_terry_ratings(view.pairwise.bradley_terry), width="stretch")
        pickers.table(tables.standings_rows(view))
    with right:
        st.plotly_chart(charts.win_rate_matrix(view.pairwise.head_to_head), width="stretch")
    if view.pairwise.note:
        st.caption(ui.md_escape(view.pairwise.note))
