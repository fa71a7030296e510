"""The sign-in form under AppTest: a wrong password says so, and a locked name is refused
even with the right password, in words that say who can lift the lock."""

from __future__ import annotations

from dashboard.auth import throttle, users
from tests.pages.helpers import texts


def _try(app, name: str, password: str) -> None:
    app.text_input(key="jb_sign_in_name").set_value(name)
    app.text_input(key="jb_sign_in_password").set_value(password)
    next(b for b in app.button if b.label == "Sign in").click().run()
    assert not app.exception, app.exception


def test_a_wrong_password_then_a_locked_name(
    app_for, sample_store, monkeypatch, users_file_for
) -> None:
    path = users_file_for(sample_store)
    users.add_user(path, "ada", "password-ada", role="admin")
    monkeypatch.setattr(throttle, "LOCK_NAME_AFTER", 1)
    app = app_for(sample_store)
    app.run()
    _try(app, "ada", "not her password")
    assert texts(app, "error") == ["Wrong name or password."]
    _try(app, "ada", "password-ada")
    assert [t.value for t in app.title] == ["Sign in"]
    assert (
        "locked" in texts(app, "error")[0] and "judgeboard users unlock" in texts(app, "error")[0]
    )
    throttle.unlock(path, name="ada")
    throttle.unlock(path, client="unknown")  # AppTest has no client address
    _try(app, "ada", "password-ada")
    assert any(t.startswith("Signed in as ada") for t in texts(app, "text"))
