"""Datasets in the database, with their counts."""

import streamlit as st

from dashboard import ui

st.title("judgeboard")
datasets = ui.get_store().list_datasets()
if not datasets:
    st.info("The database is empty. Import a file with `judgeboard import PATH`.")
else:
    st.dataframe(
        [
            {"dataset": d.name, "items": d.n_items, "responses": d.n_responses,
             "ratings": d.n_ratings, "preferences": d.n_preferences,
             "tasks": ", ".join(d.task_types), "systems": ", ".join(d.systems)}
            for d in datasets
        ],
        hide_index=True, use_container_width=True,
    )
