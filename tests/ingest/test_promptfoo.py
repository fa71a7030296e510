"""A promptfoo results file made by the real promptfoo (tests/data/promptfoo/README.md says
how), imported without --format: its counts, its assertions' ratings, the person's rating
given in promptfoo's viewer, and the pass rates promptfoo itself wrote in the file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dashboard.cli import main
from dashboard.ingest import IngestError, import_path
from dashboard.store import Store
from tests.ingest.conftest import query
from tests.paths import TEST_DATA

RESULTS = TEST_DATA / "promptfoo" / "results.json"


def _file() -> dict:
    return json.loads(RESULTS.read_text(encoding="utf-8"))


def test_promptfoo_results_import_without_format(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--db", store.url, "import", str(RESULTS)]) == 0
    out = capsys.readouterr().out
    # 6 outputs, each with 2 assertions and promptfoo's verdict, and 1 person's rating.
    assert "results.json: 19 records as ratings into promptfoo" in out
    assert "added 3 items, 6 responses, 19 ratings" in out


def test_pass_rates_match_promptfoos_own(store: Store) -> None:
    import_path(store, RESULTS)
    found = _file()["results"]
    # A person's rating overrides promptfoo's verdict in its pass rate, as in its viewer.
    effective = """
        SELECT r.system, avg(coalesce(h.value, p.value)) FROM responses r
        JOIN current_ratings p ON p.response_id = r.response_id AND p.rater = 'promptfoo'
        LEFT JOIN current_ratings h ON h.response_id = r.response_id AND h.rater_kind = 'human'
        WHERE p.rubric = 'promptfoo-pass' GROUP BY ALL ORDER BY ALL"""
    by_system = dict(query(store, effective))
    for column in found["prompts"]:
        metrics = column["metrics"]
        total = metrics["testPassCount"] + metrics["testFailCount"] + metrics["testErrorCount"]
        assert by_system[column["provider"]] == pytest.approx(metrics["testPassCount"] / total)
    stats = found["stats"]
    overall = stats["successes"] / (stats["successes"] + stats["failures"] + stats["errors"])
    everything = effective.replace("r.system, ", "").replace("GROUP BY ALL ORDER BY ALL", "")
    assert query(store, everything) == [(pytest.approx(overall),)]
    assert overall == 0.5  # 3 of 6 passed, one of them by the person's rating


def test_assertions_become_ratings_with_their_reasons(store: Store) -> None:
    import_path(store, RESULTS)
    components = [
        c for r in _file()["results"]["results"] for c in r["gradingResult"]["componentResults"]
    ]
    rubric = [c for c in components if c["assertion"]["type"] == "llm-rubric"]
    rows = query(
        store,
        "SELECT rater, rater_kind, value, explanation FROM current_ratings "
        "WHERE rubric = 'llm-rubric' ORDER BY value, explanation",
    )
    # The judge is the grading provider the test names.
    assert {(r[0], r[1]) for r in rows} == {("file://grader.js", "llm")}
    assert sorted((r[2], r[3]) for r in rows) == sorted((c["score"], c["reason"]) for c in rubric)
    contains = [c["score"] for c in components if c["assertion"]["type"] == "contains"]
    assert query(
        store,
        "SELECT count(*), avg(value) FROM current_ratings WHERE rater = 'promptfoo:contains'",
    ) == [(len(contains), pytest.approx(sum(contains) / len(contains)))]


def test_the_viewers_rating_is_a_persons_label(store: Store) -> None:
    import_path(store, RESULTS)
    assert query(
        store,
        "SELECT r.system, r.answer, c.rater, c.rubric, c.value, c.comment FROM current_ratings c "
        "JOIN responses r USING (response_id) WHERE c.rater_kind = 'human'",
    ) == [
        (
            "shout",
            "THE CAPITAL OF ITALY IS ROME?",
            "promptfoo-viewer",
            "promptfoo-pass",
            1.0,
            "names Rome; the shouting is fine",
        )
    ]
    # promptfoo's own verdict on that output stays its assertions': `contains Rome` failed.
    assert query(
        store,
        "SELECT c.value FROM current_ratings c JOIN responses r USING (response_id) "
        "WHERE c.rater = 'promptfoo' AND r.answer = 'THE CAPITAL OF ITALY IS ROME?'",
    ) == [(0.0,)]


def test_one_provider_under_two_prompts_is_two_systems(store: Store, tmp_path: Path) -> None:
    data = _file()
    for result in data["results"]["results"]:
        if result["provider"]["id"] == "shout":  # as if shout had answered another prompt
            result["promptId"] = "other"
            result["provider"]["id"] = "echo"
    path = tmp_path / "two_prompts.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    report = import_path(store, path)
    assert report.files[0].added["items"] == 3
    assert query(store, "SELECT DISTINCT system FROM responses ORDER BY 1") == [
        ("echo (prompt 1)",),
        ("echo (prompt 2)",),
    ]


def test_bad_promptfoo_files_are_named(store: Store, tmp_path: Path) -> None:
    data = _file()
    data["results"]["results"][3]["gradingResult"]["componentResults"][1]["score"] = 7
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(IngestError) as error:
        import_path(store, bad)
    assert "bad.json" in str(error.value) and "record 4" in str(error.value)
    assert "componentResults[1].score" in str(error.value)
    cut = tmp_path / "cut.json"
    cut.write_text(RESULTS.read_text(encoding="utf-8")[:5000], encoding="utf-8")
    with pytest.raises(IngestError, match="cut.json: not a readable promptfoo results file"):
        import_path(store, cut)
    copy = tmp_path / "run.json"
    shutil.copy(RESULTS, copy)
    with pytest.raises(IngestError, match="--map does not apply"):
        import_path(store, copy, mapping={"question": "x"})
    assert query(store, "SELECT count(*) FROM items") == [(0,)]
