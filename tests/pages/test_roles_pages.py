"""A signed-in labeller, through AppTest on every page: each admin's control (run judges,
probes, anchors, import, delete, the reference rule, every export and the report, who gave
which label) is replaced by a message, and visiting every page changes nothing in the
database; an admin gets the controls. The work functions refuse a labeller on their own:
tests/auth/test_roles.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.auth import users
from dashboard.store import Store
from tests.pages.helpers import PAGES, page_path, texts
from tests.support.snapshot import table_rows

REFUSALS = {
    "run_judges": ["run judges"],
    "judge_qa": ["run probes (their judge calls are paid for)", "add anchors"],
    "data": [
        "import or delete data",
        "export the labels (they hold every person's)",
        "change a dataset's reference rule",
    ],
    "overview": ["download the report (it holds every person's labels)"],
    "campaigns": ["create campaigns"],
    "calibration": ["see which person gave which label"],
    "judge_lab": [
        "use the judge lab (its runs are paid judge calls, its looks spend the test split, "
        "and it shows each person's labels)"
    ],
}
# What an admin has in the labeller's place: a widget's key, or a download button's label.
CONTROLS = {
    "run_judges": ["jb_run_source"],
    "judge_qa": ["jb_qa_probe_run", "jb_qa_anchor_add"],
    "data": ["jb_delete_pick", "jb_rule_dataset"],
    "campaigns": ["campaign_name"],
    "calibration": ["jb_cal_cell_judge"],
    "judge_lab": ["jb_lab_rubric"],
}


@pytest.fixture
def accounts(judged_store: Store, users_file_for: Callable[[Store], Path]) -> Store:
    path = users_file_for(judged_store)  # sign-in is on
    users.add_user(path, "lee", "password-lee", role="labeller")
    users.add_user(path, "ada", "password-ada", role="admin")
    return judged_store


def _signed_in(app: AppTest, name: str) -> AppTest:
    app.run()
    app.text_input(key="jb_sign_in_name").set_value(name)
    app.text_input(key="jb_sign_in_password").set_value("password-" + name)
    next(b for b in app.button if b.label == "Sign in").click().run()
    assert any(t.startswith(f"Signed in as {name}") for t in texts(app, "text"))
    return app


def _open(app: AppTest, page: str) -> AppTest:
    app.switch_page(page_path(page)).run()
    app.selectbox(key="jb_dataset").set_value("eo-rag").run()  # as a user picks it
    if page == "calibration":  # the rubric both the judge and people rated
        app.selectbox(key="jb_metric_rubric_calibration").set_value("likert-rag").run()
    assert not app.exception, (page, app.exception)
    return app


def _keys(app: AppTest) -> set[str]:
    kinds = ("button", "selectbox", "text_input", "radio", "number_input")
    return {w.key for kind in kinds for w in app.get(kind) if w.key}


def _downloads(app: AppTest) -> list[str]:
    return [e.proto.label for e in app.get("download_button")]


def test_a_labeller_gets_messages_and_changes_nothing(app_for, accounts: Store) -> None:
    before = table_rows(accounts)
    app = _signed_in(app_for(accounts), "lee")
    for page in PAGES:
        _open(app, page)
        infos = texts(app, "info")
        for what in REFUSALS.get(page, []):
            assert f"Signed in as a labeller: only an admin may {what}." in infos, (page, infos)
        assert not set(CONTROLS.get(page, [])) & _keys(app), page
        assert not _downloads(app), page  # no export, no report
    assert table_rows(accounts) == before


def test_an_admin_gets_the_controls(app_for, accounts: Store) -> None:
    app = _signed_in(app_for(accounts), "ada")
    for page in PAGES:
        _open(app, page)
        assert not [t for t in texts(app, "info") if "only an admin" in t], page
        assert set(CONTROLS.get(page, [])) <= _keys(app), (page, _keys(app))
    _open(app, "data")
    assert any(label.startswith("Ratings (") for label in _downloads(app))
    _open(app, "overview")
    assert "Download report (HTML)" in _downloads(app)


def _rated_by_two(store: Store) -> tuple[str, list[str]]:
    with store.connection() as con:
        found = con.execute(
            "SELECT response_id, list(DISTINCT rater ORDER BY rater) FROM ratings "
            "WHERE rater_kind = 'human' GROUP BY response_id "
            "HAVING count(DISTINCT rater) >= 2 ORDER BY response_id LIMIT 1"
        ).fetchone()
    assert found is not None, "the sample has an answer two people rated"
    return str(found[0]), list(found[1])


@pytest.mark.parametrize("name", ["lee", "ada"])
def test_a_labeller_sees_only_their_own_labels_in_the_detail(
    app_for, accounts: Store, name: str
) -> None:
    response_id, raters = _rated_by_two(accounts)
    app = _signed_in(app_for(accounts), name)
    app.query_params["item"] = response_id
    app.switch_page(page_path("failures")).run()
    assert not app.exception, app.exception
    people = [t for t in texts(app, "text") if t.split(" · ")[0] in raters]
    hidden = [c for c in texts(app, "caption") if "only an admin sees them" in c]
    if name == "lee":
        assert people == [] and hidden, (people, hidden)
    else:
        assert {t.split(" · ")[0] for t in people} == set(raters) and not hidden
