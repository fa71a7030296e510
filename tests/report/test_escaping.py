"""Model text in the report is text: a <script>, an <img onerror> or a Markdown image in an
answer, a question, a judge's explanation or a system's name shows up escaped and runs nothing."""

from __future__ import annotations

import html as html_module
from dataclasses import replace

import pytest

from dashboard.metrics.output import MetricsRequest
from dashboard.report import build_report
from tests import builders

SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=2">'
# The port is closed on purpose: were the image ever requested, nothing would answer.
MARKDOWN = "![chart](http://127.0.0.1:9/pwned.png)"
NASTY = f"{SCRIPT} {IMG} {MARKDOWN} & \"quotes\" 'too'"
SYSTEM = "evil<script>window.__pwned=3</script>"


@pytest.fixture
def nasty_store(store):
    it = replace(
        builders.item("xss", 1, refs=(f"reference {SCRIPT}",)), question=f"question {IMG}?"
    )
    bad = builders.response(it, SYSTEM, NASTY)
    good = builders.response(it, "plain", "Paris.")
    store.add_items([it], [bad, good])
    store.add_ratings(
        [
            builders.rating(bad, "judge<b>", 1, explanation=f"explained {NASTY}"),
            builders.rating(bad, "ana", 1, kind="human", comment=f"comment {IMG}"),
            builders.rating(good, "judge<b>", 5),
        ]
    )
    store.add_preferences([builders.preference(it, bad, good, "judge<b>", "B")])
    return store


def test_nasty_text_is_escaped_in_the_html(nasty_store):
    html = build_report(nasty_store, MetricsRequest(dataset="xss"))
    body = html[html.index("<body>") :]
    for raw in (SCRIPT, IMG, "<script>window.__pwned=3", "<b>"):
        assert raw not in body
    assert html_module.escape(NASTY, quote=True) in body  # the answer, as written
    assert html_module.escape(f"explained {NASTY}", quote=True) in body
    assert html_module.escape(f"comment {IMG}", quote=True) in body
    assert html_module.escape(f"question {IMG}?", quote=True) in body
    assert html_module.escape(SYSTEM, quote=True) in body
    assert "<img" not in body and "onerror=" not in body.replace("onerror=&quot;", "")


@pytest.mark.browser
def test_nothing_from_model_text_runs_in_chromium(nasty_store, chromium, tmp_path):
    path = tmp_path / "report.html"
    path.write_text(build_report(nasty_store, MetricsRequest(dataset="xss")), encoding="utf-8")
    page = chromium.new_page()
    console, requests = [], []
    page.on("console", lambda m: console.append((m.type, m.text)))
    page.on("pageerror", lambda e: console.append(("pageerror", str(e))))
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(path.as_uri())
        page.wait_for_function(
            "document.querySelectorAll('.js-plotly-plot .main-svg').length > 0", timeout=30_000
        )
        page.hover(".js-plotly-plot")  # hover labels render the system names too
        assert page.evaluate("typeof window.__pwned") == "undefined"
        answer = page.locator("#worst article.answer").first.inner_text()
        assert SCRIPT in answer and IMG in answer and MARKDOWN in answer
        assert page.locator("#worst img").count() == 0
    finally:
        page.close()
    # No Content-Security-Policy violation either: nothing even tried to run.
    assert [m for m in console if m[0] in ("error", "pageerror")] == []
    assert [u for u in requests if u != path.as_uri() and not u.startswith("data:")] == []
