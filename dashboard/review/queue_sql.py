"""The SQL of the annotation queue: the responses a person has not labelled yet, in an order.

It ranks the same per-response scores as the Failures list (`failures_sql.SCORED`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dashboard.review.failures_sql import SCORED
from dashboard.store.connection import Connection
from dashboard.store.rows import Window, fetch_window, scalar

# The orders of the annotation queue; each is a code constant, never user input.
QUEUE_ORDERS: dict[str, str] = {
    "worst": "effective ASC NULLS LAST, dataset, item_id, system, response_id",
    "disagreement": "spread DESC NULLS LAST, effective ASC NULLS LAST, response_id",
    "unlabelled": "dataset, item_id, system, response_id",
    "random": "md5(concat_ws(chr(31), $seed, response_id)), response_id",
}


@dataclass(frozen=True)
class QueueRequest:
    """Which answers to label, and in what order. `task_types` empty = every task type."""

    rubric: str
    annotator: str
    order: str = "random"
    dataset: str | None = None
    task_types: tuple[str, ...] = ()
    seed: int = 0
    # Answers passed over (skipped in this session): left out of the queue.
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class QueueEntry:
    response_id: str
    system: str
    dataset: str
    effective: float | None
    spread: float | None
    n_judges: int
    n_humans: int


def _queue_params(request: QueueRequest) -> dict[str, Any]:
    return {
        "rubric": request.rubric,
        "dataset": request.dataset,
        "system": None,
        "judge": None,
        "task_types": list(request.task_types) or None,
        "pattern": None,
        "annotator": request.annotator,
        "unlabelled": request.order == "unlabelled",
        "exclude": list(request.exclude),
        "panel_judges": None,  # worst first by every judge's ratings
        "panel_version": None,
    }


_QUEUE_WHERE = (
    "WHERE n_mine = 0 AND (NOT $unlabelled OR n_humans = 0) "
    "AND NOT list_contains($exclude::VARCHAR[], response_id)"
)


def queue_rows(
    con: Connection, request: QueueRequest, *, limit: int, offset: int
) -> Window[QueueEntry]:
    """Responses `request.annotator` has not rated yet on the rubric, in the chosen order;
    and how many there are (None when the window is empty)."""
    params = _queue_params(request)
    if request.order == "random":
        params["seed"] = str(request.seed)
    return fetch_window(
        con.execute(
            f"SELECT response_id, system, dataset, effective, spread, n_judges, n_humans, "
            f"count(*) OVER () AS total FROM ({SCORED}) {_QUEUE_WHERE} "
            f"ORDER BY {QUEUE_ORDERS[request.order]} LIMIT $limit OFFSET $offset",
            {**params, "limit": limit, "offset": offset},
        ),
        QueueEntry,
    )


def count_queue(con: Connection, request: QueueRequest) -> int:
    query = f"SELECT count(*) FROM ({SCORED}) {_QUEUE_WHERE}"
    return int(scalar(con.execute(query, _queue_params(request))))
