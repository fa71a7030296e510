"""Sign-in for the dashboard: local accounts (`dashboard.auth.users`) or Streamlit's OIDC.

With an `[auth]` section in `.streamlit/secrets.toml`, people sign in with that provider
(`st.login`); their name is their e-mail address, their role the one the users file gives
that name (in any case; none for an e-mail the provider has not verified), else labeller.
Otherwise, with a users file, they sign in with a name and password; a signed token in a
cookie keeps them signed in across reloads. With neither, there is no sign-in: the annotator
types a name in the sidebar and may do everything, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import streamlit as st

from dashboard.auth import location, throttle, users
from dashboard.auth.users import User
from dashboard.settings import resolve_db_path

TOKEN_KEY = "jb_session_token"
COOKIE = "jb_session"
T = TypeVar("T")
# Set from the page: Streamlit gives an app no response header to set it with, so the cookie
# cannot be HttpOnly; SameSite=Strict, and Secure when the page came over HTTPS. A stolen
# token is refused once its owner signs out (`users.revoke_token`).
_COOKIE_SCRIPT = (
    "<script>window.parent.document.cookie = "
    "'%(name)s=%(value)s; path=/; max-age=%(age)d; SameSite=Strict' + "
    "(window.parent.location.protocol === 'https:' ? '; Secure' : '');</script>"
)
COOKIE_KEY = "jb_cookie_pending"
# What this script run learnt of the accounts (`remember_for_run`): the sidebar, the gate and
# the pages ask who is signed in several times a run, and on a PostgreSQL store each answer
# was a new server connection (5 a run, a third of a label save's CPU).
RUN_KEY = "jb_auth_this_run"


def users_file() -> users.Users:
    """The users file, or on a PostgreSQL store the store's accounts (`location.users_of`)."""
    return location.users_of(resolve_db_path())


def oidc_configured() -> bool:
    try:
        return "auth" in st.secrets
    except FileNotFoundError:  # no secrets file at all
        return False


def remember_for_run() -> None:
    """From now until `forget_run`, the accounts are read at most once (per token): the
    script run's start (`ui.begin_run`). Callbacks, which run between runs, read them anew."""
    st.session_state[RUN_KEY] = {}


def forget_run() -> None:
    """The script run's end, however it ended (`ui.page_run`)."""
    st.session_state.pop(RUN_KEY, None)


def _this_run(key: tuple[str, str | None], read: Callable[[], T]) -> T:
    known: dict[tuple[str, str | None], Any] | None = st.session_state.get(RUN_KEY)
    if known is None:
        return read()
    if key not in known:
        known[key] = read()
    return cast(T, known[key])


def _accounts_exist(path: users.Users) -> bool:
    return _this_run(("exists", None), path.exists)


def sign_in_required() -> bool:
    return oidc_configured() or _accounts_exist(users_file())


def current_user() -> User | None:
    """The signed-in person; None when nobody is (or when there is no sign-in)."""
    if oidc_configured():
        return _oidc_user() if st.user.is_logged_in else None
    path = users_file()
    if not _accounts_exist(path):
        return None
    token = st.session_state.get(TOKEN_KEY) or st.context.cookies.get(COOKIE)
    user = _this_run(("user", token), lambda: users.user_of_token(path, token))
    if user is not None:
        st.session_state[TOKEN_KEY] = token
    return user


def _oidc_user() -> User:
    """The provider's person: named by their e-mail (else name, else subject), with the role
    the users file gives that name, matched regardless of case (providers keep the casing the
    person typed). An e-mail the provider does not say it has verified (`email_verified`
    false or absent) gets no role from the file: anyone could claim an admin's address; nor
    does a display name (`name`), which people choose."""
    email, sub = st.user.get("email"), st.user.get("sub")
    name = str(email or st.user.get("name") or sub or "")
    # Only a verified e-mail, or the provider's subject, may match a name in the file: a
    # display name is whatever the person typed.
    verified = st.user.get("email_verified") in (True, "true")
    if not ((email and verified) or (not email and sub and name == str(sub))):
        return User(name, "labeller")
    known = {u.name.casefold(): u for u in users.list_users(users_file())}
    return known.get(name.casefold(), User(name, "labeller"))


def _set_cookie(value: str, age: int) -> None:
    st.iframe(_COOKIE_SCRIPT % {"name": COOKIE, "value": value, "age": age}, height=1)


def _sign_in(name: str, password: str) -> None:
    # Failed attempts slow down, then lock, per name and per client (dashboard.auth.throttle).
    address = st.context.ip_address
    try:
        user = throttle.sign_in(
            users_file(), name, password, client=address if isinstance(address, str) else ""
        )
    except (throttle.SignInRefused, users.UsersError) as error:
        st.session_state["jb_sign_in_error"] = str(error)
        return
    token = users.session_token(users_file(), user)
    st.session_state[TOKEN_KEY] = st.session_state[COOKIE_KEY] = token


def sign_out() -> None:
    """Revoke the session's token on the server (and the one the browser sent, were it
    another), so that no browser holding it is signed in any more; clear the cookie."""
    for token in {st.session_state.pop(TOKEN_KEY, None), st.context.cookies.get(COOKIE)}:
        users.revoke_token(users_file(), token)
    st.session_state[COOKIE_KEY] = ""


def gate() -> bool:
    """True when the page may run; otherwise the sign-in form is drawn instead."""
    pending = st.session_state.pop(COOKIE_KEY, None)
    if pending is not None:
        _set_cookie(pending, users.TOKEN_DAYS * 86400 if pending else 0)
    if not sign_in_required() or current_user() is not None:
        return True
    st.title("Sign in")
    if oidc_configured():
        st.button("Sign in", on_click=st.login, type="primary")
        return False
    with st.form("jb_sign_in"):
        name = st.text_input("Name", key="jb_sign_in_name")
        password = st.text_input("Password", type="password", key="jb_sign_in_password")
        submitted = st.form_submit_button("Sign in", type="primary")
    if submitted:
        _sign_in(name, password)
        if st.session_state.get(TOKEN_KEY):
            st.rerun()
    if error := st.session_state.pop("jb_sign_in_error", None):
        st.error(error)
    st.caption("Accounts are made with `judgeboard users add NAME --role admin|labeller`.")
    return False


def show_identity(user: User | None) -> None:
    """The sidebar's line on who is signed in, or that there is no sign-in."""
    if user is not None:
        st.text(f"Signed in as {user.name} ({user.role}).")  # a name is not Markdown
        st.button(
            "Sign out", key="jb_sign_out", on_click=st.logout if oidc_configured() else sign_out
        )
        return
    st.caption(
        "No sign-in: there is no users file, so anyone who can reach this server can label, "
        "import and delete. Keep it on 127.0.0.1, or add accounts with `judgeboard users add`."
    )
