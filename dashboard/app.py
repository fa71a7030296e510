"""The Streamlit entry point: the sidebar, then a router over the pages (`settings.pages_dir`)."""

from __future__ import annotations

import streamlit as st

from dashboard import ui
from dashboard.auth.roles import RoleError
from dashboard.settings import pages_dir
from dashboard.store import StoreError
from dashboard.ui import auth, serving, tables_fit

PAGES = pages_dir()

# An emoji icon becomes a data: URL in the browser; a :material/…: one would be fetched from
# a font host on the internet, and the dashboard asks no host but its own.
st.set_page_config(page_title="judgeboard", page_icon="⚖️", layout="wide")
serving.tune()  # once per server process: see dashboard/ui/serving.py
page = st.navigation(
    [
        st.Page(
            PAGES / "overview.py", title="Overview", icon=":material/monitoring:", default=True
        ),
        st.Page(PAGES / "failures.py", title="Failures", icon=":material/report:"),
        st.Page(PAGES / "annotate.py", title="Annotate", icon=":material/edit_note:"),
        st.Page(PAGES / "pairwise.py", title="Pairwise", icon=":material/compare:"),
        st.Page(PAGES / "campaigns.py", title="Campaigns", icon=":material/groups:"),
        st.Page(PAGES / "review.py", title="Review", icon=":material/rule:"),
        st.Page(PAGES / "calibration.py", title="Calibration", icon=":material/tune:"),
        st.Page(PAGES / "judge_qa.py", title="Judge QA", icon=":material/fact_check:"),
        st.Page(PAGES / "judge_lab.py", title="Judge lab", icon=":material/science:"),
        st.Page(PAGES / "run_judges.py", title="Run judges", icon=":material/gavel:"),
        st.Page(PAGES / "data.py", title="Data", icon=":material/database:"),
    ]
)
try:
    with ui.page_run():  # one open database for the whole run (see ui.page_run)
        ui.begin_run()
        tables_fit.page_style()
        if auth.gate():
            ui.show_sidebar()
            note = st.empty()
            page.run()
            if text := ui.earlier_note():
                note.caption(text)
        ui.end_run()
except RoleError as error:  # a labeller reached an admin's work: it refused, nothing was done
    st.error(ui.md_escape(error))
except StoreError as error:  # the disk, the database file or its journal: one line, no trace
    ui.show_fault(error)
