"""An imported scorer's rubric is offered on Annotate and Campaigns without a rubric file of
its name (`dashboard.review.imported_rubrics`): an Inspect log made by Inspect itself with its
mock model is imported, its `match` scorer is picked on Annotate, on the scale of its ratings
(pass/fail: 0 or 1), a label is saved, and `metrics --json` pairs the label with the scorer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dashboard.cli import main as cli_main
from dashboard.ingest import import_path
from dashboard.judging import list_rubrics
from dashboard.review.imported_rubrics import imported_scales, labelling_rubrics
from dashboard.store import Store
from tests.ingest.conftest import query
from tests.ingest.inspect_logs import make_inspect_log
from tests.pages.helpers import open_page, page_path, texts


def test_a_person_labels_on_an_inspect_scorers_rubric_and_calibration_pairs_them(
    app_for, store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = make_inspect_log(tmp_path / "logs")
    import_path(store, log)
    assert "match" not in {r.name for r in list_rubrics()}  # no rubric file of its name
    app = open_page(app_for(store), page_path("annotate"), dataset=log.stem, annotator="ana")
    assert not app.exception, app.exception
    picker = app.selectbox(key="annotate_rubric")
    assert "match" in picker.options
    picker.set_value("match").run()
    (value,) = [w for w in app.radio if (w.key or "").startswith("annotate_value_")]
    assert [float(o) for o in value.options] == [0.0, 1.0]  # the scorer's pass/fail scale
    value.set_value(1.0)
    (save,) = [w for w in app.button if (w.key or "").startswith("annotate_save_")]
    save.click().run()
    assert not app.exception, app.exception
    assert texts(app, "success") == ["Saved your rating (1) as `ana`."]
    ((rubric, version, low, high),) = query(
        store,
        "SELECT rubric, rubric_version, scale_low, scale_high FROM ratings WHERE rater = 'ana'",
    )
    assert (rubric, low, high) == ("match", 0.0, 1.0)
    # The label carries the version the scorer's ratings carry.
    assert query(store, "SELECT DISTINCT rubric_version FROM ratings") == [(version,)]

    assert cli_main(["--db", store.url, "metrics", "--json", "--rubric", "match"]) == 0
    found = json.loads(capsys.readouterr().out)["metrics"]
    assert found["calibration.human_labels"]["value"] == 1
    # The one labelled answer, its scorer's rating against ana's label.
    exact = found["calibration.match.exact"]
    assert exact["n"] == 1
    ((scorer,),) = query(
        store,
        "SELECT g.value FROM ratings g JOIN ratings h USING (response_id) "
        "WHERE g.rater_kind = 'llm' AND h.rater = 'ana'",
    )
    assert exact["value"] == (1.0 if scorer == 1.0 else 0.0)


def test_the_campaign_form_offers_the_imported_rubric(
    app_for, store: Store, tmp_path: Path
) -> None:
    log = make_inspect_log(tmp_path / "logs")
    import_path(store, log)
    app = open_page(app_for(store), page_path("campaigns"), dataset=log.stem, annotator="ana")
    assert not app.exception, app.exception
    assert "match" in app.selectbox(key="campaign_rubric").options


def test_the_scale_comes_from_the_imported_ratings(store: Store, tmp_path: Path) -> None:
    ratings = tmp_path / "graded.jsonl"
    rows = [
        ("q1", "a", "grader", "helpful", 1.0, 1.0, 5.0),
        ("q2", "b", "grader", "helpful", 4.0, 1.0, 5.0),
        ("q1", "a", "checker", "exact", 0.0, 0.0, 1.0),
        ("q2", "b", "checker", "exact", 1.0, 0.0, 1.0),
        ("q1", "a", "scorer", "likert-rag", 3.0, 1.0, 5.0),  # a rubric file defines it
    ]
    with open(ratings, "w", encoding="utf-8") as out:
        for item, answer, rater, rubric, value, low, high in rows:
            record = {
                "id": item,
                "question": f"{item}?",
                "system": "s",
                "answer": answer,
                "rater_kind": "llm",
                "rater": rater,
                "rubric": rubric,
                "value": value,
                "scale_low": low,
                "scale_high": high,
            }
            out.write(json.dumps(record) + "\n")
    import_path(store, ratings)
    files = list_rubrics()
    found = {s.rubric: s for s in imported_scales(store, known=[r.name for r in files])}
    assert set(found) == {"exact", "helpful"}
    assert (found["exact"].scale_low, found["exact"].scale_high) == (0.0, 1.0)
    assert found["exact"].pass_fail and found["exact"].n_ratings == 2
    assert (found["helpful"].scale_low, found["helpful"].scale_high) == (1.0, 5.0)
    assert not found["helpful"].pass_fail  # a 4 is neither end
    offered = labelling_rubrics(files, list(found.values()))
    names = [r.name for r in offered]
    assert names[-2:] == ["exact", "helpful"] and names.count("likert-rag") == 1
    helpful = offered[-1]
    assert (helpful.kind, helpful.scale_low, helpful.scale_high) == ("rating", 1.0, 5.0)
