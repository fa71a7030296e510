"""Labels from code: `add_ratings` and `add_preferences` on a real database file, written
whole or not at all, with a page label's provenance, and counted by the metrics."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard import notebook
from dashboard.store import Store
from tests.conftest import TEST_WAIT_S


def _answers(db: notebook.Database, system: str, n: int) -> list[str]:
    """`n` answers of `system` that no person has rated on likert-rag yet."""
    responses = db.responses(dataset="eo-rag", rubric="likert-rag")
    unrated = responses[(responses["system"] == system) & (responses["n_people"] == 0)]
    return list(unrated["response_id"][:n])


def _people(db: notebook.Database) -> pd.DataFrame:
    ratings = db.ratings(dataset="eo-rag")
    return ratings[ratings["rater_kind"] == "human"]


def test_a_good_frame_is_written_with_a_page_labels_provenance(sample_store: Store) -> None:
    db = notebook.open_database(sample_store.url, wait_s=TEST_WAIT_S)
    small = _answers(db, "keyword-baseline", 4)
    before = db.metrics_json(dataset="eo-rag", rubric="likert-rag")["metrics"]
    n_before = before["systems.keyword-baseline.human"]["n"]
    mean_before = before["systems.keyword-baseline.human"]["value"]
    frame = pd.DataFrame(
        {"response_id": small, "rater": "nb-carol", "rubric": "likert-rag", "value": 5.0}
    )
    written = db.add_ratings(frame)
    assert written.count == 4 and len(written.ids) == 4
    mine = _people(db).query("rater == 'nb-carol'")
    assert sorted(mine["response_id"]) == sorted(small)
    assert set(mine["rater_kind"]) == {"human"} and set(mine["value"]) == {5.0}
    assert mine["created_utc"].notna().all() and mine["created_utc"].nunique() == 1
    assert len(set(mine["rubric_version"])) == 1
    with sample_store.connection() as con:
        selection = con.execute(
            "SELECT DISTINCT selection FROM ratings WHERE rater = 'nb-carol'"
        ).fetchall()
    assert selection == [("unknown",)]
    after = db.metrics_json(dataset="eo-rag", rubric="likert-rag")["metrics"]
    # four more people's labels of keyword-baseline, each at the top of the scale
    # (normalized 1.0 each): the mean moves to (n * mean + 4 * 1.0) / (n + 4)
    assert after["systems.keyword-baseline.human"]["n"] == n_before + 4
    assert after["systems.keyword-baseline.human"]["value"] == pytest.approx(
        (n_before * mean_before + 4.0) / (n_before + 4)
    )

    # the same person again on one answer: supersedes, as a page's label does
    db.add_ratings(
        pd.DataFrame(
            {"response_id": small[:1], "rater": "nb-carol", "rubric": "likert-rag", "value": [1]}
        )
    )
    mine = _people(db).query("rater == 'nb-carol'")
    assert len(mine) == 4 and mine.set_index("response_id").loc[small[0], "value"] == 1.0
    history = db.ratings(dataset="eo-rag", current_only=False).query("rater == 'nb-carol'")
    assert len(history) == 5 and history["supersedes"].notna().sum() == 1


def test_one_bad_row_writes_nothing(sample_store: Store) -> None:
    db = notebook.open_database(sample_store.url, wait_s=TEST_WAIT_S)
    answers = _answers(db, "eo-rag-small", 3)
    before = sample_store.fingerprint()
    off_scale = pd.DataFrame(
        {"response_id": answers, "rater": "nb-dan", "rubric": "likert-rag", "value": [4, 9, 3]}
    )
    with pytest.raises(notebook.LabelsRefused, match=r"row 1, value: 9 is off the likert-rag"):
        db.add_ratings(off_scale)
    no_rater = off_scale.assign(value=[4, 3, 3], rater=["nb-dan", "nb-dan", " "])
    with pytest.raises(notebook.LabelsRefused, match="row 2, rater: empty"):
        db.add_ratings(no_rater)
    # an answer that is not in the database is found in the write's own transaction
    unknown = off_scale.assign(value=[4, 3, 3], response_id=[answers[0], "nope", answers[2]])
    with pytest.raises(notebook.LabelsRefused, match="row 1, response: 'nope' is not an answer"):
        db.add_ratings(unknown)
    with pytest.raises(notebook.LabelsRefused, match="column 'score': not a label field"):
        db.add_ratings(off_scale.rename(columns={"value": "score"}))
    assert sample_store.fingerprint() == before
    assert _people(db).query("rater == 'nb-dan'").empty


def test_preferences_from_code(sample_store: Store) -> None:
    db = notebook.open_database(sample_store.url, wait_s=TEST_WAIT_S)
    responses = db.responses(dataset="eo-rag")
    by = responses.pivot(index="item_id", columns="system", values="response_id").head(3)
    frame = pd.DataFrame(
        {
            "response_a": list(by["eo-rag-large"]),
            "response_b": list(by["keyword-baseline"]),
            "rater": "nb-erin",
            "rubric": "pairwise",
            "verdict": ["A", "A", "tie"],
        }
    )
    before = sample_store.fingerprint()
    bad = frame.assign(verdict=["A", "left", "tie"])
    with pytest.raises(notebook.LabelsRefused, match="row 1, verdict: 'left'"):
        db.add_preferences(bad)
    crossed = frame.assign(response_b=[by["keyword-baseline"].iloc[1], *frame["response_b"][1:]])
    with pytest.raises(notebook.LabelsRefused, match="row 0, response_b: answers another"):
        db.add_preferences(crossed)
    assert sample_store.fingerprint() == before
    assert db.add_preferences(frame).count == 3
    votes = db.preferences(dataset="eo-rag").query("rater == 'nb-erin'")
    assert sorted(votes["verdict"]) == ["A", "A", "tie"]
    assert set(votes["item_id"]) == set(by.index) and set(votes["rater_kind"]) == {"human"}
    assert set(votes["system_a"]) == {"eo-rag-large"}
