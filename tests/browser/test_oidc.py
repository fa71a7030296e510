"""OIDC sign-in in Chromium, against a real (loopback) OpenID Connect provider: the dashboard
is served from a folder whose `.streamlit/secrets.toml` has an `[auth]` section, as a user
would configure it; Sign in goes to the provider and back, the signed-in e-mail is the
annotator (no Annotator box; a label is stored under it), and the users file gives the role:
a labeller may not import or delete data, an admin may."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from dashboard.auth import users
from dashboard.cli.serve import streamlit_command
from dashboard.store import Store
from tests.browser.support import STEP_TIMEOUT_MS as STEP, free_port, settled, stop, wait_for_health
from tests.paths import REPO_ROOT
from tests.support.oidc_provider import OidcProvider, Person

CLIENT, CLIENT_SECRET = "judgeboard-test", "client-secret-5b1e9"
LABELLER = Person("lab@example.org", "Lee Labeller")
ADMIN = Person("boss@example.org", "Ada Admin")
REFUSED = "only an admin may import or delete data"
SAVED = "Saved your rating"


def _secrets(provider: OidcProvider, port: int) -> str:
    """The `[auth]` section, as README's Sign-in section tells a user to write it."""
    return (
        "[auth]\n"
        f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        'cookie_secret = "a-long-random-string-for-the-test-cookies-3f9c2e"\n'
        f'client_id = "{CLIENT}"\n'
        f'client_secret = "{CLIENT_SECRET}"\n'
        f'server_metadata_url = "{provider.metadata_url}"\n'
    )


@pytest.fixture
def provider() -> Iterator[OidcProvider]:
    with OidcProvider(client_id=CLIENT, client_secret=CLIENT_SECRET) as found:
        yield found


@pytest.fixture
def served(sample_store: Store, tmp_path: Path, provider: OidcProvider) -> Iterator[str]:
    """The app run from a folder holding `.streamlit/secrets.toml` (Streamlit reads it from
    the working directory), with a users file naming the two e-mails' roles."""
    people = tmp_path / "users.json"
    users.add_user(people, LABELLER.email, "unused-password-1", role="labeller")
    users.add_user(people, ADMIN.email, "unused-password-2", role="admin")
    port = free_port()
    provider.redirect_uri = f"http://127.0.0.1:{port}/oauth2callback"
    folder = tmp_path / "site"
    (folder / ".streamlit").mkdir(parents=True)
    shutil.copy(REPO_ROOT / ".streamlit" / "config.toml", folder / ".streamlit")
    (folder / ".streamlit" / "secrets.toml").write_text(_secrets(provider, port))
    log = tmp_path / "streamlit.log"
    # `judgeboard serve`'s own command, run where the secrets file is
    command = [
        *streamlit_command(address="127.0.0.1", port=port),
        "--server.fileWatcherType",
        "none",
    ]
    env = {**os.environ, "JUDGEBOARD_DB": sample_store.url, "JUDGEBOARD_USERS": str(people)}
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command, cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for_health(url, process, log)
        yield url
    finally:
        stop(process)


def _sign_in(page: Page, provider: OidcProvider, person: Person, role: str) -> None:
    """From the Sign in page: the provider's round trip, back signed in as `person`."""
    provider.person = person
    expect(page.get_by_role("heading", name="Sign in", exact=True)).to_be_visible(timeout=STEP)
    expect(page.get_by_role("textbox", name="Password")).to_have_count(0, timeout=STEP)
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.get_by_text(f"Signed in as {person.email} ({role}).")).to_be_visible(timeout=STEP)
    settled(page)
    expect(page.get_by_role("textbox", name="Annotator")).to_have_count(0, timeout=STEP)


def _rater_rows(store: Store, rater: str) -> list[tuple]:
    with store.connection() as con:
        return con.execute("SELECT response_id FROM ratings WHERE rater = ?", [rater]).fetchall()


def _label_one_by_keys(page: Page, url: str) -> None:
    """Annotate's first answer: rate it 4 and save, by keys."""
    page.goto(f"{url}/annotate")
    expect(page.get_by_role("heading", name="Annotate", exact=True)).to_be_visible(timeout=STEP)
    settled(page)
    expect(page.get_by_text("Type your name in the sidebar")).to_have_count(0, timeout=STEP)
    expect(page.locator('[class*="st-key-annotate_value_"] input').first).to_be_attached(
        timeout=STEP
    )
    # the page's key listener (dashboard/ui/keys.py) is in place and knows the digits
    page.wait_for_function("() => window.__jbKeysInstalled && '4' in (window.__jbKeys || {})")
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.keyboard.press("4")
    expect(page.locator('[class*="st-key-annotate_value_"] input:checked')).to_have_count(
        1, timeout=STEP
    )
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("stAlert").filter(has_text=SAVED)).to_have_count(1, timeout=STEP)
    settled(page)


def test_oidc_sign_in_names_the_annotator_and_the_users_file_gives_the_role(
    page: Page, served: str, provider: OidcProvider, sample_store: Store
) -> None:
    page.goto(served)
    _sign_in(page, provider, LABELLER, "labeller")
    assert provider.tokens_issued == 1 and provider.refusals == []
    _label_one_by_keys(page, served)  # the e-mail labels the work
    assert len(_rater_rows(sample_store, LABELLER.email)) == 1
    # a labeller may not import or delete; a reload keeps the sign-in (the auth cookie)
    page.goto(f"{served}/data")
    expect(page.get_by_text(REFUSED)).to_be_visible(timeout=STEP)
    expect(page.get_by_role("heading", name="Import a file")).to_have_count(0, timeout=STEP)
    page.reload()
    expect(page.get_by_text(f"Signed in as {LABELLER.email} (labeller).")).to_be_visible(
        timeout=STEP
    )
    # sign out, then in as the admin
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in", exact=True)).to_be_visible(timeout=STEP)
    _sign_in(page, provider, ADMIN, "admin")
    assert provider.tokens_issued == 2 and provider.refusals == []
    page.goto(f"{served}/data")
    expect(page.get_by_role("heading", name="Import a file")).to_be_visible(timeout=STEP)
    expect(page.get_by_role("heading", name="Delete a dataset")).to_be_visible(timeout=STEP)
    settled(page)
    expect(page.get_by_text(REFUSED)).to_have_count(0, timeout=STEP)
