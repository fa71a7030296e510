"""lm-eval's per-sample metrics are reference scores (rater kind `reference`), not a judge:
`metrics --json` names them `systems.<system>.reference_score.lm-eval`, they make no panel
score, and a person's label on the same rubric finds no judge to calibrate against them. The
schema takes the new kind on a database made before it (migration 24) as on a new one, on
both stores; a ratings file may name it, a preferences file may not."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from dashboard.cli import main
from dashboard.ingest import IngestError, import_path
from dashboard.metrics import overview
from dashboard.metrics.selection import Selection
from dashboard.metrics.tables import overview_rows
from dashboard.review.annotation import human_rating
from dashboard.store import Store, migrations
from tests.ingest.conftest import query
from tests.paths import TEST_DATA

REAL_RUN = TEST_DATA / "lm_eval" / "run_by_lm_eval" / "judgeboard__dummy"
COLOURS = "judgeboard_colours"
SYSTEM = "judgeboard__dummy"


def _metrics(store: Store, capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    capsys.readouterr()
    assert main(["--db", store.url, "metrics", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)["metrics"]


def test_lm_evals_metrics_are_reference_scores_not_a_judge(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    import_path(store, REAL_RUN)
    assert query(store, "SELECT DISTINCT rater_kind, rater FROM ratings") == [
        ("reference", "lm-eval")
    ]
    found = _metrics(store, capsys, "--dataset", COLOURS, "--rubric", "acc")
    # acc: 1 of the 4 documents (lm-eval's own 0.25), as a reference score.
    score = found[f"systems.{SYSTEM}.reference_score.lm-eval"]
    assert (score["value"], score["n"]) == (0.25, 4)
    assert score["low"] <= 0.25 <= score["high"]
    assert not [k for k in found if ".judge." in k or k.endswith((".panel", ".judge_only"))]
    # The Overview's table (and the report's) shows it in a column of its own.
    view = overview.overview(store, Selection(dataset=COLOURS, rubric="acc"))
    (row,) = overview_rows(view)
    assert row["reference score: lm-eval"].startswith("0.25 [")
    assert not [column for column in row if column.startswith("judge")]

    # A person labels the first response on acc: calibration has a label and no judge.
    ((response_id,),) = query(
        store, "SELECT min(response_id) FROM responses WHERE dataset = ?", [COLOURS]
    )
    store.add_ratings(
        [
            human_rating(
                response_id,
                annotator="ana",
                rubric="acc",
                rubric_version="1",
                value=1.0,
                scale=(0.0, 1.0),
            )
        ]
    )
    found = _metrics(store, capsys, "--dataset", COLOURS, "--rubric", "acc")
    assert found["calibration.human_labels"]["value"] == 1
    assert not [k for k in found if k.startswith("calibration.lm-eval")]
    assert found[f"systems.{SYSTEM}.human"]["n"] == 1
    assert f"systems.{SYSTEM}.reference_score.lm-eval" in found


def test_a_database_made_before_the_kind_takes_it(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:23])
    migrations.migrate(con)
    con.execute(
        "INSERT INTO ratings (rating_id, response_id, rater_kind, rater, rubric, rubric_version,"
        " value, scale_low, scale_high, created_utc) VALUES "
        "('r1', 'x', 'llm', 'j', 'acc', '1', 1, 0, 1, now())"
    )
    with pytest.raises(duckdb.ConstraintException):
        con.execute(
            "INSERT INTO ratings (rating_id, response_id, rater_kind, rater, rubric, "
            "rubric_version, value, scale_low, scale_high, created_utc) VALUES "
            "('r2', 'x', 'reference', 'lm-eval', 'acc', '1', 1, 0, 1, now())"
        )
    con.close()
    monkeypatch.undo()
    assert migrations.MIGRATIONS[23][0] == "reference_rater_kind"  # migration 24
    store = Store(path)
    assert query(store, "SELECT rating_id, rater_kind, superseded FROM ratings") == [
        ("r1", "llm", False)
    ]
    assert query(store, "SELECT rating_id FROM current_ratings") == [("r1",)]
    _kinds_are_checked(store)
    assert query(store, "SELECT count(*) FROM current_ratings") == [(2,)]


def _kinds_are_checked(store: Store) -> None:
    insert = (
        "INSERT INTO ratings (rating_id, response_id, rater_kind, rater, rubric, rubric_version,"
        " value, scale_low, scale_high, created_utc, superseded) VALUES "
        "($id, 'x', $kind, 'r', 'acc', '1', 1, 0, 1, now(), false)"
    )
    with store.connection() as con:
        con.execute(insert, {"id": "ref", "kind": "reference"})
        with pytest.raises(Exception, match="(?i)check"):
            con.execute(insert, {"id": "bad", "kind": "robot"})
    assert query(store, "SELECT rater_kind FROM ratings WHERE rating_id = 'ref'") == [
        ("reference",)
    ]


def test_a_new_store_takes_the_kind(store: Store) -> None:
    _kinds_are_checked(store)


def test_a_ratings_file_names_the_kind_a_preferences_file_may_not(
    store: Store, tmp_path: Path
) -> None:
    rating = {
        "question": "2+2?",
        "system": "s",
        "answer": "4",
        "rater_kind": "Reference",
        "rater": "my-tool",
        "rubric": "exact",
        "value": 1,
        "scale_low": 0,
        "scale_high": 1,
    }
    ratings = tmp_path / "scores.jsonl"
    ratings.write_text(json.dumps(rating) + "\n", encoding="utf-8")
    import_path(store, ratings)
    assert query(store, "SELECT rater_kind, rater FROM ratings") == [("reference", "my-tool")]
    preference = {
        "question": "2+2?",
        "system_a": "s",
        "answer_a": "4",
        "system_b": "t",
        "answer_b": "5",
        "rater_kind": "reference",
        "rater": "my-tool",
        "rubric": "better",
        "verdict": "A",
    }
    preferences = tmp_path / "prefs.jsonl"
    preferences.write_text(json.dumps(preference) + "\n", encoding="utf-8")
    with pytest.raises(IngestError, match="expected llm or human, got"):
        import_path(store, preferences)
