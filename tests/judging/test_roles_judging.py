"""Judge calls are paid for on the server's keys: a signed-in labeller's run, probe or
few-shot version is refused where the work is done (`run_plan`, `record_examples`), before
any call reaches the loopback server and with every table as it was; an admin's runs."""

from __future__ import annotations

import pytest

from dashboard.auth.roles import RoleError
from dashboard.auth.users import User
from dashboard.judging import BackgroundLoop, load_rubric, plan_run, run_plan
from dashboard.judging.few_shot import few_shot_rubric, record_examples
from dashboard.judging.probes import plan_probe
from dashboard.store import Store
from tests.judging.conftest import judge, panel, seed
from tests.support.judge_server import JudgeServer, ModelScript, always
from tests.support.snapshot import table_rows

LABELLER = User("lee", "labeller")
ADMIN = User("ada", "admin")
MODEL = "roles-judge"


@pytest.mark.parametrize("kind", ["run", "probe"])
def test_a_labeller_makes_no_judge_call(
    store: Store, server: JudgeServer, loop: BackgroundLoop, kind: str
) -> None:
    seed(store, n_items=4)
    server.script(MODEL, ModelScript(reply=always("Rating: [[3]]")))
    the_panel, rubric = panel(judge(MODEL, server)), load_rubric("likert-rag")
    if kind == "probe":
        loop.run(run_plan(store, plan_run(store, the_panel, rubric, dataset="demo")))
        plan = plan_probe(store, the_panel, rubric, kind="padding", dataset="demo", sample_size=4)
    else:
        plan = plan_run(store, the_panel, rubric, dataset="demo")
    assert plan.calls_needed > 0
    requests, before = server.stats(MODEL).requests, table_rows(store)
    with pytest.raises(RoleError, match="only an admin may run judges"):
        loop.run(run_plan(store, plan, actor=LABELLER))
    assert server.stats(MODEL).requests == requests
    assert table_rows(store) == before
    summary = loop.run(run_plan(store, plan, actor=ADMIN, flush_every_s=0.2))
    assert server.stats(MODEL).requests == requests + plan.calls_needed
    assert summary.calls_made == plan.calls_needed


def test_a_labeller_records_no_few_shot_version(sample_store: Store) -> None:
    rubric = few_shot_rubric(sample_store, load_rubric("likert-rag"), n=2, dataset="eo-rag")
    before = table_rows(sample_store)
    with pytest.raises(RoleError, match="few-shot"):
        record_examples(sample_store, rubric, actor=LABELLER)
    assert table_rows(sample_store) == before
    assert record_examples(sample_store, rubric, actor=ADMIN) == 2
