"""Who is signed in is read once a script run (`auth.remember_for_run`): on a PostgreSQL store
each read was a new server connection, five a run. Within the run the first answer holds; the
next run, and a callback between runs, read the accounts anew."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from dashboard.auth import users
from dashboard.ui import auth
from tests.pages.helpers import texts


def _script() -> None:
    import streamlit as st

    from dashboard.auth import users
    from dashboard.ui import auth

    auth.remember_for_run()
    path = auth.users_file()
    st.text(f"before {auth.sign_in_required()} {auth.current_user()}")
    if not path.exists():
        users.add_user(path, "ada", "password-ada-1", role="admin")
    st.text(f"kept {auth.sign_in_required()} {auth.current_user()}")
    auth.forget_run()
    st.text(f"after {auth.sign_in_required()} {auth.current_user()}")


def test_the_first_answer_holds_until_the_run_ends(app, sample_store, monkeypatch) -> None:
    monkeypatch.setenv("JUDGEBOARD_DB", sample_store.url)
    script = AppTest.from_function(_script, default_timeout=60).run()
    assert not script.exception, script.exception
    # An account added within the run: unseen until the run's end, seen at once after it.
    assert texts(script, "text") == ["before False None", "kept False None", "after True None"]
    assert auth.RUN_KEY not in script.session_state


def test_the_next_run_of_the_app_sees_an_account_added_meanwhile(app, sample_store) -> None:
    app.run()
    assert not app.exception, app.exception
    assert "Sign in" not in [t.value for t in app.title]
    assert auth.RUN_KEY not in app.session_state  # the run's answers end with it
    users.add_user(auth.users_file(), "ada", "password-ada-1", role="admin")
    app.run()
    assert [t.value for t in app.title] == ["Sign in"]
