"""Sign out in Chromium: the page shows the sign-in form at once (not "Signed in as …" from
the cookie the WebSocket handshake carried), the browser's cookie is gone, and the old token,
put back into a new browser's cookie jar, is refused: the server revoked it. The cookie is
SameSite=Strict (Secure only behind HTTPS: this server is plain HTTP on 127.0.0.1)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, expect

from dashboard.auth import users
from dashboard.store import Store
from dashboard.ui.auth import COOKIE
from tests.browser.support import (
    new_context,
    settled,
    sign_in,
    start_server,
    stop,
)


def _session_cookie(context: BrowserContext) -> dict | None:
    return next((c for c in context.cookies() if c["name"] == COOKIE), None)


def _sign_in_form(page: Page) -> None:
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    expect(page.get_by_text("Signed in as")).to_have_count(0)


def test_sign_out_shows_the_form_and_the_old_token_is_refused_everywhere(
    sample_store: Store, tmp_path: Path, browser: Browser
) -> None:
    path = tmp_path / "users.json"
    users.add_user(path, "sam", "password-sam", role="labeller")
    process, url = start_server(sample_store.url, tmp_path / "log.txt", JUDGEBOARD_USERS=str(path))
    try:
        first = new_context(browser)
        page = first.new_page()
        page.goto(url)
        sign_in(page, "sam", "password-sam")
        page.wait_for_function(f"document.cookie.includes('{COOKIE}=')")
        cookie = _session_cookie(first)
        assert cookie is not None and cookie["sameSite"] == "Strict"
        assert users.user_of_token(path, cookie["value"]) is not None
        # a reload: the WebSocket handshake carries the cookie, and it signs the page in
        page.reload()
        expect(page.get_by_text("Signed in as sam")).to_be_visible()
        settled(page)

        page.get_by_role("button", name="Sign out").click()
        _sign_in_form(page)
        assert users.user_of_token(path, cookie["value"]) is None  # revoked on the server
        page.reload()
        _sign_in_form(page)

        # the old token in another browser's cookie jar: refused
        second = new_context(browser)
        second.add_cookies([cookie])  # type: ignore[list-item]
        other = second.new_page()
        other.goto(url)
        _sign_in_form(other)
        settled(other)
        _sign_in_form(other)
    finally:
        stop(process)
