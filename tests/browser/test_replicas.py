"""Two `judgeboard serve` replicas on one PostgreSQL store behind Debian's nginx (the shipped
example config, deploy/nginx/judgeboard.conf), labelled through the proxy in Chromium.

Two browsers, each pinned by the proxy's cookie to a different replica, label an answer each
(different datasets, so different answers); both labels land in the one store, and nginx's
access log shows that every request of a browser, its WebSocket included, went to one replica.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from dashboard.store import Store
from tests.browser.support import (
    STEP_TIMEOUT_MS,
    keys_ready,
    new_context,
    press_until,
    settled,
    start_server,
    stop,
)
from tests.support.nginx import NginxProxy, Request
from tests.support.postgres import PostgresServer

pytestmark = pytest.mark.browser

# Each labeller on a dataset of its own: their first answers differ.
LABELLERS = {"via-proxy-1": "eo-rag", "via-proxy-2": "eo-conversational"}
STREAM = "/_stcore/stream"
SAVED = "Saved your rating"
RUBRIC = "likert-rag"
WAIT_S = STEP_TIMEOUT_MS / 1000
# The proxy picks a replica by a hash of a fresh random key; a browser pinned to a replica
# already taken is set aside. 24 tries miss the second replica with odds of 2^-23.
TRIES = 24


def _poll(what: str, found: Callable[[], object], deadline_s: float = WAIT_S) -> None:
    """Wait (bounded) until `found()` is true."""
    deadline = time.monotonic() + deadline_s
    while not found():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {deadline_s:.0f} s for {what}")
        time.sleep(0.1)


def _key_of(context: BrowserContext) -> str:
    return next(c["value"] for c in context.cookies() if c["name"] == "judgeboard_replica")


def _pinned(browser: Browser, proxy: NginxProxy) -> dict[str, BrowserContext]:
    """One browser context pinned to each replica: {replica host:port: context}."""
    pinned: dict[str, BrowserContext] = {}
    for _ in range(TRIES):
        context = new_context(browser)
        context.new_page().goto(f"{proxy.url}/_stcore/health")
        key = _key_of(context)
        _poll("the health check in nginx's log", lambda k=key: _upstreams(proxy, k))
        (replica,) = _upstreams(proxy, key)
        if replica in pinned:
            context.close()
        else:
            pinned[replica] = context
        if len(pinned) == len(proxy.replicas):
            return pinned
    pytest.fail(f"{TRIES} browsers all landed on {list(pinned)}")


def _upstreams(proxy: NginxProxy, key: str) -> set[str]:
    return {r.upstream for r in proxy.requests() if r.key == key}


def _label(page: Page, url: str, person: str, dataset: str) -> None:
    page.goto(f"{url}/annotate?annotator={person}&dataset={dataset}&rubric={RUBRIC}")
    settled(page)
    expect(page.get_by_role("heading", name="Annotate", exact=True)).to_be_visible()
    keys_ready(page, "4")
    page.evaluate("document.activeElement && document.activeElement.blur()")
    checked = page.locator('[class*="st-key-annotate_value_"] input:checked')
    press_until(page, "4", checked)
    expect(checked).to_have_count(1, timeout=STEP_TIMEOUT_MS)
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("stAlert").filter(has_text=SAVED)).to_have_count(
        1, timeout=STEP_TIMEOUT_MS
    )
    expect(checked).to_have_count(0, timeout=STEP_TIMEOUT_MS)
    settled(page)


def _labels(url: str) -> list[tuple[str, str, str]]:
    store = Store(url, wait_s=30)
    try:
        with store.connection() as con:
            rows = con.execute(
                "SELECT r.rater, r.response_id, s.dataset FROM ratings r "
                "JOIN responses s USING (response_id) WHERE r.rater IN (?, ?) ORDER BY r.rater",
                list(LABELLERS),
            ).fetchall()
    finally:
        store.close()
    return [tuple(row) for row in rows]


def test_two_replicas_behind_nginx_share_one_postgresql_store(
    pg_server: PostgresServer, pg_sample_template: str, tmp_path: Path, browser: Browser
) -> None:
    url = pg_server.create(pg_sample_template)
    servers: list[tuple[subprocess.Popen, str]] = []
    proxy: NginxProxy | None = None
    try:
        servers += [start_server(url, tmp_path / f"replica-{n}.log") for n in range(2)]
        proxy = NginxProxy([int(base.rsplit(":", 1)[1]) for _, base in servers]).start()
        pinned = _pinned(browser, proxy)
        pages = {replica: context.new_page() for replica, context in pinned.items()}
        people = dict(zip(pages, LABELLERS.items(), strict=True))
        for replica, page in pages.items():
            _label(page, proxy.url, *people[replica])
        rows = _labels(url)
        assert [(rater, dataset) for rater, _, dataset in rows] == sorted(LABELLERS.items())
        assert len({response for _, response, _ in rows}) == 2
        keys = {replica: _key_of(context) for replica, context in pinned.items()}
        for context in pinned.values():
            context.close()  # closes the WebSockets: nginx logs them now

        def streams_logged() -> bool:
            done = [r for r in proxy.requests() if r.path == STREAM]
            return all(any(r.key == key for r in done) for key in keys.values())

        _poll("both WebSockets in nginx's log", streams_logged)
        for replica, key in keys.items():
            mine: list[Request] = [r for r in proxy.requests() if r.key == key]
            assert {r.upstream for r in mine} == {replica}, mine
            assert any(r.path == STREAM and r.status == 101 for r in mine), mine
        assert set(keys) == {base.removeprefix("http://") for _, base in servers}
    finally:
        if proxy is not None:
            proxy.stop()
        for process, _ in servers:
            stop(process)
