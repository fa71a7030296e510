"""The Streamlit entry point: the sidebar, then a router over the pages (`settings.pages_dir`)."""

from __future__ import annotations

import streamlit as st

from dashboard import ui
from dashboard.settings import pages_dir
from dashboard.store import StoreBusy
from dashboard.ui import auth

PAGES = pages_dir()

st.set_page_config(page_title="judgeboard", page_icon=":material/balance:", layout="wide")
page = st.navigation(
    [
        st.Page(
            PAGES / "overview.py", title="Overview", icon=":material/monitoring:", default=True
        ),
        st.Page(PAGES / "failures.py", title="Failures", icon=":material/report:"),
        st.Page(PAGES / "annotate.py", title="Annotate", icon=":material/edit_note:"),
        st.Page(PAGES / "pairwise.py", title="Pairwise", icon=":material/compare:"),
        st.Page(PAGES / "campaigns.py", title="Campaigns", icon=":material/groups:"),
        st.Page(PAGES / "calibration.py", title="Calibration", icon=":material/tune:"),
        st.Page(PAGES / "run_judges.py", title="Run judges", icon=":material/gavel:"),
        st.Page(PAGES / "data.py", title="Data", icon=":material/database:"),
    ]
)
try:
    ui.begin_run()
    if auth.gate():
        ui.sidebar()
        page.run()
except StoreBusy as error:
    st.warning(
        "The database is in use by another process; this page works again once that "
        "process is done."
    )
    st.text(str(error))  # it names the file, which is not Markdown
    st.button("Retry")
