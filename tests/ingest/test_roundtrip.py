"""What `judgeboard export` writes imports back to the same database: every item, response,
rating and preference, and so the same metrics on every dataset."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from dashboard.cli import main
from dashboard.export.files import export
from dashboard.ingest import import_path
from dashboard.metrics.output import metrics_json
from dashboard.metrics.reference import refresh_auto_scores
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from dashboard.types import Item, Rating, Response
from tests.conftest import TEST_WAIT_S
from tests.ingest.conftest import Writer, query

RATING_ROWS = """SELECT rating_id, response_id, rater_kind, rater, rubric, rubric_version, value,
    scale_low, scale_high, unscored_reason, explanation, raw_output, comment, supersedes,
    overrides, call_id, created_utc, selection, inclusion_probability, campaign, blind
    FROM ratings ORDER BY rating_id"""
PREFERENCE_ROWS = """SELECT preference_id, item_id, response_a, response_b, rater_kind, rater,
    rubric, rubric_version, verdict, shown_first, unscored_reason, explanation, raw_output,
    comment, supersedes, call_id, created_utc, selection, inclusion_probability, campaign, blind
    FROM preferences ORDER BY preference_id"""
# Whole tables but for when the rows were written. JSON columns compared as values: an
# import writes them compact, while code may have written them with spaces.
ITEMS = """SELECT * EXCLUDE (created_utc, history, metadata), json(history) AS history,
    json(metadata) AS metadata FROM items ORDER BY item_id"""
RESPONSES = """SELECT * EXCLUDE (created_utc, metadata), json(metadata) AS metadata
    FROM responses ORDER BY response_id"""
COUNTS = """SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM responses),
    (SELECT count(*) FROM ratings), (SELECT count(*) FROM current_ratings),
    (SELECT count(*) FROM preferences), (SELECT count(*) FROM current_preferences)"""
T0 = datetime(2024, 5, 1, 9, 30, 15, 123456)


def _enrich(store: Store, write: Writer) -> None:
    """Add what the sample lacks: a judge's corrected rating, an unscored one, a person
    overriding a judge, items made by code with their own ids (one with every task type's
    field, one with empty strings, one without responses), metadata of different shapes,
    and pairs with and without a verdict."""
    [(response_id,)] = query(
        store, "SELECT response_id FROM responses ORDER BY response_id LIMIT 1"
    )
    first = Rating(
        "j1",
        response_id,
        "llm",
        "judge-a",
        "likert-rag",
        "1",
        2.0,
        1,
        5,
        created_utc=T0,
        raw_output="Rating: 2",
        call_id="call-1",
    )
    second = Rating(
        "j2",
        response_id,
        "llm",
        "judge-a",
        "likert-rag",
        "1",
        None,
        1,
        5,
        created_utc=T0 + timedelta(hours=1),
        unscored_reason="no rating marker",
    )
    person = Rating(
        "h1",
        response_id,
        "human",
        "ana",
        "likert-rag",
        "1",
        5.0,
        1,
        5,
        created_utc=T0 + timedelta(hours=2),
        overrides="j2",
        comment="clearly fine",
        selection="random",
        inclusion_probability=0.25,
        campaign="spring",
        blind=True,
    )
    store.add_ratings([first, second, person])
    everything = Item(
        "code-item",
        "eo-rag",
        "open_qa",
        "Made by code?",
        reference_answers=("yes", ""),
        reference_context="",
        document="d.pdf",
        candidate_answer="",
        options=("one", "two"),
        gold_letters=("B",),
        hallucination_gold=False,
        history=({"role": "user", "content": "hi"},),
        external_id="",
        metadata={"tags": ["a"], "n": 1},
    )
    alone = Item(
        "lonely-item",
        "eo-mcqa",
        "mcqa_single",
        "Nobody answered?",
        options=("x", "y"),
        gold_letters=("A",),
        metadata={"other": None},
    )
    responses = [
        Response(
            "code-response",
            "code-item",
            "eo-rag",
            "s",
            "yes",
            contexts=("c1", ""),
            metadata={"latency_ms": 12},
        ),
        Response("empty-response", "code-item", "eo-rag", "s", ""),
    ]
    store.add_items([everything, alone], responses)
    store.add_ratings(
        [
            Rating(
                "c1",
                "code-response",
                "human",
                "bo",
                "likert-rag",
                "1",
                3.0,
                1,
                5,
                created_utc=T0,
                selection="targeted",
                blind=False,
            )
        ]
    )
    pairs = [
        {
            "question": "Which is better?",
            "answer_a": "one",
            "answer_b": "two",
            "system_a": "x",
            "system_b": "y",
            "winner": w,
            "rater": r,
            "selection": s,
            "campaign": "pairs-1",
        }
        for w, r, s in (("A", "ana", "census"), ("tie", "bo", None))
    ]
    pairs.append(
        {
            "question": "Never compared?",
            "answer_a": "three",
            "answer_b": "four",
            "system_a": "x",
            "system_b": "y",
        }
    )
    import_path(store, write("pairs.jsonl", pairs), dataset="eo-pairs")
    refresh_auto_scores(store)  # as an import does for what it adds; code's items need it too


def _metrics(store: Store) -> dict[str | None, dict]:
    datasets = [d.name for d in store.list_datasets()]
    return {name: metrics_json.compute(store, Selection(name))[2] for name in [None, *datasets]}


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_the_whole_database_round_trips(
    sample_store: Store, write: Writer, tmp_path: Path, suffix: str
) -> None:
    _enrich(sample_store, write)
    result = export(sample_store, tmp_path / "export" / f"out{suffix}")
    fresh = Store(tmp_path / "fresh.duckdb", wait_s=TEST_WAIT_S)
    # As a person would, with no options; preferences first, since either order works.
    for kind in ("preferences", "ratings"):
        assert main(["--db", str(fresh.path), "import", str(result.files[kind])]) == 0
    assert query(fresh, COUNTS) == query(sample_store, COUNTS)
    assert {d.name for d in fresh.list_datasets()} == {
        "eo-rag",
        "eo-mcqa",
        "eo-hallucination",
        "eo-conversational",
        "eo-pairs",
    }
    for table in (ITEMS, RESPONSES, RATING_ROWS, PREFERENCE_ROWS):
        assert query(fresh, table) == query(sample_store, table)
    before, after = _metrics(sample_store), _metrics(fresh)
    assert after == before
    # MCQA, hallucination and QA scores of responses nobody rated came through too.
    names = set(before[None]["metrics"])
    for name in (
        "systems.eo-rag-large.mcqa_accuracy",
        "systems.eo-rag-large.mcqa_iou",
        "systems.eo-rag-large.hallucination_f1",
        "systems.eo-rag-large.em",
    ):
        assert name in names
    # Importing the export into the database it came from adds nothing.
    for kind in ("ratings", "preferences"):
        assert sum(import_path(sample_store, result.files[kind]).added.values()) == 0


def test_a_folder_holding_an_export_imports_whole(sample_store: Store, tmp_path: Path) -> None:
    result = export(sample_store, tmp_path / "export" / "out.jsonl")
    fresh = Store(tmp_path / "fresh.duckdb", wait_s=TEST_WAIT_S)
    report = import_path(fresh, tmp_path / "export")
    assert report.formats == ("preferences", "ratings")
    assert query(fresh, COUNTS) == query(sample_store, COUNTS)
    assert query(fresh, ITEMS) == query(sample_store, ITEMS)
    assert result.without_rating == 72  # the 36 MCQA and 36 hallucination responses
