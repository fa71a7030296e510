"""The OIDC branch of the sign-in (dashboard/ui/auth.py) under AppTest: `at.secrets` holds an
`[auth]` section and `at.user` is what the provider said (`st.user`). The browser test
(tests/browser/test_oidc.py) runs the real round trip; these cover the cases a provider
rarely gives in a test: the e-mail in another case, an unverified e-mail, no users file."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.auth import users
from tests.pages.helpers import page_path, texts

AUTH = {
    "redirect_uri": "http://127.0.0.1:8501/oauth2callback",
    "cookie_secret": "a-long-random-string-for-the-test-cookies-3f9c2e",
    "client_id": "judgeboard-test",
    "client_secret": "client-secret-5b1e9",
    "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
}
REFUSED = "Signed in as a labeller: only an admin may import or delete data."


@pytest.fixture
def people(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "users.json"
    users.add_user(path, "boss@example.org", "unused-password-2", role="admin")
    monkeypatch.setenv(users.USERS_ENV, str(path))
    return path


def _signed_in(app: AppTest, **claims: object) -> AppTest:
    app.secrets["auth"] = AUTH
    app.user = {"is_logged_in": True, **claims}
    app.switch_page(page_path("data")).run()
    assert not app.exception, app.exception
    return app


def _identity(app: AppTest) -> list[str]:
    return [t for t in texts(app, "text") if t.startswith("Signed in as")]


def test_signed_out_shows_the_providers_button_and_no_password_box(
    app: AppTest, people: Path
) -> None:
    app.secrets["auth"] = AUTH
    app.user = {"is_logged_in": False}
    app.run()
    assert not app.exception, app.exception
    assert [t.value for t in app.title] == ["Sign in"]
    assert [b.label for b in app.button] == ["Sign in"]
    assert not app.text_input  # no name, password or Annotator box


def test_the_users_file_gives_the_role_whatever_the_case_of_the_email(
    app: AppTest, people: Path
) -> None:
    _signed_in(app, email="Boss@Example.org", email_verified=True, sub="s-1")
    assert _identity(app) == ["Signed in as boss@example.org (admin)."]
    assert REFUSED not in texts(app, "info")
    assert "Import a file" in texts(app, "subheader")
    assert not [w for w in app.text_input if w.label == "Annotator"]


def test_an_unverified_email_gets_no_role_from_the_users_file(app: AppTest, people: Path) -> None:
    _signed_in(app, email="boss@example.org", email_verified=False, sub="s-2")
    assert _identity(app) == ["Signed in as boss@example.org (labeller)."]
    assert REFUSED in texts(app, "info")


def test_an_absent_email_verified_is_not_trusted(app: AppTest, people: Path) -> None:
    _signed_in(app, email="boss@example.org", sub="s-5")  # the provider says nothing
    assert _identity(app) == ["Signed in as boss@example.org (labeller)."]
    assert REFUSED in texts(app, "info")


def test_a_display_name_gets_no_role_from_the_users_file(app: AppTest, people: Path) -> None:
    _signed_in(app, name="boss@example.org", sub="s-6")  # no e-mail: a name people choose
    assert _identity(app) == ["Signed in as boss@example.org (labeller)."]
    assert REFUSED in texts(app, "info")


def test_an_unknown_email_is_a_labeller_and_no_email_falls_back_to_the_subject(
    app: AppTest, people: Path
) -> None:
    _signed_in(app, email="new@example.org", sub="s-3")
    assert _identity(app) == ["Signed in as new@example.org (labeller)."]
    assert REFUSED in texts(app, "info")
    _signed_in(app, sub="subject-only-7")
    assert _identity(app) == ["Signed in as subject-only-7 (labeller)."]


def test_with_no_users_file_everyone_signed_in_is_a_labeller(
    app: AppTest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(users.USERS_ENV, str(tmp_path / "absent.json"))
    _signed_in(app, email="boss@example.org", email_verified=True, sub="s-4")
    assert _identity(app) == ["Signed in as boss@example.org (labeller)."]
    assert REFUSED in texts(app, "info")
