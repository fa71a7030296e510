"""The rubric files are read once per script run, however many pickers show them."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.settings import rubrics_dir
from tests.pages.helpers import page_path

PROBE = rubrics_dir() / "likert-rag.toml"


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every read of the shipped likert-rag rubric file, as it happens."""
    seen: list[Path] = []
    original = Path.read_text

    def read_text(self: Path, *args: object, **kwargs: object) -> str:
        if self.resolve() == PROBE.resolve():
            seen.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", read_text)
    return seen


@pytest.mark.parametrize(
    ("page", "most"),
    [
        ("annotate", 1),
        ("pairwise", 1),
        ("run_judges", 2),  # the rubrics, and which files cannot be used (a second scan)
    ],
)
def test_a_page_run_reads_the_rubric_files_once(
    app: AppTest, reads: list[Path], page: str, most: int
) -> None:
    app.switch_page(page_path(page))
    app.session_state["jb_dataset"] = "eo-rag"
    app.session_state["jb_annotator"] = "zoe"
    app.run()  # the first run also fills the caches of the database reads
    assert not app.exception
    reads.clear()
    app.run()
    assert not app.exception
    assert 1 <= len(reads) <= most, reads
