"""The notebook API: the sample and a published set as DataFrames, equal to what the dashboard
and `judgeboard metrics` compute, and nothing written."""

from __future__ import annotations

import pytest

from dashboard import notebook
from dashboard.ingest import import_path
from dashboard.metrics.output import metrics_json
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from tests.conftest import TEST_WAIT_S
from tests.paths import SHARED_DATA


def _count(store: Store, table: str) -> int:
    with store.connection() as con:
        return con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_the_sample_as_dataframes(sample_store: Store) -> None:
    before = sample_store.fingerprint()
    db = notebook.open_database(sample_store.url, wait_s=TEST_WAIT_S)
    responses = db.responses(dataset="eo-rag")
    assert len(responses) == 120 and set(responses["system"]) == {
        "eo-rag-large",
        "eo-rag-small",
        "keyword-baseline",
    }
    data = metrics_json.compute(sample_store, Selection("eo-rag"))[2]["metrics"]
    for system, rows in responses.groupby("system"):
        # the system's effective score is the mean of its responses' effective scores
        assert rows["effective"].mean() == pytest.approx(
            data[f"systems.{system}.effective"]["value"]
        )
        assert rows["f1"].mean() == pytest.approx(data[f"systems.{system}.f1"]["value"])
    ratings = db.ratings(dataset="eo-rag")
    assert len(ratings) == _count(
        sample_store,
        "current_ratings g JOIN responses r USING (response_id) WHERE r.dataset = 'eo-rag'",
    )
    people = ratings[ratings["rater_kind"] == "human"]
    assert int(responses["n_people"].sum()) == len(people[people["rubric"] == "likert-rag"])
    assert (ratings["norm"].dropna().between(0, 1)).all() and ratings["is_current"].all()
    metrics = db.metrics(dataset="eo-rag")
    assert dict(zip(metrics["name"], metrics["value"])) == {
        name: entry["value"] for name, entry in data.items()
    }
    assert metrics["metric"].notna().all()  # every row names its declaration
    systems = db.systems(dataset="eo-rag").set_index("system")
    large = data["systems.eo-rag-large.effective"]
    assert systems.loc["eo-rag-large", "effective"] == large["value"]
    assert systems.loc["eo-rag-large", "effective_low"] == large["low"]
    assert systems.loc["eo-rag-large", "effective_n"] == large["n"]
    assert len(db.judge_calls()) == _count(sample_store, "judge_calls")
    assert len(db.preferences(dataset="eo-rag")) == _count(
        sample_store,
        "current_preferences p JOIN items i USING (item_id) WHERE i.dataset = 'eo-rag'",
    )
    assert set(db.datasets()["name"]) == {
        "eo-rag",
        "eo-mcqa",
        "eo-hallucination",
        "eo-conversational",
    }
    assert sample_store.fingerprint() == before  # read only


def test_a_published_set(tmp_path) -> None:
    store = Store(tmp_path / "pandalm.duckdb", wait_s=TEST_WAIT_S)
    import_path(store, SHARED_DATA / "pandalm")
    db = notebook.open_database(store.url)
    preferences = db.preferences()
    assert len(preferences) == 2997 + 999 + 999  # three annotators and two judges
    assert set(preferences["rater_kind"]) == {"human", "llm"}
    annotators = preferences[preferences["rater_kind"] == "human"]
    assert annotators.groupby("rater").size().to_dict() == {
        "annotator1": 999,
        "annotator2": 999,
        "annotator3": 999,
    }
    assert len(db.responses()) == 1998
    metrics = db.metrics()
    assert (metrics["name"].str.startswith("calibration.pairwise.")).any()
