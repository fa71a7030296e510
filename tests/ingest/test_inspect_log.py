"""An Inspect log made here with Inspect's mock model, read into the `ratings` format and
imported: its counts, and the mean of its scores equal to Inspect's own accuracy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dashboard.ingest import import_path
from dashboard.ingest.tools.inspect_log import inspect_records
from tests.ingest.inspect_logs import make_inspect_log


def test_inspect_log_imports_with_its_accuracy(store, tmp_path: Path) -> None:
    log_path = make_inspect_log(tmp_path / "logs")
    from inspect_ai.log import read_eval_log

    accuracy = read_eval_log(str(log_path)).results.scores[0].metrics["accuracy"].value
    records = inspect_records(log_path)
    out = tmp_path / "inspect.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    report = import_path(store, out, fmt="ratings")
    (file,) = report.files
    # 3 samples x 2 epochs: two epochs with the same answer stay two responses.
    assert file.added["items"] == 3
    assert file.added["responses"] == 6
    assert file.added["ratings"] == 6
    values = [r["value"] for r in records]
    # Every sample has 2 epochs, so the mean over epochs then samples is the plain mean.
    assert sum(values) / len(values) == pytest.approx(accuracy) == pytest.approx(0.5)


def test_labels_go_back_as_score_edits_with_their_author(tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log

    from dashboard.ingest.tools.inspect_edits import InspectLabel, write_labels

    log_path = make_inspect_log(tmp_path / "logs")
    # q3 epoch 1 was scored I (0); a person says it is right.
    label = InspectLabel("q3", 1, "match", 1.0, "ana", "green or blue both fit")
    assert write_labels(log_path, [label]) == 1
    log = read_eval_log(str(log_path))
    (sample,) = [s for s in log.samples or [] if s.id == "q3" and s.epoch == 1]
    score = sample.scores["match"]
    assert score.value == 1.0
    assert score.history[0].value == "I"  # the scorer's own value kept
    provenance = score.history[-1].provenance
    assert provenance is not None and provenance.author == "ana"
    assert provenance.reason == "green or blue both fit"
    # Inspect recomputes its metric: 4 of 6 right -> q1 1, q2 0.5, q3 0.5: mean 2/3.
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(2 / 3)


def test_import_detects_inspect_logs_eval_and_json(
    store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspect_ai.log import read_eval_log, write_eval_log

    from dashboard.cli import main

    log_path = make_inspect_log(tmp_path / "logs")
    assert main(["--db", store.url, "import", str(log_path)]) == 0
    out = capsys.readouterr().out
    assert log_path.name in out and "ratings" in out
    assert "added 3 items, 6 responses, 6 ratings" in out
    # The same log as Inspect's .json, in a folder (into a new store): not skipped as a
    # summary, and read to the same counts.
    folder = tmp_path / "json"
    folder.mkdir()
    as_json = folder / "run.json"
    write_eval_log(read_eval_log(str(log_path)), str(as_json))
    assert as_json.read_text().count("\n") > 10  # one object over many lines
    other = tmp_path / "other.duckdb"
    assert main(["--db", str(other), "import", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "run.json: 6 records as ratings into json" in out
    assert "added 3 items, 6 responses, 6 ratings" in out


def test_a_broken_inspect_log_is_named(store, tmp_path: Path, capsys) -> None:
    from dashboard.cli import main

    bad = tmp_path / "broken.eval"
    bad.write_bytes(b"not a zip")
    assert main(["--db", store.url, "import", str(bad)]) != 0
    err = capsys.readouterr().err
    assert "broken.eval" in err and "Inspect log" in err and "Traceback" not in err


def test_annotate_labels_go_back_into_the_log_with_their_author(
    store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspect_ai.log import read_eval_log

    from dashboard.cli import main
    from dashboard.review import annotation

    log_path = make_inspect_log(tmp_path / "logs")
    assert main(["--db", store.url, "import", str(log_path)]) == 0
    capsys.readouterr()
    (q3,) = [s for s in read_eval_log(str(log_path)).samples or [] if (s.id, s.epoch) == ("q3", 1)]
    with store.connection() as con:
        response_id, version = con.execute(
            "SELECT r.response_id, c.rubric_version FROM responses r JOIN current_ratings c "
            "USING (response_id) WHERE json_extract_string(r.metadata, '$.inspect_uuid') = ?",
            [q3.uuid],
        ).fetchone()
    # What the Annotate page stores on Save: a person's rating, then save_rating.
    label = annotation.human_rating(
        response_id,
        annotator="ana",
        rubric="match",
        rubric_version=version,
        value=1.0,
        scale=(0.0, 1.0),
        comment="green or blue both fit",
    )
    annotation.save_rating(store, label)
    assert main(["--db", store.url, "export", "--to", "inspect", str(log_path)]) == 0
    assert "1 score edits written" in capsys.readouterr().out
    assert [p.name for p in log_path.parent.iterdir()] == [log_path.name]  # no partial left
    log = read_eval_log(str(log_path))
    (sample,) = [s for s in log.samples or [] if (s.id, s.epoch) == ("q3", 1)]
    score = sample.scores["match"]
    assert score.value == 1.0 and score.history[0].value == "I"
    provenance = score.history[-1].provenance
    assert provenance is not None and provenance.author == "ana"
    assert provenance.reason == "green or blue both fit"
    untouched = [s for s in log.samples or [] if (s.id, s.epoch) != ("q3", 1)]
    assert all(len(s.scores["match"].history) == 0 for s in untouched)


def test_export_to_inspect_needs_a_readable_log(store, tmp_path: Path, capsys) -> None:
    from dashboard.cli import main

    bad = tmp_path / "broken.eval"
    bad.write_bytes(b"not a zip")
    assert main(["--db", store.url, "export", "--to", "inspect", str(bad)]) != 0
    err = capsys.readouterr().err
    assert "broken.eval" in err and "Inspect log" in err and "Traceback" not in err
    assert bad.read_bytes() == b"not a zip"
