"""The admin's actions refuse a signed-in labeller in the function that does the work, not
only on the page: each one called directly as a labeller raises RoleError and leaves every
table as it was; as an admin, or with no sign-in (actor None), it works as before. (Judge
runs, probes and few-shot versions: tests/judging/test_roles_judging.py.)"""

from __future__ import annotations

import io

import pytest

from dashboard.auth.roles import RoleError, may_administer, require_admin
from dashboard.auth.users import User
from dashboard.campaigns import campaigns
from dashboard.export.files import export_bytes
from dashboard.ingest import uploads
from dashboard.judging.rubrics import list_rubrics
from dashboard.metrics import calibration, judge_qa, reference
from dashboard.metrics.output import MetricsRequest
from dashboard.metrics.selection import Selection
from dashboard.report import build_report
from dashboard.store import Store
from dashboard.workbench import lab, run, versions
from tests.support.snapshot import table_rows

LABELLER = User("lee", "labeller")
ADMIN = User("ada", "admin")
RUBRIC = next(r for r in list_rubrics() if r.name == "likert-rag")
UPLOAD = b'{"question": "q?", "answer": "a", "system": "s", "id": "1"}\n'


def test_the_guard() -> None:
    assert may_administer(None) and may_administer(ADMIN) and not may_administer(LABELLER)
    require_admin(None, "x")
    require_admin(ADMIN, "x")
    with pytest.raises(RoleError, match="lee is signed in as a labeller: only an admin may x"):
        require_admin(LABELLER, "x")


def _import(store: Store, actor: User | None) -> object:
    return uploads.import_upload(
        store, "upload.jsonl", io.BytesIO(UPLOAD), dataset="fresh", actor=actor
    )


ACTIONS = {
    "import": _import,
    "delete": lambda store, actor: store.delete_dataset("eo-rag", actor=actor),
    "reference rule": lambda store, actor: reference.set_reference_rule(
        store, "eo-rag", "max", actor=actor
    ),
    "anchors": lambda store, actor: judge_qa.add_anchors(
        store, dataset="eo-rag", sample_size=3, actor=actor
    ),
    "campaign": lambda store, actor: campaigns.create_campaign(
        store, "study", RUBRIC, dataset="eo-rag", rule="random", size=3, actor=actor
    ),
    "export": lambda store, actor: export_bytes(
        store, "ratings", fmt="csv", dataset="eo-rag", actor=actor
    ),
    "report": lambda store, actor: build_report(
        store, MetricsRequest(dataset="eo-rag"), actor=actor
    ),
    "who labelled what": lambda store, actor: calibration.disagreements(
        store, Selection("eo-rag", "likert-rag"), "panel", actor=actor
    ),
}
READS = ("export", "report", "who labelled what")


@pytest.mark.parametrize("action", ACTIONS)
def test_a_labeller_is_refused_and_nothing_changes(sample_store: Store, action: str) -> None:
    before = table_rows(sample_store)
    with pytest.raises(RoleError, match="only an admin may"):
        ACTIONS[action](sample_store, LABELLER)
    assert table_rows(sample_store) == before


@pytest.mark.parametrize("actor", [ADMIN, None], ids=["admin", "no sign-in"])
@pytest.mark.parametrize("action", ACTIONS)
def test_an_admin_and_local_mode_may(sample_store: Store, action: str, actor: User | None) -> None:
    before = table_rows(sample_store)
    result = ACTIONS[action](sample_store, actor)
    if action in READS:  # the labels come out, nothing changes
        assert result and table_rows(sample_store) == before
    else:
        assert table_rows(sample_store) != before


_LAB = {"rubric": "likert-rag", "dataset": "eo-rag", "judge": "offline"}
WORKBENCH = {
    "score on test": lambda store, actor: lab.score_on(store, side="test", actor=actor, **_LAB),
    "compare": lambda store, actor: lab.compare(store, candidate="1", actor=actor, **_LAB),
    "adopt": lambda store, actor: lab.adopt(
        store, version="1", by="lee", reason="r", actor=actor, **_LAB
    ),
    "dev disagreements": lambda store, actor: lab.dev_disagreements(
        store, version="1", actor=actor, **_LAB
    ),
    "a calibration cell's disagreements": lambda store, actor: lab.cell_disagreements(
        store, rubric="likert-rag", judge="offline", pairs=(), actor=actor
    ),
    "save a version": lambda store, actor: versions.save_version(
        store, "likert-rag", parent="1", changes={"criteria": "new"}, actor=actor
    ),
    "run a version": lambda store, actor: run.run_version(
        store,
        run.plan_version(store, judges="offline", rubric=RUBRIC, dataset="eo-rag"),
        actor=actor,
    ),
}


@pytest.mark.parametrize("action", WORKBENCH)
def test_the_judge_lab_refuses_a_labeller_and_nothing_changes(
    sample_store: Store, action: str
) -> None:
    """The judge workbench spends judge calls and the test split, changes the panel and shows
    each person's labels: every step refuses a labeller in the function."""
    before = table_rows(sample_store)
    with pytest.raises(RoleError, match="only an admin may"):
        WORKBENCH[action](sample_store, LABELLER)
    assert table_rows(sample_store) == before
