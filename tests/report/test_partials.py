"""A report or an export killed while writing leaves a partial file; the next run removes it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from dashboard.cli import main
from dashboard.partials import SUFFIX
from dashboard.store import Store
from tests.paths import REPO_ROOT

# What `write_report` does up to the rename, then a SIGKILL of the writer itself.
KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
from dashboard.partials import partial_path
partial = partial_path(Path(sys.argv[1]))
with open(partial, "w", encoding="utf-8") as handle:
    handle.write("<!doctype html><html><body>half a rep")
    handle.flush()
    os.kill(os.getpid(), signal.SIGKILL)
"""


def _killed_writer(target: Path) -> None:
    done = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(target)], cwd=REPO_ROOT)
    assert done.returncode == -9  # killed by SIGKILL, its partial written


def _partials(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"*{SUFFIX}"))


def test_the_next_report_removes_what_a_killed_one_left(
    judged_store: Store, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    target = out / "report.html"
    _killed_writer(target)
    (out / f"report.html{SUFFIX}").write_text("left by an older version", encoding="utf-8")
    (out / f"other.html.1{SUFFIX}").write_text("another file's partial", encoding="utf-8")
    assert len(_partials(out)) == 3 and not target.exists()
    assert main(["--db", judged_store.url, "report", "--out", str(target)]) == 0
    html = target.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and html.endswith("</html>\n")
    assert _partials(out) == [out / f"other.html.1{SUFFIX}"]  # not this target's


def test_the_next_export_removes_what_a_killed_one_left(
    judged_store: Store, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    _killed_writer(out / "all.ratings.csv")
    assert main(["--db", judged_store.url, "export", "--out", str(out / "all.csv")]) == 0
    assert _partials(out) == []
    assert (out / "all.ratings.csv").read_text(encoding="utf-8").startswith("dataset,")
