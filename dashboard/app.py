"""The Streamlit entry point: a router over the pages in `pages/`."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from dashboard.store import StoreBusy

PAGES = Path(__file__).resolve().parents[1] / "pages"

st.set_page_config(page_title="judgeboard", page_icon=":material/balance:", layout="wide")
page = st.navigation([
    st.Page(PAGES / "home.py", title="Datasets", icon=":material/table:", default=True),
])
try:
    page.run()
except StoreBusy as error:
    st.warning(f"{error} The page will work again once that process is done.")
    st.button("Retry")
