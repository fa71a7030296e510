"""The same data in a notebook: a judgeboard database as read-only pandas DataFrames.

    from dashboard import notebook

    db = notebook.open_database("judgeboard.duckdb")
    db.responses(dataset="eo-rag")        # a row per response, its scores side by side
    db.metrics(dataset="eo-rag")          # every metric of `judgeboard metrics --json`
    db.systems(dataset="eo-rag")          # a row per system, a column per metric and bound

The tables are read through the same store and the same metric code as the dashboard and
`judgeboard metrics`, so a notebook shows the numbers the report shows. The only writes are
people's labels given in code, checked whole before anything is written (`labels.py`):

    db.add_ratings(pd.DataFrame({"response_id": [...], "rater": "carol",
                                 "rubric": "likert-rag", "value": [4, 2]}))
    db.add_preferences(frame)  # response_a, response_b, rater, rubric, verdict (A, B, tie)
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from dashboard.metrics import output, reference, registry
from dashboard.metrics.choices import with_default_rubric
from dashboard.metrics.selection import Selection
from dashboard.notebook import notebook_sql as sql
from dashboard.notebook.labels import LabelsRefused, Written, write_preferences, write_ratings
from dashboard.settings import resolve_db_path
from dashboard.store import Store

__all__ = ["Database", "LabelsRefused", "Written", "open_database"]

PARTS = ("value", "low", "high", "n")


class Database:
    """One judgeboard database, read as DataFrames. Every method takes `dataset` (None: all)."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, wait_s: float = 30.0):
        self._store = Store(resolve_db_path(path), wait_s=wait_s)

    @property
    def path(self) -> str:
        return self._store.location

    def datasets(self) -> pd.DataFrame:
        """Each dataset with its counts of items, responses, ratings and preferences."""
        rows = [
            vars(d) | {"task_types": list(d.task_types), "systems": list(d.systems)}
            for d in self._store.list_datasets()
        ]
        return pd.DataFrame(rows)

    def responses(self, *, dataset: str | None = None, rubric: str | None = None) -> pd.DataFrame:
        """A row per response with its item, its panel, human and effective scores under
        `rubric` (default: the most used one, as on the Overview), normalized to 0-1, and its
        reference-based scores (em, f1, mcqa_accuracy, mcqa_iou, halluc_pred)."""
        chosen = with_default_rubric(self._store, Selection(dataset, rubric)).rubric
        stored = tuple(m.stored for m in registry.REFERENCE_METRICS)
        with self._store.connection() as con:
            return sql.responses(
                con, dataset=dataset, rubric=chosen, reference=stored, version=reference.VERSION
            )

    def ratings(self, *, dataset: str | None = None, current_only: bool = True) -> pd.DataFrame:
        """Every rating of judges and people (with `current_only=False`, superseded ones too)."""
        with self._store.connection() as con:
            return sql.ratings(con, dataset=dataset, current_only=current_only)

    def preferences(self, *, dataset: str | None = None, current_only: bool = True) -> pd.DataFrame:
        """Every pairwise verdict, canonical frame, with the order it was shown in."""
        with self._store.connection() as con:
            return sql.preferences(con, dataset=dataset, current_only=current_only)

    def add_ratings(self, frame: pd.DataFrame) -> Written:
        """Write people's ratings: a row per label with `response_id`, `rater` (the person),
        `rubric` (a rating rubric) and `value` (on its scale), and optionally `comment` and
        `selection` (how the answer was chosen; default "unknown"). Each is stored as a page
        stores a person's label (rater_kind "human", the time of the write, the rubric's
        version) and supersedes that person's earlier label of the answer. The frame is checked
        whole first: one bad row raises `LabelsRefused`, naming the row and field, and nothing
        is written."""
        return write_ratings(self._store, frame)

    def add_preferences(self, frame: pd.DataFrame) -> Written:
        """Write people's pairwise votes: a row with `response_a`, `response_b` (two answers
        to one question), `rater`, `rubric` (a pairwise rubric) and `verdict` ("A": response_a
        is better, "B", or "tie"), optionally `shown_first` (default "A"), `comment` and
        `selection`. All or nothing, as `add_ratings`."""
        return write_preferences(self._store, frame)

    def judge_calls(self, *, dataset: str | None = None) -> pd.DataFrame:
        """Every judge call with its status, attempts, latency, tokens and cost."""
        with self._store.connection() as con:
            return sql.judge_calls(con, dataset=dataset)

    def metrics_json(self, *, dataset: str | None = None, rubric: str | None = None) -> dict:
        """The dict `judgeboard metrics --json` prints."""
        return output.compute(self._store, Selection(dataset, rubric))[2]

    def metrics(self, *, dataset: str | None = None, rubric: str | None = None) -> pd.DataFrame:
        """Every metric as a row: its name, the declaration it fits, value, low, high, n."""
        found = self.metrics_json(dataset=dataset, rubric=rubric)["metrics"]
        return metrics_frame(found)

    def systems(self, *, dataset: str | None = None, rubric: str | None = None) -> pd.DataFrame:
        """A row per system and a column per system metric, with `<metric>_low`,
        `<metric>_high` and `<metric>_n` beside each value."""
        data = self.metrics_json(dataset=dataset, rubric=rubric)
        rows = []
        for system in data["systems"]:
            prefix = f"systems.{system}."
            row: dict[str, Any] = {"system": system}
            for name, entry in data["metrics"].items():
                if name.startswith(prefix):
                    key = name.removeprefix(prefix)
                    row[key] = entry["value"]
                    row.update({f"{key}_{part}": entry[part] for part in PARTS[1:]})
            rows.append(row)
        return pd.DataFrame(rows)


def metrics_frame(found: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """The flat metrics of the JSON as a DataFrame, a row per metric."""
    rows = []
    for name, entry in found.items():
        declared = registry.declared(name)
        rows.append(
            {
                "name": name,
                "metric": declared.name if declared else None,
                **{part: entry[part] for part in PARTS},
            }
        )
    return pd.DataFrame(rows, columns=["name", "metric", *PARTS])


def open_database(path: str | os.PathLike[str] | None = None, *, wait_s: float = 30.0) -> Database:
    """The database at `path` (default: $JUDGEBOARD_DB or ./judgeboard.duckdb); `wait_s` is
    how long a read waits while another process (the dashboard, an import) holds the file."""
    return Database(path, wait_s=wait_s)
