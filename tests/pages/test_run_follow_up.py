"""A judge run's follow-up in any browser tab, through AppTest on the sample database: the
last run, its failures and Retry are read from the store, so a second session (another tab)
shows them; a process that does not hold the run's plan says how to retry instead."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from dashboard.store import Store
from dashboard.ui import runs
from tests.pages.conftest import TIMEOUT_S
from tests.pages.helpers import APP
from tests.pages.test_run_judges import _open, _plan_table

RETRY = "Retry the "


def _failed_lines(app: AppTest) -> list[str]:
    return [e.value for e in app.error if "call(s) failed, the last with" in e.value]


def _retry(app: AppTest):
    return [b for b in app.button if b.label.startswith(RETRY)]


def _run_that_fails(app: AppTest, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_BASE", "http://127.0.0.1:9/v1")  # nothing listens there
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
    _open(app)
    app.selectbox(key="jb_run_rubric").set_value("eve-0-5").run()
    app.radio(key="jb_run_source").set_value("Model strings").run()
    app.text_input(key="jb_run_models").input("openai/gpt-4o-mini").run()
    app.multiselect(key="jb_run_systems").set_value(["eo-rag-small"]).run()
    _plan_table(app)
    app.button(key="jb_run_button").click().run(timeout=120)
    assert not app.exception, app.exception


def _another_tab() -> AppTest:
    other = AppTest.from_file(str(APP), default_timeout=TIMEOUT_S)
    other.run()
    return _open(other)


def test_the_last_run_and_retry_show_in_another_tab(
    app: AppTest, sample_store: Store, monkeypatch
) -> None:
    _run_that_fails(app, monkeypatch)
    (shown,) = _failed_lines(app)
    assert len(_retry(app)) == 1
    run_id = next(c.value for c in app.caption if c.value.startswith("Run "))
    mine = next(d.value for d in app.dataframe if "calls made" in d.value.columns)

    other = _another_tab()
    assert next(c.value for c in other.caption if c.value.startswith("Run ")) == run_id
    assert _failed_lines(other) == [shown]
    summary = next(d.value for d in other.dataframe if "calls made" in d.value.columns)
    row = summary.set_index("judge").loc["openai/gpt-4o-mini"]
    assert int(row["failed"]) > 0
    assert summary.equals(mine)  # the store's summary is the one the run's own tab shows
    (retry,) = _retry(other)
    failed = int(row["failed"])
    assert retry.label == f"Retry the {failed:,} failed call(s)"
    retry.click().run(timeout=120)  # the retry, from the tab that did not start the run
    assert not other.exception, other.exception
    again = next(c.value for c in other.caption if c.value.startswith("Run "))
    assert again != run_id and len(_failed_lines(other)) == 1
    with sample_store.connection() as con:
        (runs_recorded,) = con.execute(
            "SELECT count(DISTINCT run_id) FROM judge_runs WHERE model = 'openai/gpt-4o-mini'"
        ).fetchone()
    assert runs_recorded == 2
    # the first tab follows the store too: the retry is its last run now
    app.run()
    assert next(c.value for c in app.caption if c.value.startswith("Run ")) == again


def test_a_process_without_the_runs_plan_says_how_to_retry(
    app: AppTest, sample_store: Store, monkeypatch
) -> None:
    _run_that_fails(app, monkeypatch)
    runs._held_plans.clear()  # as in another dashboard process
    other = _another_tab()
    assert len(_failed_lines(other)) == 1 and not _retry(other)
    assert any(
        c.value.startswith("Retry is offered by the dashboard process") for c in other.caption
    )
