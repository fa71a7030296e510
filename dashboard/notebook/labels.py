"""People's labels written from code: a DataFrame of ratings or of pairwise votes, checked
whole before anything is written.

Each row becomes the same record a labelling page writes (`rater_kind` "human", `rater` the
person's name, `created_utc` the time of the write, the rubric's current version), with
`selection` saying how the answer was chosen ("unknown" unless the frame says). Every row is
checked first (the fields, the rubric, the scale, that the answers exist); one bad row refuses
the whole frame with an error naming the row and the field, and the frame is then written in
one transaction, so a write is all or nothing. Rating an answer again supersedes the person's
earlier label, as on the page.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import pandas as pd

from dashboard.ids import new_id, utc_now
from dashboard.judging.rubrics import Rubric, list_rubrics
from dashboard.notebook import notebook_sql as sql
from dashboard.store import Store
from dashboard.store.connection import Connection
from dashboard.types import SELECTIONS, Preference, Rating

RATING_COLUMNS = ("response_id", "rater", "rubric", "value")
PREFERENCE_COLUMNS = ("response_a", "response_b", "rater", "rubric", "verdict")
OPTIONAL_COLUMNS = ("comment", "selection", "shown_first")
VERDICTS = ("A", "B", "tie")


class LabelsRefused(ValueError):
    """A frame of labels refused whole: nothing was written. `problems` lists each one as
    "row <index>, <field>: <what is wrong>"; the message shows the first few."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        shown = "\n  ".join(self.problems[:10])
        more = f"\n  … and {len(self.problems) - 10} more" if len(self.problems) > 10 else ""
        super().__init__(
            f"Nothing was written: {len(self.problems)} problem(s) in the frame. Fix them and "
            f"write the whole frame again.\n  {shown}{more}"
        )


@dataclass(frozen=True)
class Written:
    """What a write stored: how many labels, and the ids of the new rows in frame order."""

    count: int
    ids: tuple[str, ...]


def _rubrics(kind: str) -> dict[str, Rubric]:
    return {r.name: r for r in list_rubrics() if r.kind == kind}


def _text(row: pd.Series, column: str) -> str | None:
    value = row.get(column)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return str(value).strip() or None


def _check_columns(frame: pd.DataFrame, required: Sequence[str]) -> None:
    missing = [c for c in required if c not in frame.columns]
    unknown = [c for c in frame.columns if c not in (*required, *OPTIONAL_COLUMNS)]
    problems = [f"column {c!r}: missing (needed: {', '.join(required)})" for c in missing]
    problems += [
        f"column {c!r}: not a label field (known: {', '.join((*required, *OPTIONAL_COLUMNS))})"
        for c in unknown
    ]
    if problems:
        raise LabelsRefused(problems)


def _common(row: pd.Series, where: str, rubrics: dict[str, Rubric], problems: list[str]) -> None:
    if _text(row, "rater") is None:
        problems.append(f"{where}, rater: empty; every label names the person who gave it")
    rubric = _text(row, "rubric")
    if rubric not in rubrics:
        problems.append(
            f"{where}, rubric: {rubric!r} is not a known rubric of this kind "
            f"(known: {', '.join(sorted(rubrics))})"
        )
    selection = _text(row, "selection")
    if selection is not None and selection not in SELECTIONS:
        problems.append(f"{where}, selection: {selection!r}; use one of {', '.join(SELECTIONS)}")


def _value(row: pd.Series, where: str, rubric: Rubric | None, problems: list[str]) -> float:
    raw: Any = row.get("value")
    try:
        value = float(raw)
    except (TypeError, ValueError):
        problems.append(f"{where}, value: {raw!r} is not a number")
        return math.nan
    if math.isnan(value):
        problems.append(f"{where}, value: empty; a label from code has a value")
    elif rubric is not None and rubric.scale_low is not None and rubric.scale_high is not None:
        low, high = rubric.scale_low, rubric.scale_high
        if not low <= value <= high:
            problems.append(
                f"{where}, value: {value:g} is off the {rubric.name} scale ({low:g} to {high:g})"
            )
    return value


def ratings_from_frame(frame: pd.DataFrame, *, now: datetime | None = None) -> list[Rating]:
    """The frame's rows as people's ratings, or `LabelsRefused` naming every bad row."""
    _check_columns(frame, RATING_COLUMNS)
    rubrics = _rubrics("rating")
    created = now or utc_now()
    problems: list[str] = []
    found: list[Rating] = []
    for index, row in frame.iterrows():
        where = f"row {index}"
        _common(row, where, rubrics, problems)
        rubric = rubrics.get(_text(row, "rubric") or "")
        value = _value(row, where, rubric, problems)
        response_id = _text(row, "response_id")
        if response_id is None:
            problems.append(f"{where}, response_id: empty")
        if problems or rubric is None or response_id is None:
            continue
        found.append(
            Rating(
                new_id(),
                response_id,
                "human",
                _text(row, "rater") or "",
                rubric.name,
                rubric.version,
                value,
                rubric.scale_low if rubric.scale_low is not None else value,
                rubric.scale_high if rubric.scale_high is not None else value,
                created_utc=created,
                comment=_text(row, "comment"),
                selection=_text(row, "selection") or "unknown",
                source="notebook",
            )
        )
    if problems:
        raise LabelsRefused(problems)
    return found


def preferences_from_frame(frame: pd.DataFrame, *, now: datetime | None = None) -> list[Preference]:
    """The frame's rows as people's pairwise votes (the verdict on response_a vs response_b:
    "A", "B" or "tie"), or `LabelsRefused` naming every bad row. The item is the two
    answers' item, checked when written."""
    _check_columns(frame, PREFERENCE_COLUMNS)
    rubrics = _rubrics("pairwise")
    created = now or utc_now()
    problems: list[str] = []
    found: list[Preference] = []
    for index, row in frame.iterrows():
        where = f"row {index}"
        _common(row, where, rubrics, problems)
        verdict = _text(row, "verdict")
        if verdict not in VERDICTS:
            problems.append(f"{where}, verdict: {verdict!r}; use one of {', '.join(VERDICTS)}")
        shown = _text(row, "shown_first") or "A"
        if shown not in ("A", "B"):
            problems.append(f"{where}, shown_first: {shown!r}; use A or B")
        a, b = _text(row, "response_a"), _text(row, "response_b")
        for name, value in (("response_a", a), ("response_b", b)):
            if value is None:
                problems.append(f"{where}, {name}: empty")
        if a is not None and a == b:
            problems.append(f"{where}, response_b: the same answer as response_a")
        rubric = rubrics.get(_text(row, "rubric") or "")
        if problems or rubric is None or a is None or b is None:
            continue
        found.append(
            Preference(
                new_id(),
                "",  # the item: filled in from the answers when written
                a,
                b,
                "human",
                _text(row, "rater") or "",
                rubric.name,
                rubric.version,
                verdict,
                shown,
                created_utc=created,
                comment=_text(row, "comment"),
                selection=_text(row, "selection") or "unknown",
                source="notebook",
            )
        )
    if problems:
        raise LabelsRefused(problems)
    return found


def _items_of(con: Connection, ids: Sequence[str], rows: Sequence[Any]) -> dict[str, str]:
    """Each answer's item; `LabelsRefused` naming the row of any answer not in the database."""
    items = sql.items_of_responses(con, sorted(set(ids)))
    missing = [
        f"row {row}, response: {rid!r} is not an answer in this database"
        for rid, row in zip(ids, rows, strict=True)
        if rid not in items
    ]
    if missing:
        raise LabelsRefused(missing)
    return items


def write_ratings(store: Store, frame: pd.DataFrame) -> Written:
    """Check the whole frame, then write its ratings in one transaction (or nothing). The
    answers are checked in the write's own transaction, so none can go missing between."""
    ratings = ratings_from_frame(frame)
    ids = [r.response_id for r in ratings]

    def check(con: Connection) -> None:
        _items_of(con, ids, list(frame.index))

    store.add_ratings(ratings, spool_if_busy=False, check=check)
    return Written(len(ratings), tuple(r.rating_id for r in ratings))


def write_preferences(store: Store, frame: pd.DataFrame) -> Written:
    """Check the whole frame, then write its votes in one transaction (or nothing): both
    answers of a row must exist and answer the same question, whose item the vote is on."""
    votes = preferences_from_frame(frame)
    rows = list(frame.index)
    ids = [v.response_a for v in votes] + [v.response_b for v in votes]
    with store.connection() as con:
        items = _items_of(con, ids, rows * 2)
    problems = [
        f"row {row}, response_b: answers another question than response_a"
        for v, row in zip(votes, rows, strict=True)
        if items[v.response_a] != items[v.response_b]
    ]
    if problems:
        raise LabelsRefused(problems)
    votes = [replace(v, item_id=items[v.response_a]) for v in votes]

    def check(con: Connection) -> None:
        _items_of(con, ids, rows * 2)

    store.add_preferences(votes, spool_if_busy=False, check=check)
    return Written(len(votes), tuple(v.preference_id for v in votes))
