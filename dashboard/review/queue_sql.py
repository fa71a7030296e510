"""The SQL of the annotation queue: the responses a person has not labelled yet, in an order.

It ranks the same per-response scores as the Failures list (`failures_sql.SCORED`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dashboard.review.failures_sql import SCORED
from dashboard.store.connection import Connection
from dashboard.store.rows import dicts

# The orders of the annotation queue; each is a code constant, never user input.
QUEUE_ORDERS: dict[str, str] = {
    "worst": "effective ASC NULLS LAST, dataset, item_id, system, response_id",
    "disagreement": "spread DESC NULLS LAST, effective ASC NULLS LAST, response_id",
    "unlabelled": "dataset, item_id, system, response_id",
    "random": "md5(concat_ws(chr(31), $seed, response_id)), response_id",
}


def _queue_params(
    *, rubric: str, dataset: str | None, task_types: Sequence[str], annotator: str, unlabelled: bool
) -> dict[str, Any]:
    return {
        "rubric": rubric,
        "dataset": dataset,
        "system": None,
        "judge": None,
        "task_types": list(task_types) or None,
        "pattern": None,
        "annotator": annotator,
        "unlabelled": unlabelled,
    }


_QUEUE_WHERE = "WHERE n_mine = 0 AND (NOT $unlabelled OR n_humans = 0)"


def queue_rows(
    con: Connection, *, order: str, seed: int, limit: int, offset: int, **selection: Any
) -> tuple[list[dict[str, Any]], int | None]:
    """Responses `annotator` has not rated yet on `rubric`, in the chosen order; and how many
    there are (None when the window is empty)."""
    params = _queue_params(unlabelled=order == "unlabelled", **selection)
    if order == "random":
        params["seed"] = str(seed)
    rows = dicts(
        con.execute(
            f"SELECT response_id, system, dataset, effective, spread, n_judges, n_humans, "
            f"count(*) OVER () AS total FROM ({SCORED}) {_QUEUE_WHERE} "
            f"ORDER BY {QUEUE_ORDERS[order]} LIMIT $limit OFFSET $offset",
            {**params, "limit": limit, "offset": offset},
        )
    )
    total = rows[0]["total"] if rows else None
    for row in rows:
        del row["total"]
    return rows, total


def count_queue(con: Connection, *, order: str, **selection: Any) -> int:
    params = _queue_params(unlabelled=order == "unlabelled", **selection)
    return con.execute(f"SELECT count(*) FROM ({SCORED}) {_QUEUE_WHERE}", params).fetchone()[0]
