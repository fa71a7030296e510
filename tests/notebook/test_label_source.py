"""Where a label was written (`source`): the notebook API, a labelling page, an import or a
judge run; an export carries it and an import reads it back."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from dashboard import notebook
from dashboard.export.files import export
from dashboard.ingest import import_path
from dashboard.review import annotation
from dashboard.store import Store
from tests.conftest import TEST_WAIT_S


def _sources(store: Store, rater: str, table: str = "ratings") -> list[str | None]:
    with store.connection() as con:
        rows = con.execute(
            f"SELECT DISTINCT source FROM {table} WHERE rater = ? ORDER BY ALL", [rater]
        ).fetchall()
    return [row[0] for row in rows]


def _unrated(db: notebook.Database, n: int) -> list[str]:
    responses = db.responses(dataset="eo-rag", rubric="likert-rag")
    return list(responses[responses["n_people"] == 0]["response_id"][:n])


def test_notebook_page_and_judge_labels_say_where_they_were_written(
    sample_store: Store,
) -> None:
    db = notebook.open_database(sample_store.url, wait_s=TEST_WAIT_S)
    first, second = _unrated(db, 2)
    frame = pd.DataFrame(
        {"response_id": [first], "rater": "nb-src", "rubric": "likert-rag", "value": [4.0]}
    )
    db.add_ratings(frame)
    assert _sources(sample_store, "nb-src") == ["notebook"]
    rating = annotation.human_rating(
        second,
        annotator="page-src",
        rubric="likert-rag",
        rubric_version="1",
        value=3.0,
        scale=(1.0, 5.0),
    )
    annotation.save_rating(sample_store, rating)
    assert _sources(sample_store, "page-src") == ["page"]
    by = db.responses(dataset="eo-rag").pivot(
        index="item_id", columns="system", values="response_id"
    )
    votes = pd.DataFrame(
        {
            "response_a": list(by["eo-rag-large"][:1]),
            "response_b": list(by["keyword-baseline"][:1]),
            "rater": "nb-src",
            "rubric": "pairwise",
            "verdict": ["A"],
        }
    )
    db.add_preferences(votes)
    assert _sources(sample_store, "nb-src", "preferences") == ["notebook"]


def test_the_source_round_trips_and_an_import_names_itself(
    sample_store: Store, store: Store, tmp_path: Path
) -> None:
    db = notebook.open_database(sample_store.url, wait_s=TEST_WAIT_S)
    (answer,) = _unrated(db, 1)
    db.add_ratings(
        pd.DataFrame(
            {"response_id": [answer], "rater": "nb-trip", "rubric": "likert-rag", "value": [2.0]}
        )
    )
    files = export(sample_store, tmp_path / "out.jsonl", dataset="eo-rag").files
    rows = [json.loads(line) for line in Path(files["ratings"]).read_text().splitlines()]
    mine = [r for r in rows if r["rater"] == "nb-trip"]
    assert [r["source"] for r in mine] == ["notebook"]
    import_path(store, files["ratings"])
    assert _sources(store, "nb-trip") == ["notebook"]
    # the same rows without the column (a new rater, a new id): written by the import
    dropped = ("source", "rating_id", "supersedes")
    bare = tmp_path / "bare.ratings.jsonl"
    bare.write_text(
        "".join(
            json.dumps({k: v for k, v in r.items() if k not in dropped} | {"rater": "imp-nb"})
            + "\n"
            for r in mine
        )
    )
    import_path(store, bare)
    assert _sources(store, "imp-nb") == ["import"]
