"""The Judge QA page on the sample judged by the offline baseline: each judge's biases with
their intervals, a padding probe run from the page (a second run served from the cache),
anchors added from the page, and each judge's self-consistency from a run with epochs (a
judge on a loopback server through real LiteLLM), or how to make one."""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.judging import BackgroundLoop, load_rubric, plan_run, run_plan
from dashboard.judging.panel import Judge, Panel
from dashboard.judging.plan import labelled_only
from dashboard.metrics.judge_qa import bias_rows, judge_bias as bias
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from scoring.stats import CI
from scoring.workbench import self_consistency
from tests.judging.conftest import KEY_ENV, SECRET_KEY
from tests.pages.helpers import open_page, page_path
from tests.support.judge_server import JudgeServer, ModelScript

PAGE = page_path("judge_qa")


def _table(app: AppTest) -> list[dict]:
    return app.dataframe[0].value.to_dict("records")


def _probe(app: AppTest) -> AppTest:
    app.number_input(key="jb_qa_probe_size").set_value(5)
    app.button(key="jb_qa_probe_run").click().run()
    assert not app.exception, app.exception
    return app


def test_bias_table_probe_and_anchors(
    judged_store: Store, app_for: Callable[[Store], AppTest]
) -> None:
    app = open_page(app_for(judged_store), PAGE, dataset="eo-rag")
    expected = bias_rows(bias.bias(judged_store, Selection("eo-rag")))
    rows = _table(app)
    assert [r["judge"] for r in rows] == [r["judge"] for r in expected] == ["baseline"]
    assert rows[0]["length"] == expected[0]["length"] and "[" in rows[0]["length"]
    assert rows[0]["length measured"] == "beyond people's"  # the sample carries people's labels
    assert rows[0]["padding probe"] == "—"
    # No judge was asked twice: the page says how to get a self-consistency, not a table.
    (hint,) = [i.value for i in app.info if "self-consistency" in i.value]
    assert "`judgeboard judge --epochs 3 --temperature 0.7`" in hint
    assert not any("epoch spread (sd)" in d.value.columns for d in app.dataframe)

    # the store holds the fixture's judge run: it is no probe of this session's
    assert not any("Probe run" in s.value for s in app.success)
    assert app.selectbox(key="jb_qa_probe_panel").value == "offline"
    _probe(app)
    assert "5 calls made, 0 from the cache" in app.success[0].value
    assert _table(app)[0]["n (padding probe)"] == 5
    _probe(app)  # the same probe again: nothing is called
    assert "0 calls made, 5 from the cache" in app.success[0].value

    app.number_input(key="jb_qa_anchor_size").set_value(7)
    app.button(key="jb_qa_anchor_add").click().run()
    assert not app.exception, app.exception
    assert any(c.value.startswith("7 anchor responses") for c in app.caption)


def test_rubric_versions_side_by_side_link_to_the_detail(
    store: Store, app_for: Callable[[Store], AppTest]
) -> None:
    from tests.metrics.judge_qa.test_versions import DATASET, seed_versions

    ids = seed_versions(store)
    app = open_page(app_for(store), PAGE, dataset=DATASET)
    shown = app.dataframe[1].value.to_dict("records")  # after the bias table
    assert [(r["judge"], r["rubric version"]) for r in shown] == [("judge", "1"), ("judge", "2")]
    assert shown[0]["exact agreement"].startswith("0.400 [")
    assert shown[1]["exact agreement"].startswith("0.900 [")
    assert shown[1]["n (pairs)"] == 10
    listed = app.dataframe[2].value.to_dict("records")
    assert len(listed) == 6
    last = next(r for r in listed if r["response"] == ids[9])
    assert (last["people"], last["v1"], last["v2"]) == ("5", "4", "4")
    assert last["detail"] == f"failures?dataset={DATASET}&rubric=likert-rag&item={ids[9]}"

    # The link opens that answer's detail on the Failures page (a fresh session on its URL).
    opened = app_for(store)
    opened.query_params.update({"dataset": DATASET, "rubric": "likert-rag", "item": ids[9]})
    opened.switch_page(page_path("failures")).run()
    assert not opened.exception, opened.exception
    assert opened.selectbox(key="failures_open").value == ids[9]
    assert "question 9?" in [c.value for c in opened.code]


OFFSETS = (0, 1, 1)  # the k-th ask of a prompt rates one more than the first (capped at 5)


def _ci_text(value: float, ci: CI) -> str:
    return f"{value:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def test_self_consistency_of_a_judge_run_with_epochs(
    judged_store: Store, app_for: Callable[[Store], AppTest], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A loopback judge asked 3 times per answer: the page shows its self-consistency with
    interval and n, equal to `scoring.workbench.self_consistency` of the ratings the server
    gave; the offline baseline, asked once, has none."""
    monkeypatch.setenv(KEY_ENV, SECRET_KEY)
    given: defaultdict[str, list[float]] = defaultdict(list)
    lock = threading.Lock()

    def reply(prompt: str) -> str:
        with lock:
            asked = given[prompt]
            rating = min(1 + len(prompt) % 5 + OFFSETS[len(asked) % 3], 5)
            asked.append(rating)
        return f"Explanation: ask {len(asked)}.\nRating: [[{rating}]]"

    with JudgeServer() as server:
        server.script("qa-epochs", ModelScript(reply=reply))
        judge = Judge("qa-epochs", "openai/qa-epochs", server.url, KEY_ENV, temperature=0.7)
        rubric = load_rubric("likert-rag")
        labelled = labelled_only(judged_store, rubric, dataset="eo-rag", systems=None)
        plan = plan_run(
            judged_store,
            Panel("epochs", (judge,)),
            rubric,
            dataset="eo-rag",
            response_ids=labelled,
            epochs=3,
        )
        loop = BackgroundLoop(name="qa-epochs")
        try:
            loop.run(run_plan(judged_store, plan))
        finally:
            loop.close()
        assert server.stats("qa-epochs").requests == 3 * 30  # 3 asks of the 30 labelled answers
    assert len(given) == 30 and {len(v) for v in given.values()} == {3}
    with judged_store.connection() as con:
        stored = con.execute(
            "SELECT list(value ORDER BY epoch) FROM epoch_ratings WHERE judge = 'qa-epochs' "
            "GROUP BY response_id ORDER BY response_id"
        ).fetchall()
    by_answer = [row[0] for row in stored]  # in the read's order: the intervals resample it
    assert sorted(sorted(r) for r in by_answer) == sorted(sorted(r) for r in given.values())
    reference = self_consistency(by_answer)
    assert 0 < reference.share_all_agree < 1  # the judge does not always repeat itself

    app = open_page(app_for(judged_store), PAGE, dataset="eo-rag")
    (table,) = [d.value for d in app.dataframe if "epoch spread (sd)" in d.value.columns]
    (row,) = table.to_dict("records")  # the baseline, asked once, has none
    assert (row["judge"], row["rubric version"], row["epochs"]) == ("qa-epochs", "1", 3)
    assert row["epoch spread (sd)"] == _ci_text(reference.mean_sd, reference.mean_sd_ci)
    assert row["epochs all agree"] == _ci_text(
        reference.share_all_agree, reference.share_all_agree_ci
    )
    assert row["epoch alpha"] == _ci_text(reference.alpha, reference.alpha_ci)
    assert row["n (answers)"] == 30
    (convention,) = [c.value for c in app.caption if "epoch spread (sd)" in c.value]
    assert "(lower is better)" in convention and "(higher is better)" in convention
    assert "95% percentile bootstrap intervals resampling answers" in convention
    assert not any("--epochs 3 --temperature 0.7" in i.value for i in app.info)
