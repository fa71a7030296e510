"""Labelling as teams do it, walked on the pages (AppTest) with the real CLI beside them:
a campaign made from a rule on the Campaigns page grows after `judgeboard import` and never
takes back an answer a person skipped or an admin removed; an admin assigns and reassigns a
campaign's answers to named people, the labeller sees what is assigned to them and the admin
each person's progress; a reference corrected on the Annotate page is exported with
`judgeboard export --golden` and imports back with the corrected reference. The store-level
rules are tested in tests/campaigns/test_rules_and_assignment.py and tests/review/test_gold.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from streamlit.testing.v1 import AppTest

from dashboard.auth import users
from dashboard.campaigns import assignment, campaigns
from dashboard.judging.rubrics import list_rubrics
from dashboard.store import Store
from dashboard.ui import campaign_team, labelling
from tests.pages.helpers import open_page, page_path, texts

CAMPAIGNS = page_path("campaigns")
ANNOTATE = page_path("annotate")
RUBRIC = next(r for r in list_rubrics() if r.name == "likert-rag")


def _cli(*args: str) -> str:
    """`judgeboard ARGS` in its own process, as a person runs it beside the dashboard."""
    done = subprocess.run(
        [sys.executable, "-m", "dashboard.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _answers(path: Path, ids: range) -> Path:
    """A rag file of answers of the new system rule-sys to new eo-rag questions (unrated)."""
    records = [
        {
            "question": f"Which band does sensor {i} of the walk use?",
            "answer": f"Band {i}.",
            "system": "rule-sys",
            "id": f"walk-{i}",
        }
        for i in ids
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _import(store: Store, path: Path) -> None:
    _cli("--db", store.url, "import", str(path), "--dataset", "eo-rag", "--format", "rag")


def _items(store: Store, name: str) -> list[str]:
    with store.connection() as con:
        rows = con.execute(
            "SELECT response_id FROM campaign_items WHERE campaign = ? ORDER BY position", [name]
        ).fetchall()
    return [row[0] for row in rows]


def _number(app: AppTest, label: str):
    return next(n for n in app.number_input if n.label == label)


def _button(app: AppTest, label: str):
    return next(b for b in app.button if b.label == label)


def _line(app: AppTest, part: str) -> str:
    found = [t for t in texts(app, "text") if part in t]
    assert len(found) == 1, (part, texts(app, "text"))
    return found[0]


def test_a_rule_campaign_made_on_the_page_grows_after_an_import(app, sample_store, tmp_path):
    _import(sample_store, _answers(tmp_path / "a.jsonl", range(3)))
    open_page(app, CAMPAIGNS, dataset="eo-rag", annotator="ada")
    app.text_input(key="campaign_name").set_value("fresh")
    app.selectbox(key="campaign_rubric").set_value("likert-rag")
    which = next(s for s in app.selectbox if s.label == "Which answers")
    which.set_value(campaign_team.FROM_RULE)
    app.selectbox(key="campaign_rule_system").set_value("rule-sys")
    app.checkbox(key="campaign_rule_unlabelled").check()
    _number(app, "How many answers").set_value(100)
    _number(app, "People per answer (k)").set_value(1)
    _button(app, "Create").click().run()
    assert not app.exception, app.exception
    assert texts(app, "success") == ["Created fresh with 3 answers."]
    shown = _line(app, "kept filled by a rule: system rule-sys, not yet labelled")
    assert "· 3 of " in shown
    first = _items(sample_store, "fresh")
    assert len(first) == 3

    # ana skips the answer her queue opens, on the Annotate page
    app.text_input(key="jb_annotator").set_value("ana")
    app.switch_page(ANNOTATE).run()
    app.selectbox(key="annotate_rubric").set_value("likert-rag").run()
    app.selectbox(key="annotate_campaign").set_value("fresh").run()
    assert not app.exception, app.exception
    skipped = app.session_state[labelling.OPEN_KEY].response_id
    assert skipped in first
    next(b for b in app.button if b.key == "annotate_skip").click().run()
    assert not app.exception, app.exception
    opened = app.session_state[labelling.OPEN_KEY].response_id
    assert opened in first and opened != skipped
    # ada, the admin, removes the third on the Campaigns page
    (removed,) = set(first) - {skipped, opened}
    app.text_input(key="jb_annotator").set_value("ada")
    app.switch_page(CAMPAIGNS).run()
    picker = app.selectbox(key="remove_fresh_answer")
    # the campaign's answers in its order, each as its question · system · id
    assert [o.rsplit(" · ", 1)[1] for o in picker.options] == first
    assert all(" · rule-sys · " in o for o in picker.options)
    picker.set_value(removed)
    _button(app, "Remove").click().run()
    assert not app.exception, app.exception
    (said,) = texts(app, "success")
    assert said.startswith("Removed Which band does sensor ") and removed in said
    with sample_store.connection() as con:
        assert con.execute(
            "SELECT response_id, person, kind FROM campaign_removals ORDER BY kind"
        ).fetchall() == [(removed, "ada", "remove"), (skipped, "ana", "skip")]
    app.text_input(key="jb_annotator").set_value("ana")

    # the next import holds the same three answers again and two new ones
    _import(sample_store, _answers(tmp_path / "b.jsonl", range(5)))
    app.switch_page(CAMPAIGNS).run()
    assert not app.exception, app.exception
    grown = _items(sample_store, "fresh")
    assert len(grown) == 3 - 1 + 2 and removed not in grown and skipped in grown
    assert set(first) - {removed} < set(grown)
    assert "· 4 of " in _line(app, "kept filled by a rule: system rule-sys")
    (bar,) = app.get("progress")
    assert "0 of 4 answers done" in bar.proto.text
    # the skipped answer stays in for others, but ana's queue does not serve it again
    app.switch_page(ANNOTATE).run()
    app.selectbox(key="annotate_campaign").set_value("fresh").run()
    assert not app.exception, app.exception
    assert app.session_state[labelling.OPEN_KEY].response_id == opened  # still hers
    next(b for b in app.button if b.key == "annotate_skip").click().run()
    served = app.session_state[labelling.OPEN_KEY].response_id
    assert served in set(grown) - set(first)  # one of the two new answers, not the skipped


def _sign_in(app: AppTest, name: str, page: str) -> AppTest:
    app.run()
    app.text_input(key="jb_sign_in_name").set_value(name)
    app.text_input(key="jb_sign_in_password").set_value("password-" + name)
    _button(app, "Sign in").click().run()
    assert any(t.startswith(f"Signed in as {name}") for t in texts(app, "text"))
    app.switch_page(page).run()
    assert not app.exception, app.exception
    return app


def _progress(app: AppTest) -> dict[str, tuple[int, int]]:
    """The Assigned table: {person: (assigned, labelled)}."""
    frames = [d.value for d in app.dataframe if "n_assigned" in d.value.columns]
    assert len(frames) == 1, [list(d.value.columns) for d in app.dataframe]
    table = frames[0]
    return {
        p: (int(a), int(n))
        for p, a, n in zip(table["person"], table["n_assigned"], table["n_labelled"], strict=True)
    }


def test_an_admin_assigns_and_reassigns_and_each_role_sees_its_part(
    app_for, sample_store, users_file_for
):
    path = users_file_for(sample_store)  # sign-in is on
    users.add_user(path, "ada", "password-ada", role="admin")
    users.add_user(path, "lee", "password-lee", role="labeller")
    users.add_user(path, "mo", "password-mo", role="labeller")
    made = campaigns.create_campaign(
        sample_store,
        "team",
        RUBRIC,
        dataset="eo-rag",
        rule="random",
        size=5,
        overlap=1,
    )
    assert made.n_items == 5
    order = _items(sample_store, "team")

    admin = _sign_in(app_for(sample_store), "ada", CAMPAIGNS)
    admin.text_input(key="assign_team_who").set_value("lee, mo")
    _button(admin, "Assign").click().run()
    assert not admin.exception, admin.exception
    assert texts(admin, "success") == ["Assigned: lee 3, mo 2."]
    assert _progress(admin) == {"lee": (3, 0), "mo": (2, 0)}

    labeller = _sign_in(app_for(sample_store), "lee", ANNOTATE)
    labeller.selectbox(key="annotate_rubric").set_value("likert-rag").run()
    labeller.selectbox(key="annotate_campaign").set_value("team").run()
    assert not labeller.exception, labeller.exception
    # the open answer is one of lee's; the queue holds lee's three first
    assert labeller.session_state[labelling.OPEN_KEY].response_id == order[0]
    assert "Assigned to me: 3 answer(s) of team still to label; they come first." in texts(
        labeller, "caption"
    )
    value = next(r for r in labeller.radio if (r.key or "").startswith("annotate_value_"))
    value.set_value(4.0)
    next(b for b in labeller.button if (b.key or "").startswith("annotate_save_")).click().run()
    assert not labeller.exception, labeller.exception
    assert "Assigned to me: 2 answer(s) of team still to label; they come first." in texts(
        labeller, "caption"
    )
    # a labeller has neither the assign nor the reassign form
    labeller.switch_page(CAMPAIGNS).run()
    assert not [b for b in labeller.button if b.label in ("Assign", "Reassign")]
    assert _progress(labeller) == {"lee": (3, 1), "mo": (2, 0)}

    # the admin sees lee's label, then moves lee's two unlabelled answers to mo
    admin.run()
    assert _progress(admin) == {"lee": (3, 1), "mo": (2, 0)}
    admin.selectbox(key="reassign_team_from").set_value("lee")
    admin.text_input(key="reassign_team_to").set_value("mo")
    _button(admin, "Reassign").click().run()
    assert not admin.exception, admin.exception
    assert "Moved 2 answer(s) of lee." in texts(admin, "success")
    assert _progress(admin) == {"lee": (1, 1), "mo": (4, 0)}
    assert assignment.assigned_to(sample_store, "team", "lee") == 0

    # lee has nothing assigned left: no line; mo's four come first for mo
    labeller.switch_page(ANNOTATE).run()
    assert not [c for c in texts(labeller, "caption") if c.startswith("Assigned to me")]
    other = _sign_in(app_for(sample_store), "mo", ANNOTATE)
    other.selectbox(key="annotate_rubric").set_value("likert-rag").run()
    other.selectbox(key="annotate_campaign").set_value("team").run()
    assert "Assigned to me: 4 answer(s) of team still to label; they come first." in texts(
        other, "caption"
    )
    assert other.session_state[labelling.OPEN_KEY].response_id in order[1:]


def _write_rag(path: Path) -> Path:
    rows = [
        {"question": "Capital of France?", "answer": "Paris", "gt_answer": "Lyon", "system": "s1"},
        {"question": "Capital of Italy?", "answer": "Rome", "gt_answer": "Rome", "system": "s1"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _references(store: Store) -> dict[str, list[str]]:
    with store.connection() as con:
        return dict(
            con.execute("SELECT question, reference_answers FROM items ORDER BY 1").fetchall()
        )


def test_a_reference_corrected_on_the_page_exports_golden_and_imports_back(
    app_for, store, tmp_path
):
    _cli("--db", store.url, "import", str(_write_rag(tmp_path / "qa.jsonl")), "--dataset", "qa")
    app = open_page(app_for(store), ANNOTATE, dataset="qa", annotator="carol")
    with store.connection() as con:
        (france,) = con.execute(
            "SELECT response_id FROM responses JOIN items USING (item_id, dataset) "
            "WHERE question = 'Capital of France?'"
        ).fetchone()
    # walk the queue to the French question, as a person skips to it
    if app.session_state[labelling.OPEN_KEY].response_id != france:
        next(b for b in app.button if b.key == "annotate_skip").click().run()
    assert app.session_state[labelling.OPEN_KEY].response_id == france
    box = app.text_area(key="gold_text")
    assert box.value == "Lyon"
    box.set_value("Paris\n---\nParis, France")
    app.text_input(key="gold_reason").set_value("Lyon is not the capital")
    _button(app, "Save the reference").click().run()
    assert not app.exception, app.exception
    assert "Saved the corrected reference; EM and F1 now use it." in texts(app, "success")
    # the next run shows the correction above the box (a correction moves no row count: the
    # page's cached reads must still see it)
    app.run()
    assert not app.exception, app.exception
    assert app.session_state[labelling.OPEN_KEY].response_id == france
    assert any(
        t.startswith("Corrected by carol on") and t.endswith(": Lyon is not the capital")
        for t in texts(app, "text")
    ), texts(app, "text")
    assert "Imported reference: Lyon" in texts(app, "caption")
    assert app.text_area(key="gold_text").value == "Paris\n---\nParis, France"

    out = tmp_path / "gold.jsonl"
    said = _cli("--db", store.url, "export", "--golden", str(out))
    assert f"rag: 2 items, 1 with corrected references, 2 rows -> {out}" in said
    # the original format: the file's own fields, the corrected list in gt_answer
    records = {r["question"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert records["Capital of France?"]["gt_answer"] == ["Paris", "Paris, France"]
    assert records["Capital of France?"]["answer"] == "Paris"

    fresh = Store(tmp_path / "fresh.duckdb")
    _cli("--db", fresh.url, "import", str(out), "--dataset", "qa2")
    assert _references(fresh) == {
        "Capital of France?": ["Paris", "Paris, France"],
        "Capital of Italy?": ["Rome"],
    }
    assert _references(store)["Capital of France?"] == ["Lyon"]  # the imported one is kept
