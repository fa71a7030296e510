"""The integrity stress in brief (the long version is `python -m bench integrity`): labellers of
one campaign, a committer, an import, a judge run, a reader and a plain DuckDB holder on one
file at once, all spawned; then every table is read back whole. Nothing acknowledged is lost,
no answer passes its overlap, nobody labels one answer twice, and the file reads back."""

from __future__ import annotations

from pathlib import Path

from bench.integrity_race import RaceConfig, run


def test_a_contended_campaign_loses_nothing_and_keeps_its_overlap(
    tmp_path: Path, sample_db_path: Path
) -> None:
    config = RaceConfig(labellers=4, size=12, overlap=2, seconds=15.0)
    result = run(tmp_path / "race", config, template=sample_db_path)
    assert result.ok, result.as_json()
    # The processes did their work while the others held the file.
    assert result.saves_acked > 0 and result.commits_acked > 0
    assert result.imports > 0 and result.judge_runs > 0


def test_short_holds_never_take_an_answer_past_its_overlap(
    tmp_path: Path, sample_db_path: Path
) -> None:
    """Holds that end before the save (0.3 s against up to 1 s of thinking): a save of an
    answer the person no longer holds is refused, so overlap stays a hard limit."""
    config = RaceConfig(
        labellers=4,
        size=8,
        overlap=2,
        hold_minutes=0.005,
        think_s=1.0,
        seconds=12.0,
        importer=False,
        judge=False,
        reader=False,
        committer=False,
        holder=False,
    )
    result = run(tmp_path / "race", config, template=sample_db_path)
    assert result.ok, result.as_json()
    assert result.saves_refused > 0  # some holds did end before their save
