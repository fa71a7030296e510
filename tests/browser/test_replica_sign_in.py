"""Two `judgeboard serve` replicas on one PostgreSQL store, with no users file anywhere: an
account made with `judgeboard users add` signs in on either (the accounts are in the store),
a token one replica issued is honoured by the other, and a sign-out on one is refused by the
other at once (the revocation is in the store too)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from dashboard.auth import users
from dashboard.store.accounts import StoredUsers
from dashboard.ui.auth import COOKIE
from tests.browser.support import new_context, settled, sign_in, start_server, stop
from tests.paths import REPO_ROOT
from tests.support.postgres import PostgresServer

pytestmark = pytest.mark.browser

PASSWORD = "password-sam"


def _sign_in_form(page: Page) -> None:
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    expect(page.get_by_text("Signed in as")).to_have_count(0)


def test_replicas_share_the_accounts_and_the_sign_outs_of_the_store(
    pg_server: PostgresServer,
    pg_sample_template: str,
    tmp_path: Path,
    browser: Browser,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(users.USERS_ENV, raising=False)  # no shared file: the store's accounts
    url = pg_server.create(pg_sample_template)
    added = subprocess.run(
        [sys.executable, "-m", "dashboard.cli", "--db", url, "users", "add", "sam",
         "--role", "labeller", "--password-stdin"],
        input=PASSWORD + "\n", capture_output=True, text=True, cwd=tmp_path, timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert "to the accounts of postgresql://" in added.stdout
    replicas: list[tuple[subprocess.Popen, str]] = []
    try:
        replicas += [start_server(url, tmp_path / f"replica-{n}.log") for n in range(2)]
        (_, first), (_, second) = replicas
        # Sign in on the first replica.
        context = new_context(browser)
        page = context.new_page()
        page.goto(first)
        _sign_in_form(page)
        sign_in(page, "sam", PASSWORD)
        page.wait_for_function(f"document.cookie.includes('{COOKIE}=')")
        cookie = next(c for c in context.cookies() if c["name"] == COOKIE)
        assert users.user_of_token(StoredUsers(url), cookie["value"]) == users.User(
            "sam", "labeller"
        )
        # The same browser on the second replica (a cookie is not bound to a port): the
        # token the first issued signs it in there.
        other = context.new_page()
        other.goto(second)
        expect(other.get_by_text("Signed in as sam (labeller)")).to_be_visible()
        settled(other)
        # Sign out on the second: the first replica refuses the token from now on.
        other.get_by_role("button", name="Sign out").click()
        _sign_in_form(other)
        assert users.user_of_token(StoredUsers(url), cookie["value"]) is None
        elsewhere = new_context(browser)
        elsewhere.add_cookies([cookie])  # type: ignore[list-item]
        stolen = elsewhere.new_page()
        stolen.goto(first)
        _sign_in_form(stolen)
        settled(stolen)
        _sign_in_form(stolen)
        # A wrong password on one replica is counted on the other (the throttle's counts).
        fresh = new_context(browser).new_page()
        fresh.goto(second)
        fresh.get_by_role("textbox", name="Name").fill("sam")
        fresh.get_by_role("textbox", name="Password").fill("not the password")
        fresh.get_by_role("button", name="Sign in").click()
        expect(fresh.get_by_text("Wrong name or password.")).to_be_visible()
        failures = StoredUsers(url).read_failures()["names"]
        assert failures["sam"]["failures"] == 1
        # And sam signs in on the first replica again, with the same password.
        again = new_context(browser).new_page()
        again.goto(first)
        sign_in(again, "sam", PASSWORD)
    finally:
        for process, _ in replicas:
            stop(process)
    assert not (REPO_ROOT / users.USERS_FILE).exists()
    assert not list(tmp_path.glob("*users*.json"))
