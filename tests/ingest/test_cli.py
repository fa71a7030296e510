"""`judgeboard import` as a user runs it: a subprocess, its exit status and its messages."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from dashboard.store import Store
from tests.ingest.conftest import Writer, query, snapshot
from tests.paths import REPO_ROOT, SHARED_DATA

# What the `judgeboard` console script runs.
ENTRY = "import sys; from dashboard.cli import main; sys.exit(main())"


def judgeboard(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", ENTRY, "--db", str(db), *args],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=300,
    )


def test_import_then_reimport(tmp_path: Path, write: Writer) -> None:
    db = tmp_path / "cli.duckdb"
    path = write(
        "runs.csv", [{"prompt": "What is SAR?", "output": "A radar.", "reference": "Radar."}]
    )
    args = (
        "import",
        str(path),
        "--dataset",
        "eo",
        "--system",
        "s",
        "--map",
        "question=prompt",
        "--map",
        "answer=output",
        "--map",
        "gt_answer=reference",
    )
    first = judgeboard(db, *args)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip().splitlines() == [
        f"{path}: 1 records as rag into eo: added 1 items, 1 responses",
        # then the reference-based metrics of the new response are computed at once
        "scored 1 responses against their references",
    ]
    again = judgeboard(db, *args)
    assert again.returncode == 0
    assert "added nothing new (2 rows already stored)" in again.stdout
    assert "scored" not in again.stdout  # nothing new to score


def test_no_scored_line_without_references(tmp_path: Path, write: Writer) -> None:
    # An answer with no reference gets no reference metric: the import scored nothing (the
    # line used to count every new response, references or not).
    path = write("plain.jsonl", [{"question": "q", "answer": "a"}])
    result = judgeboard(tmp_path / "cli.duckdb", "import", str(path), "--system", "s")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines() == [
        f"{path}: 1 records as rag into plain: added 1 items, 1 responses"
    ]


def test_bad_input_exits_non_zero_and_changes_nothing(tmp_path: Path, write: Writer) -> None:
    db = tmp_path / "cli.duckdb"
    good = write("good.jsonl", [{"question": "q", "answer": "a"}])
    assert judgeboard(db, "import", str(good), "--system", "s").returncode == 0
    before = snapshot(Store(db))
    bad = write("bad.jsonl", [{"question": "q2", "answer": "a"}, {"question": "q3"}])
    result = judgeboard(db, "import", str(bad), "--system", "s")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"judgeboard import: error: {bad}: line 2 (record 2): "
        "field 'answer': is missing (nothing was imported)"
    )
    assert result.stdout == ""
    assert snapshot(Store(db)) == before


def test_bad_map_option_is_a_usage_error(tmp_path: Path, write: Writer) -> None:
    path = write("x.jsonl", [{"question": "q", "answer": "a"}])
    result = judgeboard(tmp_path / "cli.duckdb", "import", str(path), "--map", "question")
    assert result.returncode == 2
    assert "expected TARGET=SOURCE" in result.stderr
    assert 'system_a="gpt-4o"' in result.stderr  # the message shows each form


def test_real_folder_by_hand(tmp_path: Path) -> None:
    result = judgeboard(tmp_path / "cli.duckdb", "import", str(SHARED_DATA / "pandalm"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert lines[0].endswith(
        "999 records as pandalm into pandalm: added 999 items, 1,998 responses, 2,997 preferences"
    )
    # the two judge files; no "scored" line: PandaLM's pairs have no reference answers
    assert len(lines) == 3 and not any("scored" in line for line in lines)


def test_the_documented_mapping_example_runs(tmp_path: Path) -> None:
    # docs/formats.md shows a CSV of labels and the command that imports it: run both.
    docs = (REPO_ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    blocks = docs.split("```\n")[1::2]  # the fenced blocks without a language
    csv = next(b for b in blocks if b.startswith("prompt,left,right,label\n"))
    command = next(b for b in blocks if b.startswith("judgeboard import labels.csv"))
    (tmp_path / "labels.csv").write_text(csv, encoding="utf-8")
    args = shlex.split(command.replace("\\\n", " "))[1:]
    db = tmp_path / "docs.duckdb"
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "--db", str(db), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "labels.csv: 3 records as pairwise into labels: added 3 items, 6 responses, 3 preferences"
    )
    rows = query(
        Store(db),
        """SELECT i.question, p.verdict, a.system, b.system FROM preferences p
        JOIN items i USING (item_id) JOIN responses a ON a.response_id = p.response_a
        JOIN responses b ON b.response_id = p.response_b ORDER BY 1""",
    )
    assert rows == [
        ("q1", "A", "gpt-4o", "claude"),
        ("q2", "B", "gpt-4o", "claude"),
        ("q3", "tie", "gpt-4o", "claude"),
    ]
