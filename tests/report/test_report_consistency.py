"""The report's self-consistency section: a judge on a loopback server through real LiteLLM,
asked 3 times per labelled answer (`epochs=3`); the report's cells equal
`scoring.workbench.self_consistency` of the ratings stored, each with its interval and n and
the convention named; a report with no repeated run says so and gives the command."""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from dashboard.cli import main
from dashboard.judging import BackgroundLoop, load_rubric, plan_run, run_plan
from dashboard.judging.panel import Judge, Panel
from dashboard.judging.plan import labelled_only
from dashboard.metrics import registry
from dashboard.metrics.judge_qa import EPOCHS_COMMAND, consistency_convention
from dashboard.metrics.output import MetricsRequest
from dashboard.report import build_report
from dashboard.store import Store
from scoring.stats import CI
from scoring.workbench import SelfConsistency, self_consistency
from tests.judging.conftest import KEY_ENV, SECRET_KEY
from tests.report.test_report import WHEN, parse
from tests.support.judge_server import JudgeServer, ModelScript

JUDGE = "report-epochs"
OFFSETS = (0, 1, 1)  # the k-th ask of a prompt rates one more than the first (capped at 5)
_SECTION = re.compile(r'<section id="self-consistency">(.*?)</section>', re.DOTALL)


class _Rows(HTMLParser):
    """The text of each body row's cells (<th> and <td>) of one section's tables."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.headers: list[str] = []
        self._cell: list[str] | None = None
        self._in_head = False

    def handle_starttag(self, name: str, attrs: list[tuple[str, str | None]]) -> None:
        if name == "thead":
            self._in_head = True
        elif name == "tr" and not self._in_head:
            self.rows.append([])
        elif name in ("th", "td"):
            self._cell = []

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, name: str) -> None:
        if name == "thead":
            self._in_head = False
        elif name in ("th", "td") and self._cell is not None:
            text = "".join(self._cell)
            (self.headers if self._in_head else self.rows[-1]).append(text)
            self._cell = None


def _section(html: str) -> str:
    (body,) = _SECTION.findall(html)
    return body


def _judge_with_epochs(store: Store) -> dict[str, list[float]]:
    """Run the loopback judge 3 times on each of eo-rag's 30 labelled answers (temperature
    0.7); return the ratings the server gave, by prompt."""
    given: defaultdict[str, list[float]] = defaultdict(list)
    lock = threading.Lock()

    def reply(prompt: str) -> str:
        with lock:
            asked = given[prompt]
            rating = min(1 + len(prompt) % 5 + OFFSETS[len(asked) % 3], 5)
            asked.append(rating)
        return f"Explanation: ask {len(asked)}.\nRating: [[{rating}]]"

    with JudgeServer() as server:
        server.script(JUDGE, ModelScript(reply=reply))
        judge = Judge(JUDGE, f"openai/{JUDGE}", server.url, KEY_ENV, temperature=0.7)
        rubric = load_rubric("likert-rag")
        labelled = labelled_only(store, rubric, dataset="eo-rag", systems=None)
        plan = plan_run(
            store,
            Panel("epochs", (judge,)),
            rubric,
            dataset="eo-rag",
            response_ids=labelled,
            epochs=3,
        )
        loop = BackgroundLoop(name="report-epochs")
        try:
            loop.run(run_plan(store, plan))
        finally:
            loop.close()
        assert server.stats(JUDGE).requests == 3 * 30  # 3 asks of the 30 labelled answers
    return dict(given)


def _stored(store: Store) -> SelfConsistency:
    """`self_consistency` of the epochs' ratings as stored, in the read's order (the
    intervals resample the answers, so their order matters)."""
    with store.connection() as con:
        stored = con.execute(
            "SELECT list(value ORDER BY epoch) FROM epoch_ratings WHERE judge = ? "
            "GROUP BY response_id ORDER BY response_id",
            [JUDGE],
        ).fetchall()
    return self_consistency([row[0] for row in stored])


def _text(value: float, ci: CI, style: str) -> str:
    assert style == registry.SCORE  # three decimals, no sign, as `number_text` writes it
    return f"{value:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def test_the_report_shows_the_self_consistency_of_a_judge_run_with_epochs(
    judged_store: Store, monkeypatch: pytest.MonkeyPatch, capsys: Any, tmp_path: Path
) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET_KEY)
    given = _judge_with_epochs(judged_store)
    assert len(given) == 30 and {len(v) for v in given.values()} == {3}
    reference = _stored(judged_store)
    assert 0 < reference.share_all_agree < 1  # the judge does not always repeat itself
    assert reference.n_answers == 30 and reference.n_epochs == 3

    out = tmp_path / "report.html"  # through the command, as a person makes it
    assert main(["--db", judged_store.url, "report", "--dataset", "eo-rag", "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert '<a href="#self-consistency">Self-consistency</a>' in html
    section = _section(html)
    cells = parse(section).cells
    for metric in registry.SELF_CONSISTENCY_METRICS:
        name = registry.fill(metric.name, judge=JUDGE)
        value = getattr(reference, metric.key)
        ci = getattr(reference, f"{metric.key}_ci")
        shown_value, shown_text = cells[name]
        assert float(shown_value) == pytest.approx(value, abs=1e-12), name
        assert shown_text == _text(value, ci, metric.style), name
    rows = _Rows()
    rows.feed(section)
    assert rows.headers == [
        "Judge",
        "Rubric version",
        "Epochs",
        "Epoch spread (sd)",
        "Epochs all agree",
        "Epoch alpha",
        "n (answers)",
    ]
    (row,) = rows.rows  # the offline baseline, asked once, has none
    assert row[:3] == [JUDGE, "1", "3"] and row[-1] == "30"
    # The convention: what each number is, which way is better, what the interval is.
    convention = consistency_convention()
    assert "(lower is better)" in convention and "resampling answers" in convention
    assert parse(section).tags.count("p") == 1 and convention.replace("'", "&#x27;") in section
    assert EPOCHS_COMMAND not in section

    # The same numbers as `metrics --json` gives, and as the built report (no CLI) shows.
    assert main(["--db", judged_store.url, "metrics", "--json", "--dataset", "eo-rag"]) == 0
    assert f"judges.{JUDGE}.self_consistency.alpha" in capsys.readouterr().out
    built = build_report(judged_store, MetricsRequest(dataset="eo-rag"), generated_utc=WHEN)
    assert parse(_section(built)).cells == cells


def test_a_report_without_a_repeated_run_says_so_with_the_command(judged_store: Store) -> None:
    html = build_report(judged_store, MetricsRequest(dataset="eo-rag"), generated_utc=WHEN)
    section = _section(html)
    assert "No judge has been asked more than once per answer" in section
    assert EPOCHS_COMMAND in section
    assert not parse(section).cells and "<table" not in section
