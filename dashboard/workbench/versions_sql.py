"""The reads and the write of rubric versions made in the workbench (`rubric_versions`,
migration 13), and the people's labels few-shot examples are picked from."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from dashboard.judging.rubrics import FewShotExample
from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class VersionRow:
    rubric: str
    rubric_version: str
    parent_version: str | None
    toml: str
    example_ids: list[str]
    prompt_hash: str
    author: str | None
    note: str | None
    created_utc: datetime


_COLUMNS = (
    "rubric, rubric_version, parent_version, toml, example_ids, prompt_hash, author, note, "
    "created_utc"
)


def version_rows(con: Connection, *, rubric: str) -> list[VersionRow]:
    cursor = con.execute(
        f"SELECT {_COLUMNS} FROM rubric_versions WHERE rubric = ? ORDER BY created_utc",
        [rubric],
    )
    return fetch(cursor, VersionRow)


def add_version(con: Connection, row: VersionRow) -> None:
    con.execute(
        "INSERT INTO rubric_versions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            row.rubric,
            row.rubric_version,
            row.parent_version,
            row.toml,
            list(row.example_ids),
            row.prompt_hash,
            row.author,
            row.note,
            row.created_utc,
        ],
    )


def add_examples(con: Connection, row: VersionRow, examples: Sequence[FewShotExample]) -> None:
    """The labels a version shows as examples, in `few_shot_examples` (migration 9), so that
    calibration and Judge QA leave them out of its agreement as they do for `--few-shot`;
    seed 0: they are picked, not drawn."""
    if not examples:
        return
    con.executemany(
        "INSERT INTO few_shot_examples VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)",
        [
            [row.rubric, row.rubric_version, n, e.response_id, e.rating_id, e.rater, e.value]
            + [row.created_utc]
            for n, e in enumerate(examples, start=1)
        ],
    )


def labels_by_id(con: Connection, rating_ids: Sequence[str]) -> list[FewShotExample]:
    """People's ratings named by id, with the question and answer they rated."""
    cursor = con.execute(
        """
        SELECT g.response_id, g.rating_id, g.rater, i.question, r.answer, g.value
        FROM ratings g
        JOIN responses r ON r.response_id = g.response_id
        JOIN items i ON i.item_id = r.item_id AND i.dataset = r.dataset
        WHERE g.rating_id IN (SELECT unnest($ids)) AND g.value IS NOT NULL
        ORDER BY g.rating_id""",
        {"ids": list(rating_ids)},
    )
    return fetch(cursor, FewShotExample)


def labels_of(con: Connection, *, rubric: str, response_ids: Sequence[str]) -> list[FewShotExample]:
    """People's current scored ratings of the rubric on these responses (dev labels, to pick
    few-shot examples from)."""
    cursor = con.execute(
        """
        SELECT g.response_id, g.rating_id, g.rater, i.question, r.answer, g.value
        FROM current_ratings g
        JOIN responses r ON r.response_id = g.response_id
        JOIN items i ON i.item_id = r.item_id AND i.dataset = r.dataset
        WHERE g.rubric = $rubric AND g.rater_kind = 'human' AND g.value IS NOT NULL
          AND g.response_id IN (SELECT unnest($ids))
        ORDER BY g.response_id, g.rater""",
        {"rubric": rubric, "ids": list(response_ids)},
    )
    return fetch(cursor, FewShotExample)
