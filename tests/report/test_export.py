"""`judgeboard export`: every item, response, rating and preference with provenance, read back
by the importer."""

from __future__ import annotations

import csv
import json
from datetime import timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dashboard import export as export_module
from dashboard.cli import main
from dashboard.export import export_sql
from dashboard.export.export_sql import ExportCounts
from dashboard.export.files import ExportError, export, export_bytes, export_paths, format_of
from dashboard.ingest import import_path
from dashboard.metrics import overview
from dashboard.metrics.output import metrics_json
from dashboard.metrics.selection import Selection
from dashboard.store import Store
from dashboard.types import Rating
from tests import builders
from tests.conftest import TEST_WAIT_S

FORMATS = ("csv", "jsonl", "parquet")
# Nobody rated eo-mcqa and eo-hallucination: the export carries their responses all the same.
DATASETS = (None, "eo-rag", "eo-conversational", "eo-mcqa", "eo-hallucination")
RATING_FIELDS = (
    "dataset",
    "task_type",
    "question",
    "reference_answers",
    "reference_context",
    "document",
    "candidate_answer",
    "options",
    "gold_letters",
    "hallucination_gold",
    "history",
    "external_id",
    "item_metadata",
    "system",
    "answer",
    "contexts",
    "response_metadata",
    "rater_kind",
    "rater",
    "rubric",
    "rubric_version",
    "value",
    "scale_low",
    "scale_high",
    "unscored_reason",
    "explanation",
    "raw_output",
    "comment",
    "selection",
    "inclusion_probability",
    "campaign",
    "blind",
    "source",
    "created_utc",
    "rating_id",
    "supersedes",
    "overrides",
)
PROVENANCE = (
    "is_current",
    "effective_score",
    "effective_source",
    "call_id",
    "response_id",
    "item_id",
)


def correct_ana(store: Store) -> tuple[dict, Rating]:
    """ana changes her mind on one response she rated: a new rating that supersedes hers and
    overrides the judge's rating of that response."""
    with store.connection() as con:
        rows = export_sql.read_records(con, "ratings", dataset="eo-rag")
    old = next(r for r in rows if r["rater"] == "ana" and r["value"] != 5)
    judge = next(
        r for r in rows if r["response_id"] == old["response_id"] and r["rater_kind"] == "llm"
    )
    new = Rating(
        "ana-correction-1",
        old["response_id"],
        "human",
        "ana",
        "likert-rag",
        "1",
        5.0,
        1.0,
        5.0,
        created_utc=old["created_utc"] + timedelta(days=1),
        comment="on second reading, it is right",
        overrides=judge["rating_id"],
    )
    store.add_ratings([new])
    return old, new


def reimport(files: dict[str, Path], target: Path) -> Store:
    fresh = Store(target, wait_s=TEST_WAIT_S)
    import_path(fresh, files["ratings"])  # either order works (tests/ingest/test_roundtrip.py)
    import_path(fresh, files["preferences"])
    return fresh


def current_ratings(store: Store) -> list[tuple]:
    with store.connection() as con:
        return con.execute("""SELECT rating_id, response_id, rater, value, supersedes, overrides,
                              created_utc FROM current_ratings ORDER BY rating_id""").fetchall()


@pytest.mark.parametrize("fmt", FORMATS)
def test_export_round_trips_to_the_same_metrics(judged_store, tmp_path, fmt):
    correct_ana(judged_store)
    result = export(judged_store, tmp_path / f"results.{fmt}")
    assert set(result.files) == {"ratings", "preferences"}
    fresh = reimport(result.files, tmp_path / "fresh.duckdb")
    for dataset in DATASETS:
        _, _, before = metrics_json.compute(judged_store, Selection(dataset))
        _, _, after = metrics_json.compute(fresh, Selection(dataset))
        assert after == before, dataset  # every system's numbers, calibration and pairwise
        if dataset == "eo-rag":  # the comparison covers people, judges, pairs and calibration
            assert {
                "systems.eo-rag-large.human",
                "systems.eo-rag-large.bradley_terry.judges",
                "calibration.panel.kappa_quadratic",
                "calibration.people.ana.ben.exact",
                "pairwise.eo-rag-large.eo-rag-small.win_rate.judges",
            } <= set(before["metrics"])
    assert current_ratings(fresh) == current_ratings(judged_store)
    with judged_store.connection() as a, fresh.connection() as b:
        query = "SELECT count(*), count(supersedes) FROM {}"
        for table in ("ratings", "preferences"):
            assert (
                b.execute(query.format(table)).fetchall()
                == a.execute(query.format(table)).fetchall()
            )


def test_ratings_carry_provenance_and_supersession(judged_store, tmp_path):
    old, new = correct_ana(judged_store)
    files = export(judged_store, tmp_path / "results.csv", dataset="eo-rag").files
    with open(files["ratings"], newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames) == RATING_FIELDS + PROVENANCE
        rows = {r["rating_id"]: r for r in reader}
    before, after = rows[old["rating_id"]], rows[new.rating_id]
    assert (before["is_current"], after["is_current"]) == ("false", "true")
    assert after["supersedes"] == old["rating_id"] and after["overrides"] == new.overrides
    assert (after["rater_kind"], after["rater"], after["rubric_version"]) == ("human", "ana", "1")
    assert after["created_utc"].endswith("Z") and after["created_utc"].startswith(
        new.created_utc.strftime("%Y-%m-%dT%H:%M:%S")
    )
    assert json.loads(after["reference_answers"])  # a list, JSON-encoded for CSV
    # The effective score is the mean of people's current ratings (ana's new 5, and ben's
    # if he rated it), normalized; the superseded row shows the response's score too.
    people = [
        float(r["value"])
        for r in rows.values()
        if r["response_id"] == old["response_id"]
        and r["rater_kind"] == "human"
        and r["is_current"] == "true"
    ]
    expected = sum((v - 1) / 4 for v in people) / len(people)
    assert float(after["effective_score"]) == pytest.approx(expected)
    assert before["effective_score"] == after["effective_score"]
    assert after["effective_source"] == "human"
    judged = next(r for r in rows.values() if r["rater_kind"] == "llm" and r["call_id"])
    assert judged["is_current"] == "true" and judged["explanation"]


def test_effective_scores_average_to_the_overviews(judged_store):
    with judged_store.connection() as con:
        rows = export_sql.read_records(con, "ratings", dataset="eo-rag")
    per_response = {
        (r["system"], r["response_id"]): r["effective_score"]
        for r in rows
        if r["rubric"] == "likert-rag" and r["is_current"]
    }
    view = overview.overview(judged_store, Selection("eo-rag", "likert-rag"))
    for row in view.systems:
        scores = [v for (s, _), v in per_response.items() if s == row.system]
        assert len(scores) == row.score("effective").n == 40
        assert sum(scores) / len(scores) == pytest.approx(row.score("effective").value, abs=1e-9)


def test_preferences_carry_provenance(judged_store, tmp_path):
    files = export(judged_store, tmp_path / "results.parquet", dataset="eo-rag").files
    table = pq.read_table(files["preferences"]).to_pylist()
    pairs = {(r["response_a"], r["response_b"]) for r in table}
    assert len(table) == 2 * len(pairs) >= 80  # each pair asked in both orders
    first = table[0]
    for name in (
        "system_a",
        "answer_a",
        "system_b",
        "answer_b",
        "verdict",
        "shown_first",
        "selection",
        "campaign",
        "blind",
        "source",
        "rater_kind",
        "rater",
        "rubric",
        "rubric_version",
        "created_utc",
        "preference_id",
        "supersedes",
        "is_current",
        "call_id",
    ):
        assert name in first
    assert {r["shown_first"] for r in table} == {"A", "B"}
    assert all(r["is_current"] and r["rater"] == "baseline" for r in table)
    ratings = pq.read_table(files["ratings"])
    assert ratings.schema.field("created_utc").type.unit == "us"  # a real timestamp


def test_a_kind_without_rows_writes_no_file(store, tmp_path, capsys):
    builders.two_systems(store)
    out = tmp_path / "out" / "toy.jsonl"
    assert main(["--db", store.url, "export", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    # two_systems: 6 responses x 2 judges, and 4 labels of ana
    assert "ratings: 16 rows ->" in printed
    assert "preferences: 0 rows (no file written)" in printed
    assert sorted(p.name for p in out.parent.iterdir()) == ["toy.ratings.jsonl"]
    assert main(["--db", store.url, "export", "--out", str(tmp_path / "x.txt")]) == 2
    assert "end the name in" in capsys.readouterr().err


def test_download_bytes_equal_the_exported_file(judged_store, tmp_path):
    files = export(judged_store, tmp_path / "r.parquet", dataset="eo-rag").files
    data = export_bytes(judged_store, "ratings", fmt="parquet", dataset="eo-rag")
    assert pq.read_table(files["ratings"]).equals(pq.read_table(pa.BufferReader(data)))
    assert export_bytes(judged_store, "preferences", fmt="csv", dataset="eo-mcqa") == b""


def test_paths_and_formats():
    paths = export_paths(Path("/x/results.parquet"))
    assert paths == {
        "ratings": Path("/x/results.ratings.parquet"),
        "preferences": Path("/x/results.preferences.parquet"),
        "responses": Path("/x/results.responses.parquet"),
        "tags": Path("/x/results.tags.parquet"),
    }
    assert export_paths(Path("r.ratings.csv"))["preferences"] == Path("r.preferences.csv")
    assert [format_of(Path(f"a.{s}")) for s in ("csv", "JSONL", "ndjson", "pq")] == [
        "csv",
        "jsonl",
        "jsonl",
        "parquet",
    ]
    with pytest.raises(ExportError, match="end the name in"):
        format_of(Path("a.xlsx"))
    assert export_module.download_name("ratings", fmt="csv", dataset="eo rag/1") == (
        "judgeboard-eo_rag_1.ratings.csv"
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_column_is_one_the_importer_knows(judged_store, tmp_path, fmt):
    # What the export writes is a field of its format (the ids are used) or a column the
    # format reads and drops (derived ones); none is left over for the item's metadata.
    from dashboard.ingest.formats import FORMATS as IMPORT_FORMATS
    from dashboard.ingest.read_sql import describe

    files = export(judged_store, tmp_path / f"results.{fmt}").files
    for kind, path in files.items():
        with judged_store.connection() as con:
            columns = [name for name, _ in describe(con, fmt, str(path), size_bytes=0)]
        known = IMPORT_FORMATS[kind]
        assert set(columns) <= {f.name for f in known.fields} | known.ignore, kind
        assert {"item_id", "is_current", "call_id"} <= set(columns)


def test_jsonl_keeps_columns_that_are_null_on_every_row(judged_store, tmp_path):
    # eo-rag has no MCQA options, hallucination gold or history: those columns are null on
    # every row, and are written all the same (the importer reads them).
    files = export(judged_store, tmp_path / "results.jsonl", dataset="eo-rag").files
    lines = files["ratings"].read_text(encoding="utf-8").splitlines()
    assert all(tuple(json.loads(line)) == RATING_FIELDS + PROVENANCE for line in lines)
    assert all(json.loads(line)["options"] is None for line in lines)


def test_responses_nobody_rated_are_rows_without_a_rating(judged_store, tmp_path, capsys):
    out = tmp_path / "mcqa.csv"
    assert (
        main(["--db", judged_store.url, "export", "--dataset", "eo-mcqa", "--out", str(out)]) == 0
    )
    printed = capsys.readouterr().out
    assert "ratings: 36 rows (36 of them items or responses nobody rated) ->" in printed
    assert "preferences: 0 rows (no file written)" in printed
    with open(tmp_path / "mcqa.ratings.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len({r["response_id"] for r in rows}) == 36
    assert all(r["rater"] == r["value"] == r["is_current"] == "" for r in rows)
    assert all(json.loads(r["options"]) and json.loads(r["gold_letters"]) for r in rows)
    assert export_module.export_counts(judged_store, dataset="eo-mcqa") == ExportCounts(
        ratings=36, preferences=0, without_rating=36, responses=36
    )


def test_help_says_what_the_export_holds(capsys):
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "every item and response" in text
    assert "response nobody rated" in text
    assert "with no options" in text


def test_rated_only_leaves_out_what_nobody_rated(judged_store, tmp_path, capsys):
    out = tmp_path / "mcqa.csv"
    args = ["--db", judged_store.url, "export", "--dataset", "eo-mcqa", "--out", str(out)]
    assert main([*args, "--rated-only"]) == 0
    assert "ratings: 0 rows (no file written)" in capsys.readouterr().out
    assert not (tmp_path / "mcqa.ratings.csv").exists()
    rag = export(judged_store, tmp_path / "rag.jsonl", dataset="eo-rag", unrated=False)
    whole = export(judged_store, tmp_path / "all.jsonl", unrated=False)
    with judged_store.connection() as con:
        rated = con.execute("SELECT count(*) FROM ratings").fetchone()[0]
    # every rating, and no row without one
    assert whole.rows["ratings"] == rated and whole.without_rating == 0
    assert rag.rows["ratings"] > 0


def test_one_row_per_response_with_its_scores_side_by_side(judged_store, tmp_path, capsys):
    out = tmp_path / "wide.csv"
    args = ["--db", judged_store.url, "export", "--dataset", "eo-rag", "--out", str(out)]
    assert main([*args, "--per-response"]) == 0
    assert "responses: 120 rows" in capsys.readouterr().out
    with open(tmp_path / "wide.responses.csv", newline="", encoding="utf-8") as handle:
        rows = {r["response_id"]: r for r in csv.DictReader(handle)}
    assert len(rows) == 120
    with judged_store.connection() as con:
        current = con.execute(
            "SELECT response_id, rater, value FROM current_ratings JOIN responses "
            "USING (response_id) WHERE dataset = 'eo-rag' AND rubric = 'likert-rag' "
            "AND value IS NOT NULL"
        ).fetchall()
    assert current
    for response_id, rater, value in current:
        assert float(rows[response_id][f"likert-rag:{rater}"]) == value
    # the effective score: people's mean where someone rated, else the panel's (0-1)
    view = overview.overview(judged_store, Selection("eo-rag", "likert-rag"))
    for system in view.systems:
        scores = [
            float(r["likert-rag:effective"]) for r in rows.values() if r["system"] == system.system
        ]
        assert sum(scores) / len(scores) == pytest.approx(system.score("effective").value)
    # an unrated response is a row with empty scores only when asked for
    with judged_store.connection() as con:
        wide = export_sql.read_records(con, "responses", dataset="eo-mcqa", unrated=True)
        rated = export_sql.read_records(con, "responses", dataset="eo-mcqa", unrated=False)
    assert len(wide) == 36 and rated == []
