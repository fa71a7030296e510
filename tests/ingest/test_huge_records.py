"""A record past the documented size (64 MB, or --max-record-mb / JUDGEBOARD_MAX_RECORD_MB) is
refused before DuckDB reads the file, naming the file and the line (or array element), with
memory bounded by the scan's chunk, not by the record."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dashboard.ingest import IngestError, import_path
from dashboard.ingest.sizes import MAX_RECORD_ENV, first_long_element, first_long_line
from dashboard.store import Store
from tests.ingest.conftest import rating_record, snapshot, write_csv

FIX = (
    "split the record, or raise the limit with --max-record-mb MB (or "
    "JUDGEBOARD_MAX_RECORD_MB) if this machine has the memory for it"
)


def _sparse_line(path: Path, prefix: bytes, size: int, before: bytes = b"") -> Path:
    """A file whose last line is `size` bytes, mostly a hole (no disk, no time to write)."""
    with open(path, "wb") as handle:
        handle.write(before + prefix)
        handle.truncate(len(before) + size)
    return path


def _refused(store: Store, path: Path, expected: str, **options: object) -> None:
    before = snapshot(store)
    with pytest.raises(IngestError) as caught:
        import_path(store, path, **options)
    assert str(caught.value) == expected
    assert snapshot(store) == before


def test_a_huge_jsonl_line_is_refused_at_once_naming_its_line(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MAX_RECORD_ENV, "1")
    good = (json.dumps(rating_record()) + "\n").encode()
    path = _sparse_line(tmp_path / "huge.jsonl", b'{"question": "', 2 * 1024**3, good * 2)
    started = time.monotonic()
    _refused(
        store,
        path,
        f"{path}: line 3: the record is longer than 1 MB, the most judgeboard reads in one "
        f"record; {FIX}",
    )
    assert time.monotonic() - started < 10  # a 2 GB line: the scan stops at the limit


def test_the_flag_wins_over_the_environment_and_a_record_under_it_imports(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MAX_RECORD_ENV, "0.01")  # 10 KB
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps(rating_record(answer="x" * 20_000)) + "\n")
    _refused(
        store,
        path,
        f"{path}: line 1: the record is longer than 0.01 MB, the most judgeboard reads in one "
        f"record; {FIX}",
    )
    report = import_path(store, path, max_record_mb=1)
    assert report.files[0].records == 1
    with pytest.raises(IngestError, match="a positive number of MB, not 0"):
        import_path(store, path, max_record_mb=0)


def test_a_long_csv_line_is_refused(store: Store, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "wide.csv", [rating_record(), rating_record(answer="y" * 30_000)])
    _refused(
        store,
        path,
        f"{path}: line 3: the CSV line is longer than 0.02 MB, the most judgeboard reads in one "
        f"record; {FIX}",
        max_record_mb=0.02,
    )


def test_a_json_array_is_measured_by_element_not_by_line(store: Store, tmp_path: Path) -> None:
    records = [rating_record(question=f"q{i}", answer="a" * 200) for i in range(40)]
    one_line = tmp_path / "one-line.json"
    one_line.write_text(json.dumps(records))  # ~12 KB on one line, no element over 1 KB
    assert first_long_line(one_line, 1024) == 1 and first_long_element(one_line, 1024) is None
    assert import_path(store, one_line, max_record_mb=1 / 1024).files[0].records == 40
    # Brackets, commas and escaped quotes inside strings are not structure.
    records[7] = rating_record(question='tricky "],[{" \\', answer="b" * 4000)
    big = tmp_path / "big-element.json"
    big.write_text(json.dumps(records))
    found = first_long_element(big, 1024)
    assert found is not None and found[0] == 8
    assert big.read_bytes()[found[1] : found[1] + 2] in (b"{", b" {")
    with pytest.raises(IngestError) as caught:
        import_path(store, big, max_record_mb=1 / 1024)
    assert str(caught.value).startswith(f"{big}: record 8 (index 7): it is longer than")


def test_memory_is_bounded_by_the_scan_not_the_record(tmp_path: Path) -> None:
    """The import command in a child process, its peak memory read with getrusage: a 512 MB
    line past a 64 MB limit costs about what a one-line file does."""
    small = tmp_path / "small.jsonl"
    small.write_text(json.dumps(rating_record()) + "\n")
    huge = _sparse_line(tmp_path / "huge.jsonl", b'{"question": "', 512 * 1024**2)

    def peak_mb(path: Path) -> tuple[float, str]:
        probe = (
            "import resource, subprocess, sys\n"
            "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\n"
            "print(done.stderr)\n"
        )
        command = [sys.executable, "-m", "dashboard.cli", "--db", str(tmp_path / "m.duckdb")]
        command += ["import", str(path), "--max-record-mb", "64", "--no-score"]
        out = subprocess.run(
            [sys.executable, "-c", probe, *command],
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        ).stdout
        first, _, rest = out.partition("\n")
        return float(first), rest

    baseline, _ = peak_mb(small)
    peak, stderr = peak_mb(huge)
    assert "line 1: the record is longer than 64 MB" in stderr
    # One scan chunk is 4 MB; DuckDB never sees the file.
    assert peak - baseline < 32, (baseline, peak)


@pytest.mark.parametrize(
    ("limit", "expected"), [(30, 51), (99, 51), (100, 55), (101, None), (5000, None)]
)
def test_the_first_long_line_is_counted_right_whatever_the_chunks(
    tmp_path: Path, limit: int, expected: int | None
) -> None:
    # Chunks are at most `limit` bytes, so small limits put lines across many chunk ends.
    path = tmp_path / "lines.txt"
    path.write_text("\n".join(["x" * 10] * 50 + ["y" * 100] + ["z" * 10] * 3 + ["w" * 101]))
    assert first_long_line(path, limit) == expected
