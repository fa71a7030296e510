"""The --rubric rule: a rubric asked for counts its own ratings and its own pairwise verdicts;
the default counts the most rated rubric's ratings and every rubric's verdicts. An unknown
rubric is an error naming the closest ones (metrics, report, export)."""

from __future__ import annotations

import json

import pytest

from dashboard.cli import main
from dashboard.export.files import export
from dashboard.metrics import calibration, choices
from dashboard.metrics.output import metrics_json
from dashboard.metrics.selection import Selection
from tests import builders


@pytest.fixture
def judged(store):
    """builders.two_systems (likert-rag ratings) with verdicts of good against bad under two
    rubrics: j1 says A on every item under "pairwise", pl says B on every item under
    "pandalm"; ana (a person) says A on item 0 under "pairwise"."""
    toy = builders.two_systems(store)
    it, good, bad = toy["items"], toy["good"], toy["bad"]
    store.add_preferences(
        [builders.preference(it[n], good[n], bad[n], "j1", "A") for n in range(3)]
        + [
            builders.preference(it[n], good[n], bad[n], "pl", "B", rubric="pandalm")
            for n in (0, 1, 2)
        ]
        + [builders.preference(it[0], good[0], bad[0], "ana", "A", kind="human")]
    )
    return toy


def _json(store, capsys, *args):
    status = main(["--db", store.url, "metrics", "--dataset", "toy", "--json", *args])
    out, err = capsys.readouterr()
    return status, (json.loads(out) if out else None), err


def test_a_rubric_counts_its_own_verdicts_only(store, judged, capsys):
    # Default: likert-rag's ratings, both rubrics' verdicts: j1 1.0, pl 0.0 -> EVE 0.5.
    status, data, _ = _json(store, capsys)
    assert status == 0
    assert data["selection"]["rubric"] == "likert-rag"
    assert data["selection"]["preference_rubric"] is None
    assert data["metrics"]["systems.good.win_rate.judges"]["value"] == pytest.approx(0.5)
    assert data["metrics"]["systems.good.win_rate.judges"]["n"] == 6
    assert data["metrics"]["calibration.human_preferences"]["value"] == 1
    # --rubric pandalm: pl's verdicts alone (and no rating of that rubric).
    status, data, _ = _json(store, capsys, "--rubric", "pandalm")
    assert status == 0 and data["selection"]["preference_rubric"] == "pandalm"
    assert data["metrics"]["systems.good.win_rate.judges"]["value"] == 0.0
    assert data["metrics"]["systems.good.win_rate.judges"]["n"] == 3
    assert "systems.good.win_rate.people" not in data["metrics"]  # ana voted under pairwise
    assert data["metrics"]["calibration.human_preferences"]["value"] == 0
    assert "systems.good.effective" not in data["metrics"]
    # --rubric pairwise: j1's and ana's.
    status, data, _ = _json(store, capsys, "--rubric", "pairwise")
    assert data["metrics"]["systems.good.win_rate.judges"]["value"] == 1.0
    assert data["metrics"]["systems.good.win_rate.people"]["value"] == 1.0


def test_the_ratings_rubric_no_longer_takes_other_rubrics_verdicts(store, judged, capsys):
    # The defect: with --rubric likert-rag, the verdicts of "pairwise" and "pandalm" made its
    # win rates. Now that rubric's verdicts (there are none) are the only ones that count.
    status, data, _ = _json(store, capsys, "--rubric", "likert-rag")
    assert status == 0
    assert data["metrics"]["systems.good.effective"]["value"] == pytest.approx(2.5 / 3)
    assert not [n for n in data["metrics"] if ".win_rate" in n or ".bradley_terry" in n]
    assert data["metrics"]["calibration.human_preferences"]["value"] == 0
    # The same through the library: an explicit rubric is not the default.
    sel = Selection("toy", "likert-rag")
    assert sel.preference_rubric == "likert-rag"
    assert calibration.calibration(store, sel).n_human_preferences == 0
    resolved = choices.with_default_rubric(store, Selection("toy"))
    assert resolved.rubric == "likert-rag" and resolved.preference_rubric is None
    assert metrics_json.compute(store, Selection("toy"))[2]["selection"]["rubric"] == "likert-rag"


@pytest.mark.parametrize("command", ["metrics", "report", "export"])
def test_an_unknown_rubric_exits_2_naming_the_closest(store, judged, capsys, tmp_path, command):
    target = tmp_path / "out" / ("x.html" if command == "report" else "x.csv")
    out = ["--out", str(target)]
    extra = out if command != "metrics" else []
    status = main(["--db", store.url, command, "--rubric", "pandlm", *extra])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert "no rubric named 'pandlm'; closest: pandalm" in captured.err
    assert "(rubrics: likert-rag, pairwise, pandalm)" in captured.err
    assert not target.parent.exists()  # nothing written


def test_export_with_a_rubric_writes_its_ratings_and_preferences_only(store, judged, tmp_path):
    result = export(store, tmp_path / "out.jsonl", rubric="pandalm")
    rows = [json.loads(line) for line in result.files["preferences"].read_text().splitlines()]
    assert {r["rubric"] for r in rows} == {"pandalm"} and len(rows) == 3
    # no likert-rag rating: every response is a row without a rating
    assert "ratings" in result.files
    ratings = [json.loads(line) for line in result.files["ratings"].read_text().splitlines()]
    assert len(ratings) == 6 and all(r["rating_id"] is None for r in ratings)
    assert result.without_rating == 6
    whole = export(store, tmp_path / "all.jsonl")
    assert whole.rows["preferences"] == 7 and whole.rows["ratings"] > 6


def test_the_metric_pages_choices_list_rubrics_with_ratings_or_verdicts(store, judged):
    found = {r.name: r for r in choices.rubric_choices(store, dataset="toy")}
    assert list(found) == ["likert-rag", "pairwise", "pandalm"]
    assert found["likert-rag"].n_ratings == 16 and found["likert-rag"].scale == (1.0, 5.0)
    assert found["pairwise"].n_verdicts == 4 and found["pairwise"].n_ratings == 0
    assert found["pandalm"].label == "pandalm (3 pairwise verdicts)"
