"""The HTML report: the numbers of `judgeboard metrics --json`, offline, and a methods section."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
from datetime import datetime, timedelta
from html.parser import HTMLParser

import pytest

from dashboard.cli import main
from dashboard.ids import new_id
from dashboard.metrics import registry
from dashboard.metrics.output import MetricsRequest
from dashboard.report import METRICS_ELEMENT_ID, build_report, report_sql, write_report
from dashboard.report.gather import JudgeUse, cost_text
from dashboard.report.html import metric_text, split_table, table, td, th_row
from dashboard.types import JudgeCall, Preference
from tests import builders
from tests.paths import REPO_ROOT
from tests.report.conftest import ARTIFACTS

WHEN = datetime(2026, 3, 4, 5, 6)
URL_ATTRIBUTES = {
    "src",
    "href",
    "action",
    "formaction",
    "data",
    "poster",
    "srcset",
    "background",
    "xlink:href",
    "manifest",
    "ping",
}


class Parsed(HTMLParser):
    """The report's tags: metric cells, the metrics JSON, attributes that could fetch."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.cells: dict[str, tuple[str, str]] = {}  # metric -> (data-value, text)
        self.urls: list[tuple[str, str, str]] = []
        self.tags: list[str] = []
        self.scripts: list[tuple[dict, str]] = []
        self._metric: tuple[str, str] | None = None
        self._text: list[str] = []
        self._script: dict | None = None
        self.csp = ""

    def handle_starttag(self, name: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append(name)
        for key, value in attrs:
            if key in URL_ATTRIBUTES or (value and key.startswith("on")):
                self.urls.append((name, key, value or ""))
        if "data-metric" in found:
            self._metric, self._text = (found["data-metric"], found["data-value"]), []
        if name == "script":
            self._script, self._text = found, []
        if name == "meta" and found.get("http-equiv") == "Content-Security-Policy":
            self.csp = found["content"]

    def handle_data(self, data: str) -> None:
        self._text.append(data)

    def handle_endtag(self, name: str) -> None:
        if self._metric and name in ("td", "span"):
            metric, value = self._metric
            self.cells[metric] = (value, "".join(self._text))
            self._metric = None
        if name == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._text)))
            self._script = None


def parse(html: str) -> Parsed:
    parser = Parsed()
    parser.feed(html)
    return parser


def cli_metrics(store, capsys, *args: str) -> dict:
    assert main(["--db", store.url, "metrics", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_report_numbers_are_those_of_metrics_json(judged_store, capsys, tmp_path):
    out = tmp_path / "report.html"
    assert main(["--db", judged_store.url, "report", "--dataset", "eo-rag", "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    expected = cli_metrics(judged_store, capsys, "--dataset", "eo-rag")["metrics"]
    parsed = parse(out.read_text(encoding="utf-8"))
    shown = parsed.cells
    # the summary has every system metric; calibration, pairwise and people tables too
    assert {n for n in expected if n.startswith("systems.")} <= set(shown)
    assert {
        "calibration.panel.kappa_quadratic",
        "calibration.baseline.bias",
        "calibration.human_labels",
        "calibration.people.ana.ben.exact",
        "pairwise.eo-rag-large.eo-rag-small.win_rate.judges",
        "systems.eo-rag-large.bradley_terry.judge.baseline",
    } <= set(shown)
    for name, (value, text) in shown.items():
        entry = expected[name]
        assert value == json.dumps(entry["value"]), name
        declared = registry.declared(name)
        assert declared is not None, name
        assert text == metric_text(entry, declared.style), name
    (embedded,) = [body for attrs, body in parsed.scripts if attrs.get("id") == METRICS_ELEMENT_ID]
    assert json.loads(embedded)["metrics"] == expected


def test_report_fetches_nothing_by_itself(judged_store):
    html = build_report(judged_store, MetricsRequest(dataset="eo-rag"), generated_utc=WHEN)
    parsed = parse(html)
    fetching = [(t, k, v) for t, k, v in parsed.urls if not (t == "a" and v.startswith("#"))]
    assert fetching == []
    assert "link" not in parsed.tags and "iframe" not in parsed.tags and "img" not in parsed.tags
    assert all("src" not in attrs for attrs, _ in parsed.scripts)
    assert "default-src 'none'" in parsed.csp and "connect-src 'none'" in parsed.csp
    assert "unsafe-inline" not in parsed.csp.split("script-src")[1].split(";")[0]
    # plotly.js is inline exactly once; each figure draws from it
    assert (
        sum("Plotly.newPlot" in body for _, body in parsed.scripts)
        == html.count('class="plotly-graph-div"')
        == 5
    )
    assert len([b for _, b in parsed.scripts if len(b) > 1_000_000]) == 1


def test_methods_section_names_the_panel_rubrics_calls_cost_and_date(judged_store):
    html = build_report(judged_store, MetricsRequest(dataset="eo-rag"), generated_utc=WHEN)
    methods = html[html.index('<section id="methods">') :]
    text = re.sub(r"<[^>]+>", " ", methods)
    with judged_store.connection() as con:
        calls, failed = con.execute("""SELECT count(*), count(*) FILTER (WHERE status = 'failed')
            FROM judge_calls j LEFT JOIN responses r USING (response_id)
            LEFT JOIN items i ON i.item_id = j.item_id
            WHERE coalesce(r.dataset, i.dataset) = 'eo-rag'""").fetchone()
    assert calls >= 200  # 120 ratings, and at least 40 pairs asked in both orders
    for expected in (
        "2026-03-04 05:06 UTC",
        "judgeboard/baseline",
        "likert-rag v1",
        "pairwise v1",
        "Judge calls",
        f"{calls:,} ({failed:,} failed)",
        "ana (person)",
        "ben (person)",
        "baseline (judge)",
        "Human labels",
        "42",
    ):
        assert expected in text, expected
    assert "<dt>Cost</dt><dd>$0.0000</dd>" in methods


def test_cost_text_says_what_is_known():
    def use(cost, unknown, ok=2):
        return JudgeUse("j", "m", "r", "1", ok, ok, 0, None, None, cost, unknown)

    assert cost_text(()) == "no judge calls recorded"
    assert cost_text((use(None, 2),)) == "unknown"
    assert cost_text((use(0.5, 0), use(0.25, 0))) == "$0.7500"
    assert cost_text((use(0.5, 1),)) == (
        "$0.5000 for the calls with a known price; 1 calls of unknown cost"
    )


def test_methods_cost_is_unknown_when_no_call_was_priced(store):
    toy = builders.two_systems(store)
    resp = toy["good"][0]
    store.add_judge_calls(
        [
            JudgeCall(
                "c1",
                "k1",
                "run",
                "j1",
                "openai/some-model",
                "likert-rag",
                "1",
                "h",
                "rating",
                "ok",
                response_id=resp.response_id,
                prompt_tokens=10,
                completion_tokens=5,
                cost_usd=None,
                created_utc=builders.T0,
            )
        ]
    )
    html = build_report(store, MetricsRequest(dataset="toy"), generated_utc=WHEN)
    text = re.sub(r"<[^>]+>", " ", html[html.index('<section id="methods">') :])
    assert "<dt>Cost</dt><dd>unknown</dd>" in html
    assert "openai/some-model" in text
    assert "not recorded (imported ratings)" in text  # j2 rated without a recorded call
    assert "1 (0 failed)" in text


def test_an_empty_database_gives_a_report_that_says_so(store):
    html = build_report(store, generated_utc=WHEN)
    assert "No responses in this selection." in html
    assert "no judge calls recorded" in html


@pytest.mark.browser
def test_report_opens_in_chromium_without_errors_or_requests(judged_store, chromium, tmp_path):
    path = write_report(judged_store, tmp_path / "report.html", MetricsRequest(dataset="eo-rag"))
    expected_figures = path.read_text(encoding="utf-8").count('class="plotly-graph-div"')
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    console, requests = [], []
    page.on("console", lambda m: console.append((m.type, m.text)))
    page.on("pageerror", lambda e: console.append(("pageerror", str(e))))
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(path.as_uri())
        page.wait_for_function(
            f"document.querySelectorAll('.js-plotly-plot .main-svg').length >= {expected_figures}",
            timeout=30_000,
        )
        assert page.evaluate("document.querySelectorAll('.js-plotly-plot').length") == 5
        assert page.locator("#summary table").count() == 2  # 12 columns besides the system
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "report-full.png"), full_page=True)
        # The README shows the top: summary, histograms and the start of calibration.
        page.screenshot(
            path=str(ARTIFACTS / "report.png"),
            full_page=True,
            clip={"x": 0, "y": 0, "width": 1280, "height": 1500},
        )
    finally:
        page.close()
    assert [m for m in console if m[0] in ("error", "pageerror")] == []
    assert [u for u in requests if u != path.as_uri() and not u.startswith("data:")] == []
    if os.environ.get("JUDGEBOARD_UPDATE_SCREENSHOTS") == "1":
        target = REPO_ROOT / "docs" / "screenshots" / "report.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ARTIFACTS / "report.png", target)


def test_a_report_of_every_dataset(judged_store, capsys, tmp_path):
    out = tmp_path / "all.html"
    assert main(["--db", judged_store.url, "report", "--worst", "3", "--out", str(out)]) == 0
    capsys.readouterr()
    parsed = parse(out.read_text(encoding="utf-8"))
    expected = cli_metrics(judged_store, capsys)["metrics"]
    # all four datasets: the reference-based metrics of MCQA and hallucination are there too
    assert {
        "systems.eo-rag-large.mcqa_accuracy",
        "systems.eo-rag-large.hallucination_f1",
        "systems.eo-rag-large.effective",
    } <= set(parsed.cells)
    assert all(parsed.cells[n][0] == json.dumps(expected[n]["value"]) for n in parsed.cells)
    assert out.read_text(encoding="utf-8").count('class="answer"') == 3


def _people_vote(store) -> int:
    """ana votes on the eo-rag pairs the offline judge compared: its A-first verdict on even
    pairs, another verdict on odd ones, so that every convention has a number."""
    with store.connection() as con:
        rows = con.execute("""
            SELECT item_id, response_a, response_b, verdict FROM current_preferences
            WHERE rater_kind = 'llm' AND shown_first = 'A' AND verdict IS NOT NULL
            ORDER BY item_id""").fetchall()
    flip = {"A": "B", "B": "A", "tie": "A"}
    votes = [
        Preference(
            new_id(),
            item,
            a,
            b,
            "human",
            "ana",
            "pairwise",
            "1",
            verdict if n % 2 == 0 else flip[verdict],
            "A",
        )
        for n, (item, a, b, verdict) in enumerate(rows)
    ]
    store.add_preferences(votes)
    return len(votes)


def test_the_report_shows_every_pairwise_convention(judged_store, capsys, tmp_path):
    assert _people_vote(judged_store) > 4
    out = tmp_path / "report.html"
    argv = ["--db", judged_store.url, "report", "--dataset", "eo-rag", "--out", str(out)]
    assert main(argv) == 0
    assert "wrote" in capsys.readouterr().out
    expected = cli_metrics(judged_store, capsys, "--dataset", "eo-rag")["metrics"]
    shown = parse(out.read_text(encoding="utf-8")).cells
    for judge in ("baseline", "panel"):
        for metric in registry.PREFERENCE_AGREEMENT_METRICS:
            name = registry.fill(metric.name, judge=judge)
            assert name in expected, name
            value, text = shown[name]
            assert value == json.dumps(expected[name]["value"]), name
            assert text == metric_text(expected[name], metric.style), name


def test_report_by_a_field_has_a_section_per_slice(judged_store, capsys, tmp_path):
    out = tmp_path / "report.html"
    args = ["--db", judged_store.url, "report", "--by", "dataset", "--pool-raters"]
    assert main([*args, "--out", str(out)]) == 0
    capsys.readouterr()
    expected = cli_metrics(judged_store, capsys, "--by", "dataset", "--pool-raters")
    html = out.read_text(encoding="utf-8")
    parsed = parse(html)
    found = expected["by"]["slices"]
    assert [s["value"] for s in found] == sorted(d.name for d in judged_store.list_datasets())
    assert 'id="slices"' in html and '<a href="#slices">By dataset</a>' in html
    for piece in found:
        assert f"<h3>dataset = {piece['value']} ({piece['items']} items)</h3>" in html
        # each slice's summary: every system's responses, under the slice's name
        for system in piece["systems"]:
            assert f"{piece['prefix']}systems.{system}.n_responses" in parsed.cells
    # eo-rag's slice has its standings (the judges', the judge's, the pool) and calibration
    for name in (
        "by.dataset=eo-rag.systems.eo-rag-large.bradley_terry.judges",
        "by.dataset=eo-rag.systems.eo-rag-large.win_rate.judge.baseline",
        "by.dataset=eo-rag.systems.eo-rag-large.bradley_terry",
        "by.dataset=eo-rag.pairwise.eo-rag-large.eo-rag-small.win_rate.judges",
        "by.dataset=eo-rag.calibration.panel.kappa_quadratic",
        "systems.eo-rag-large.win_rate",  # pooled, as asked
    ):
        assert name in parsed.cells, name
    for name, (value, _) in parsed.cells.items():
        assert value == json.dumps(expected["metrics"][name]["value"]), name
    assert "Win rate (pooled)" in html


def test_report_says_where_the_rankings_disagree(store):
    from tests.metrics.overview.test_standings import _tree

    _tree(store)
    html = build_report(store, MetricsRequest(dataset="tree"), generated_utc=WHEN)
    assert "the win rate ranks a above b (0.700 against 0.600) but Bradley–Terry ranks b" in (
        html.replace("&#x27;", "'")
    )
    # one note per disagreement (a > b, a > d, d > b), as paragraphs of the pairwise section
    assert html.count('<p class="note">Among the judges, the win rate ranks') == 3


def test_the_report_shows_each_judges_bias_from_the_metrics_json(tmp_path: pathlib.Path) -> None:
    from dashboard.report import gather, render
    from dashboard.store import Store
    from tests.builders import item, rating, response

    store = Store(tmp_path / "bias.duckdb", wait_s=20)
    items = [item("b", n) for n in range(12)]
    answers = [response(it, "s", " ".join(["w"] * (5 + 3 * n))) for n, it in enumerate(items)]
    store.add_items(items, answers)
    store.add_ratings([rating(r, "judge-x", 1 + n % 5) for n, r in enumerate(answers)])
    html = render(gather(store, MetricsRequest(dataset="b")))
    assert 'id="bias"' in html and 'data-metric="bias.judge-x.length"' in html
    assert "confounded" in html  # no person rated these answers: the raw slope is flagged


def test_the_summary_table_prints_without_being_cut(judged_store, chromium, tmp_path):
    """Printed (A4 landscape: about 1050 px wide at 96 dpi), the summary tables of every
    dataset, its widest, fit the page: no cell runs past its table's box."""
    path = write_report(judged_store, tmp_path / "report.html")
    page = chromium.new_page(viewport={"width": 1050, "height": 900})
    try:
        page.goto(path.as_uri())
        page.emulate_media(media="print")
        tables = page.locator("#summary table")
        assert tables.count() >= 1
        for table in tables.all():
            width = table.evaluate("t => t.getBoundingClientRect().right")
            assert table.evaluate("t => t.scrollWidth <= t.clientWidth + 1")
            cells = table.locator("th, td")
            rights = cells.evaluate_all("cs => cs.map(c => c.getBoundingClientRect().right)")
            assert rights and max(rights) <= width + 1 and width <= 1050
            assert table.locator("th").last.inner_text().strip()  # the last column is there
    finally:
        page.close()


@pytest.mark.browser
def test_no_table_scrolls_sideways_in_a_1400_px_window(judged_store, chromium, tmp_path):
    """Issue 32: at 1400 x 1000 the summary (of every dataset, its widest) and the pairwise
    verdicts against people, once too wide, are tables one under the other, each led by its
    row's name; no table of the report scrolls inside its box, and every column is shown."""
    assert _people_vote(judged_store) > 4  # the pairwise verdicts' table has its numbers
    path = write_report(judged_store, tmp_path / "report.html")
    html = path.read_text(encoding="utf-8")
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(path.as_uri())
        boxes = page.locator(".scroll")
        sizes = boxes.evaluate_all("bs => bs.map(b => [b.scrollWidth, b.clientWidth])")
        assert sizes and all(wide <= room for wide, room in sizes), sizes
        summary = page.locator("#summary table")
        verdicts = page.locator("table", has_text="Pairwise verdicts against people's majority")
        for tables, name in ((summary, "System"), (verdicts, "Judge")):
            assert tables.count() >= 2
            heads = [t.locator("thead th").all_inner_texts() for t in tables.all()]
            assert all(h[0] == name for h in heads)
            shown = [column for h in heads for column in h[1:]]
            assert len(shown) == len(set(shown))  # each column once
        assert shown[-1] == "Unscored pairs"  # the pairwise verdicts' last column is there
        # every number is still on the page, tagged with its metric
        assert parse(html).cells.keys() >= {
            "systems.eo-rag-large.hallucination_f1",
            "calibration.pairwise.baseline.unscored_pairs",
        }
    finally:
        page.close()


def test_a_call_that_failed_then_succeeded_counts_as_a_success(store):
    """Three attempts of one prompt (k1: failed, failed, then ok in a later run) and one
    prompt that never succeeded (k2): 2 calls, 1 failed; the tokens of every attempt count
    (10 + 10 + 12 + 7 in)."""
    toy = builders.two_systems(store)
    first, second = toy["good"][0], toy["good"][1]

    def call(call_id, key, run, status, response, tokens, minute):
        return JudgeCall(
            call_id,
            key,
            run,
            "j1",
            "openai/some-model",
            "likert-rag",
            "1",
            "h",
            "rating",
            status,
            response_id=response.response_id,
            prompt_tokens=tokens,
            completion_tokens=1,
            cost_usd=0.5 if status == "ok" else None,
            created_utc=builders.T0 + timedelta(minutes=minute),
        )

    store.add_judge_calls(
        [
            call("c1", "k1", "run1", "failed", first, 10, 0),
            call("c2", "k1", "run1", "failed", first, 10, 1),
            call("c3", "k1", "run2", "ok", first, 12, 2),
            call("c4", "k2", "run2", "failed", second, 7, 3),
        ]
    )
    with store.connection() as con:
        (use,) = report_sql.judge_calls_by_judge(con, dataset="toy")
    assert (use.calls, use.ok_calls, use.failed_calls) == (2, 1, 1)
    assert (use.prompt_tokens, use.completion_tokens, use.cost_unknown_calls) == (39, 4, 0)
    html = build_report(store, MetricsRequest(dataset="toy"), generated_utc=WHEN)
    assert "2 (1 failed)" in re.sub(r"<[^>]+>", " ", html[html.index('<section id="methods">') :])


def test_a_wide_table_is_split_evenly_each_part_led_by_its_first_column():
    headers = ["System", *(f"m{n}" for n in range(12))]
    rows = [[th_row("a"), *(td(n) for n in range(12))], [th_row("b"), *(td(n) for n in range(12))]]
    html = split_table(headers, rows, caption="Scores", per_table=9)
    parsed = parse(html)
    assert parsed.tags.count("table") == 2  # 12 columns: two tables of 6, not 9 and 3
    assert html.count('<th scope="col">System</th>') == 2
    assert "<caption>Scores</caption>" in html and "<caption>Scores (continued)</caption>" in html
    first, second = html.split("</table>")[:2]
    assert "m5<" in first and "m6<" not in first and "m6<" in second and "m11<" in second
    assert first.count("<td>") == second.count("<td>") == 2 * 6
    # a table that fits stays one, as `table` writes it
    assert split_table(headers[:10], [r[:10] for r in rows]) == table(
        headers[:10], [r[:10] for r in rows]
    )
